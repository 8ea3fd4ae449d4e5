"""A second generated person's folder, independent of person_folder.py: the documents kept by Tillie
Marsh of Tollerwick, an invented fishing village on the Skell estuary in the invented county of
Cardale. Pages saved from the estuary's news site, the sailing school's, the vets' and the community
choir's sites and a fishmonger's blog (cookie notices, menus, breadcrumbs, sidebars, comments and
footers around the content), the harbour co-operative's annual review (tables across years) and the
heritage railway's timetable as PDF, wiki pages in Markdown (village, railway, lifeboat station),
letters and a memo as .docx, minutes and notes as .txt, regatta results as .csv and a choir e-mail
as .eml.

Every name, date and figure is made up. The same people and organisations recur across files
(the boatyard built the gig, the keelboat and the first lifeboat; one vet orders a dinghy, another leads
the choir's altos; the choir sings on the railway), so most questions have near neighbours that do not answer
them. Question kinds and the ``Question`` record are person_folder's; ids are "q2-001", ...; near
misses (gold ``NULL``) name the file that holds their entity.

``make_person_folder(folder)`` writes the files and returns the questions. Deterministic: no
randomness, fixed dates inside the .docx files, fixed zip timestamps, a fixed e-mail date.

    .venv/bin/python benchmarks/person_folder2.py OUT_DIR
"""

from __future__ import annotations

import sys
import textwrap
from collections import Counter
from dataclasses import replace
from datetime import datetime
from email.message import EmailMessage
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from person_folder import KINDS, NULL, Question, _docx, _wrap, near_miss, write_files  # noqa: E402

from tests.fixtures.make_fixtures import pdf_bytes  # noqa: E402

# --- web pages -------------------------------------------------------------------------------

def _blocks(text: str) -> list[str]:
    """Blank-line separated blocks, each on one line."""
    return [" ".join(b.split()) for b in textwrap.dedent(text).strip().split("\n\n")]


def _story(text: str) -> str:
    """Blocks as HTML: "### " starts a sub-heading, "> " a pull quote, the rest paragraphs."""
    out = []
    for b in _blocks(text):
        if b.startswith("### "):
            out.append(f'<h3 class="subhead">{b[4:]}</h3>')
        elif b.startswith("> "):
            out.append(f'<blockquote class="pull">{b[2:]}</blockquote>')
        else:
            out.append(f"<p>{b}</p>")
    return "\n        ".join(out)


ECHO_TRENDING = [
    "Parking charges on East Quay to rise from June",
    "Skellmouth Town stage late comeback to reach county cup final",
    "Letters: bring back the Sunday bus to Hallow Cross",
    "Seal pup rescued from the weir at Pennock Mill",
    "Obituary: former ferryman Ezra Pascoe, 93",
]


def echo_page(*, headline: str, dek: str, trail: list[str], published: str, reporter: str,
              caption: str, body: str, tags: list[str], more: list[str]) -> str:
    """An article saved from The Skell Estuary Echo's web site, everything around it included."""
    crumbs = "\n      ".join(f'<li><a href="/{t.lower().replace(" ", "-")}/">{t}</a></li>' for t in trail)
    tag_links = ", ".join(f'<a href="/tag/{t.lower().replace(" ", "-")}/">{t}</a>' for t in tags)
    more_items = "\n            ".join(f'<li><a href="#">{m}</a> <span class="ago">{i + 2} days ago</span></li>'
                                       for i, m in enumerate(more))
    trending = "\n            ".join(f"<li>{t}</li>" for t in ECHO_TRENDING)
    return f"""<!doctype html>
<html lang="en-GB">
<head>
  <meta charset="utf-8">
  <title>{headline} - The Skell Estuary Echo</title>
  <meta name="description" content="{dek}">
  <link rel="canonical" href="https://www.estuaryecho.example/news/">
  <link rel="stylesheet" href="/assets/echo-2024.css">
  <script async src="/assets/adloader.js"></script>
</head>
<body class="page-story">
  <div class="gdpr-overlay" role="dialog" aria-label="Cookie consent">
    <h4>Your privacy matters to us</h4>
    <p>The Echo uses cookies and similar technologies to remember your settings, count our readers
    and show adverts that help pay for local journalism. Choose "Agree" to accept them, or open the
    settings to pick which ones you allow.</p>
    <button class="agree">Agree</button> <button class="settings">Settings</button>
    <a href="/cookie-policy/">Read our cookie policy</a>
  </div>
  <div class="utility-bar">
    <span class="patch">Tollerwick &middot; Skellmouth &middot; Hallow Cross &middot; the Skell valley</span>
    <a href="/account/login/">Log in</a> <a href="/account/register/">Register</a>
    <a href="/digital-edition/">Digital edition</a> <a href="/newsroom/">Contact the newsroom</a>
  </div>
  <header id="site-header">
    <div class="brand">
      <a href="/"><img src="/assets/echo-logo.svg" alt="The Skell Estuary Echo"></a>
      <span class="tagline">Your estuary, your news &ndash; online every day, in print every Friday</span>
    </div>
    <nav id="primary">
      <a href="/">Home</a> | <a href="/news/">News</a> | <a href="/harbour/">Harbour &amp; Fishing</a> |
      <a href="/community/">Community</a> | <a href="/whats-on/">What's On</a> | <a href="/sport/">Sport</a> |
      <a href="/letters/">Letters</a> | <a href="/notices/">Notices</a> | <a href="/property/">Property</a> |
      <a href="/search/">Search</a>
    </nav>
  </header>
  <ol class="trail">
      <li><a href="/">Echo</a></li>
      {crumbs}
  </ol>
  <div class="layout">
    <article class="story">
      <h1>{headline}</h1>
      <p class="dek"><em>{dek}</em></p>
      <p class="meta">Published <time>{published}</time> | Reporter: <a href="#">{reporter}</a> |
        <a href="#comments">Comments (0)</a> | <a href="#">Print</a></p>
      <figure>
        <img src="/media/story-main.jpg" alt="">
        <figcaption>{caption}</figcaption>
      </figure>
      <div class="story-body">
        {_story(body)}
      </div>
      <p class="tags">Tagged: {tag_links}</p>
      <div class="newsletter-inline">
        <strong>The Echo Daily</strong> &ndash; the estuary's news in your inbox at 6.30 every morning.
        <form><input type="email" placeholder="Email address"> <button>Sign me up</button></form>
      </div>
      <section class="more-from">
        <h2>More from the Echo</h2>
        <ul>
            {more_items}
        </ul>
      </section>
      <section id="comments"><p>Be the first to comment. You must be logged in to comment.</p></section>
    </article>
    <aside class="rail">
      <section class="trending">
        <h3>Trending now</h3>
        <ol>
            {trending}
        </ol>
      </section>
      <section class="ad-slot">
        <p class="label">Advertisement</p>
        <p>Pellew Marine &ndash; outboard servicing and winter storage. Boatyard Lane, Skellmouth.</p>
      </section>
      <section class="tides">
        <h3>Tollerwick tides today</h3>
        <p>High water 06:41 and 19:02 &middot; Low water 00:37 and 13:05</p>
      </section>
    </aside>
  </div>
  <footer id="site-footer">
    <nav><a href="/about/">About the Echo</a> &middot; <a href="/advertise/">Advertise with us</a> &middot;
      <a href="/corrections/">Corrections</a> &middot; <a href="/privacy/">Privacy</a> &middot;
      <a href="/terms/">Terms of use</a> &middot; <a href="/cookie-policy/">Cookies</a></nav>
    <p>The Skell Estuary Echo is published by Estuary Media, 3 Chandlers Yard, Skellmouth, Cardale.
      &copy; Estuary Media 2025. Reproduction without permission is prohibited.</p>
  </footer>
</body>
</html>
"""


GIG_ARTICLE = echo_page(
    headline="Curlew takes to the water: Tollerwick's first home-built gig in forty years",
    dek="Craftsmen at the village boatyard hand over a six-oared racing gig to the club after "
        "fourteen months in the shed",
    trail=["News", "Tollerwick", "Community"],
    published="Saturday 17 May 2025, 08:15",
    reporter="Lydia Fenwick",
    caption="Curlew slides down the slipway at Tollerwick harbour on Friday evening. Photo: Echo / Sam Ruddock",
    tags=["Tollerwick", "Gig rowing", "Boatbuilding", "St Brannock's"],
    more=["Harbour co-op celebrates its biggest ever spider crab summer",
          "Gannet Halt welcomes its first passengers in 58 years",
          "Saltings Singers bring Songs of the Sea to the parish church"],
    body="""
    A crowd of several hundred people lined the harbour wall on Friday evening, 16 May 2025, to
    watch Curlew, a new six-oared pilot gig, slide down the slipway and into the water for the
    first time. She is the first gig to be built in Tollerwick since Shearwater left the same
    slipway in 1985.

    Curlew was built for Tollerwick Gig Club by the village boatyard Ferrand &amp; Daughter, on the
    west side of the harbour. The yard's craftsmen spent fourteen months and some two thousand
    three hundred hours on the boat, planking her in elm over oak frames in the traditional way.
    She is 32 feet long and weighs a little under 370 kilograms.

    The gig cost &euro;48,000. The Cardale Community Lottery gave &euro;20,000 and club members
    raised the rest with sponsored rows, quiz nights and a calendar that sold out twice.

    ### A family yard

    The boatyard was founded in 1952 by Silas Ferrand, a shipwright who came home to Tollerwick
    from the naval dockyards after the war. It took its present name in 1960, when his daughter Ada
    became a partner in the business. Today it is run by Ada's daughter, Maud Ferrand, who has been
    managing director since 2012.

    > "My grandfather built working boats, my mother built yachts, and now we are building a
    racing gig."

    "Every plank on Curlew was steamed and bent by hand in our shed," Ms Ferrand said. "We are very
    proud of her." Apprentice Lukas Brandt fitted the six thwarts, the seats the rowers sit on, as
    his first big job at the yard.

    ### Named by the village's children

    The name was chosen in a competition among the pupils of St Brannock's Primary School. The
    winning entry came from Marnie Ostler, aged nine, who said she picked the curlew because "it is
    the bird you hear on the mud when the tide goes out". She and her classmates were given the
    first ride in the new boat, with club members at the oars.

    The honour of launching Curlew went to the club's oldest member, Edwin Polmear, who is 88 and
    rowed in Shearwater's first race. He broke a bottle of Tollerwick cider over her bow.

    Club captain Roisin Galley said the crews would spend the summer getting used to the boat before
    her first race at the Skellmouth Regatta on 2 August 2025. "The old gigs will still be used for
    training," she said. "Curlew is for racing."

    Anyone interested in rowing can come to the club's open session on the slipway, held every
    Sunday morning from May to September.
    """,
)


HALT_ARTICLE = echo_page(
    headline="All aboard for Gannet Halt: trains stop at the estuary halt again after 58 years",
    dek="Volunteers rebuilt the platform by hand, and the first train was packed with birdwatchers",
    trail=["News", "Skell Valley", "Transport"],
    published="Tuesday 8 April 2025, 17:40",
    reporter="Benedict Arkwright",
    caption="Lady Ermyntrude draws into the rebuilt platform at Gannet Halt. Photo: Echo / Sam Ruddock",
    tags=["Skell Valley Steam Railway", "Gannet Point", "Heritage", "Volunteering"],
    more=["New gig for Tollerwick rowers takes shape at the boatyard",
          "Lifeboat crew called to yacht aground on Pennock Spit",
          "Steam and song: choir to sing its way up the valley"],
    body="""
    The Skell Valley Steam Railway reopened Gannet Halt on Saturday 5 April 2025, 58 years after
    the last train called there. The halt, which sits between the salt marsh and the pine woods
    behind Gannet Point, was closed in 1967, when passenger services on the line were withdrawn.

    Volunteers spent 3 winters rebuilding it. They cleared brambles and fallen trees, rebuilt the
    platform wall stone by stone and laid a new surface on top. The new platform is sixty metres
    long, long enough for a locomotive and three carriages, and has a small timber shelter built to
    the pattern of the original, which is known only from a photograph taken in 1926.

    The work cost &euro;112,000. Half came from the Cardale Heritage Fund; the rest was raised by
    the railway's members and by a Christmas appeal.

    The first train into the halt was hauled by the saddle tank engine Lady Ermyntrude and driven
    by volunteer Agnes Tremlow, who has driven on the line since 1998. "I have waited a long time
    to stop at Gannet," she said. "When I joined, this was a heap of brambles."

    ### For walkers and birdwatchers

    The halt is close to the nature reserve at Gannet Point, where avocets and spoonbills winter on
    the mudflats; a waymarked footpath of 1.2 kilometres leads from the platform to the bird hide.
    Trains call on request: passengers who want to get off tell the guard, and those waiting on the
    platform give a clear signal to the driver.

    The railway's general manager, Osgood Thirle, said the reopening would help the line to grow.
    "2024 was our best year since we reopened: we carried 31,400 passengers," he said. "With Gannet
    Halt we can offer something new: take the train, walk the marsh and catch the train home."

    ### Next on the list

    The volunteers have already turned to their next project, the rebuilding of the water tower
    at Pennock Mill. The railway is also looking for volunteers to work as guards, in the booking
    office and in the buffet car. Anyone interested can come to the open evening at Tollerwick Quay
    station on Thursday 24 April at 7pm.
    """,
)


SAILING_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<title>Courses &amp; prices 2025 &ndash; Skellmouth Sailing School</title>
<meta name="viewport" content="width=device-width">
<link rel="icon" href="/favicon.png">
<link rel="stylesheet" href="/wp-content/themes/tideline/style.css">
</head>
<body class="page-template-courses">
<a class="skip-link" href="#content">Skip to content</a>
<div class="site-top">
  <a class="logo" href="/"><img src="/img/sss-burgee.png" alt="">Skellmouth Sailing School</a>
  <ul class="menu">
    <li><a href="/">Home</a></li>
    <li class="has-sub current"><a href="/learn-to-sail/">Learn to sail</a>
      <ul class="sub"><li><a href="/learn-to-sail/courses/">Courses &amp; prices</a></li>
        <li><a href="/learn-to-sail/juniors/">Juniors</a></li><li><a href="/learn-to-sail/adults/">Adults</a></li></ul></li>
    <li><a href="/hire/">Boat hire</a></li>
    <li><a href="/about/">About us</a></li>
    <li><a href="/news/">News</a></li>
    <li><a href="/contact/">Contact</a></li>
  </ul>
  <a class="button book" href="/book/">Book a course</a>
</div>
<p class="crumbs"><a href="/">Home</a> / <a href="/learn-to-sail/">Learn to sail</a> / Courses &amp; prices</p>

<div id="content" class="wrap">
<main>
  <h1>Courses &amp; prices 2025</h1>
  <p class="lead">Learn to sail on the sheltered waters of the Skell estuary.</p>

  <p>Skellmouth Sailing School was founded in 1987 by Hester Quiller, who taught her first pupils
  from a single wooden dinghy moored off Tollerwick harbour. Nearly forty years on we teach more
  than nine hundred people a year, from eight-year-olds to grandparents, from our base on The Hard
  at Tollerwick.</p>

  <p>Our principal, Caius Brennan, has led the school since 2016. Our chief instructor, Fenna de
  Wit, trains and leads the team of instructors who will be with you on the water.</p>

  <h2>This season's courses</h2>
  <table class="prices">
    <thead><tr><th>Course</th><th>Length</th><th>Minimum age</th><th>Price</th></tr></thead>
    <tbody>
      <tr><td>Try Sailing taster</td><td>2 hours</td><td>8</td><td>&euro;45</td></tr>
      <tr><td>Dinghy Level 1: Start Sailing</td><td>2 days</td><td>10</td><td>&euro;260</td></tr>
      <tr><td>Dinghy Level 2: Basic Skills</td><td>3 days</td><td>10</td><td>&euro;340</td></tr>
      <tr><td>Seamanship Skills</td><td>2 days</td><td>14</td><td>&euro;295</td></tr>
      <tr><td>Keelboat Competent Crew</td><td>5 days</td><td>16</td><td>&euro;690</td></tr>
      <tr><td>Sea Sparrows junior club</td><td>10 Saturday mornings</td><td>8</td><td>&euro;120 per term</td></tr>
    </tbody>
  </table>
  <p class="small">All prices include the loan of a buoyancy aid, wetsuit and waterproofs, and your
  certificate. Members of Tollerwick Gig Club and their families get ten per cent off any course.</p>

  <h2>Powerboat training</h2>
  <p>We hope to add powerboat courses in 2026. Details will follow on this page and in our
  newsletter.</p>

  <h2>Our boats</h2>
  <p>You will learn in one of our twelve Skell Scamp single-handers or four two-person Gulls, with
  two safety launches always on the water. Keelboat courses sail on <em>Marguerite</em>, a 26-foot
  wooden sloop built by Ferrand &amp; Daughter in 1971 and given to the school by Hester Quiller.</p>

  <h2>Frequently asked questions</h2>
  <details><summary>What happens if the weather is bad?</summary>
    <p>If it is too windy to sail we teach ashore (knots, rules of the road, weather) or move your
    course to another date, whichever you prefer.</p></details>
  <details><summary>Do I need to be able to swim?</summary>
    <p>You should be confident in the water. Everyone wears a buoyancy aid at all times.</p></details>
  <details><summary>What should I bring?</summary>
    <p>Old trainers, a warm layer, sun cream, a packed lunch and a water bottle.</p></details>
</main>

<aside class="widgets">
  <section class="widget"><h3>Office opening times</h3>
    <p>April to October: every day, 9am to 5pm.<br>November to March: Saturdays only, 10am to 2pm.</p></section>
  <section class="widget"><h3>Latest news</h3>
    <ul><li><a href="#">Twelve new Skell Scamps for the 2025 season</a></li>
      <li><a href="#">Sea Sparrows spring term starts on 5 April</a></li>
      <li><a href="#">Instructor vacancies for the summer</a></li></ul></section>
  <section class="widget"><h3>Find us</h3>
    <p>The Hard, Tollerwick, Cardale. Free parking on the quay after 5pm.</p></section>
</aside>
</div>

<div class="cookie-bar">This website uses cookies to give you the best experience.
  <button>OK</button> <a href="/privacy/">More info</a></div>
<footer class="site-foot">
  <p>Skellmouth Sailing School, The Hard, Tollerwick, Cardale &middot; office@skellmouthsailing.example</p>
  <p>A recognised training centre of the Cardale Sailing Association &middot; Company no. 04417203</p>
  <p><a href="/terms/">Booking terms</a> &middot; <a href="/privacy/">Privacy policy</a> &middot;
    <a href="/safeguarding/">Safeguarding</a></p>
  <p>&copy; 2025 Skellmouth Sailing School Ltd. Website by Driftwood Digital.</p>
</footer>
</body>
</html>
"""


VETS_PAGE = """<!DOCTYPE html>
<html lang="en-GB">
<head>
  <meta charset="utf-8">
  <title>About us | Gannet Point Vets</title>
  <link rel="stylesheet" href="/css/main.min.css">
  <script src="/js/cookieconsent.min.js"></script>
</head>
<body>
<div id="cc-window" class="cc-banner">
  <span class="cc-message">We use essential cookies to make our site work. With your consent, we may
  also use non-essential cookies to improve user experience and analyse website traffic.</span>
  <a class="cc-btn cc-allow">Allow cookies</a> <a class="cc-btn cc-deny">Decline</a>
</div>
<div class="emergency-strip">Out-of-hours emergency? Call 0170 448 2290 &ndash; we are here 24 hours a day, every day.</div>
<header class="masthead">
  <a href="/" class="logo">Gannet Point Vets<small>Veterinary care on the Skell estuary</small></a>
  <nav>
    <ul>
      <li><a href="/">Home</a></li>
      <li><a href="/services/">Our services</a></li>
      <li class="active"><a href="/about/">About us</a></li>
      <li><a href="/team/">Meet the team</a></li>
      <li><a href="/paw-plan/">Paw Plan</a></li>
      <li><a href="/farm-equine/">Farm &amp; equine</a></li>
      <li><a href="/register/">Register your pet</a></li>
      <li><a href="/contact/">Contact</a></li>
    </ul>
  </nav>
</header>
<div class="breadcrumb"><a href="/">Home</a> &raquo; About us</div>
<div class="container">
  <div class="main-col">
    <h1>About Gannet Point Veterinary Practice</h1>

    <p>Gannet Point Vets has cared for the animals of the Skell estuary since 1964, when the practice
    opened in a converted net loft on Gannet Lane with one vet, one nurse and a borrowed operating
    table. In 2003 we moved to our present purpose-built surgery on Ropewalk Road, Tollerwick, and
    in 2011 we opened a second branch on Fore Street in Skellmouth.</p>

    <p>Today we look after around 4,200 registered pets and thirty-five farms, from smallholdings
    with a few sheep to the dairy herds of the upper valley. As well as dogs and cats we see
    rabbits, guinea pigs, ferrets, birds and reptiles.</p>

    <h2>Our team</h2>
    <div class="team-card">
      <h3>Dr Isolde Marrack &ndash; Clinical Director</h3>
      <p>Isolde joined the practice in 1999 and has been clinical director since 2014. Her special
      interest is orthopaedics, and she still does most of the practice's fracture repairs.</p>
    </div>
    <div class="team-card">
      <h3>Tobias Hensher &ndash; Farm and Equine Vet</h3>
      <p>Tobias grew up on a dairy farm in the upper Skell valley and came back to it after ten
      years in practice abroad. He runs our farm visits and our equine work.</p>
    </div>
    <div class="team-card">
      <h3>Priya Vellacott &ndash; Small Animal Vet</h3>
      <p>Priya has a special interest in dentistry. Out of work she is usually on the estuary, where
      she is learning to sail.</p>
    </div>
    <div class="team-card">
      <h3>Kenna Polglaze &ndash; Head Nurse</h3>
      <p>Kenna leads our team of five registered veterinary nurses and runs the nurse clinics for
      weight, dental care and puppy checks.</p>
    </div>
    <div class="team-card">
      <h3>Rhodri Gwatkin &ndash; Practice Manager</h3>
      <p>Rhodri keeps both surgeries running. Questions about bills and insurance claims go to him.</p>
    </div>

    <h2>The Paw Plan</h2>
    <p>Our Paw Plan spreads the cost of preventive care over the year: annual vaccinations, flea and
    worm treatment, two health checks a year and 10% off any other treatment. It costs &euro;14.50 a
    month for a dog and &euro;11 a month for a cat. Ask at reception to join.</p>
  </div>

  <aside class="side-col">
    <div class="box"><h4>Opening hours</h4>
      <p><strong>Ropewalk Road, Tollerwick</strong><br>Monday to Friday 8am&ndash;7pm<br>Saturday 9am&ndash;1pm</p>
      <p><strong>Fore Street, Skellmouth</strong><br>Monday, Wednesday and Friday 9am&ndash;5pm</p></div>
    <div class="box"><h4>New clients</h4><p>Registering is free. <a href="/register/">Register online</a>
      or pop in with your pet's vaccination card.</p></div>
    <div class="box"><h4>Latest from the blog</h4>
      <ul><li><a href="#">Adder bites: what to do on the coast path</a></li>
        <li><a href="#">Lambing season: our tips for smallholders</a></li></ul></div>
  </aside>
</div>
<footer>
  <p>Gannet Point Veterinary Practice Ltd &middot; Ropewalk Road, Tollerwick, Cardale &middot; 0170 448 2200</p>
  <p>Accredited by the Cardale Veterinary Standards Board &middot; <a href="/complaints/">Complaints</a> &middot;
    <a href="/privacy/">Privacy</a> &middot; <a href="/accessibility/">Accessibility</a></p>
  <p>&copy; 2025 Gannet Point Vets</p>
</footer>
</body>
</html>
"""


CHOIR_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>What's on &middot; The Saltings Singers</title>
  <link rel="stylesheet" href="https://fonts.example/css?family=Lora">
  <link rel="stylesheet" href="/site.css">
</head>
<body>
<header class="banner">
  <div class="inner">
    <p class="site-name"><a href="/">The Saltings Singers</a></p>
    <p class="site-sub">Tollerwick's community choir &ndash; singing since 1998</p>
  </div>
  <nav class="topnav">
    <a href="/">Home</a><a href="/about/">About</a><a class="on" href="/whats-on/">What's on</a>
    <a href="/join/">Join us</a><a href="/gallery/">Gallery</a><a href="/support/">Support us</a>
    <a href="/members/">Members' area</a><a href="/contact/">Contact</a>
  </nav>
</header>
<nav class="breadcrumbs" aria-label="breadcrumb">You are here: <a href="/">Home</a> &gt; What's on</nav>

<section class="page">
  <h1>What's on in 2025</h1>
  <p>Come and hear us! All our concerts are relaxed and family-friendly.</p>

  <div class="event">
    <div class="when"><span class="day">26</span><span class="mon">Apr</span></div>
    <div class="what">
      <h2>Songs of the Sea &ndash; our spring concert</h2>
      <p class="where">Saturday 26 April 2025, 7pm &middot; St Brannock's Church, Tollerwick</p>
      <p>Sea shanties, folk songs and new music for choir, with our guests the Skellmouth Silver
      Band. Tickets &euro;12, under-16s free, from Gribble's Fish Shed on the quay or on the door.</p>
    </div>
  </div>

  <div class="event">
    <div class="when"><span class="day">13</span><span class="mon">Jul</span></div>
    <div class="what">
      <h2>Sea Sunday on the quay</h2>
      <p class="where">Sunday 13 July 2025, 3pm &middot; Harbour Quay, Tollerwick</p>
      <p>An hour of songs by the water. Free; a retiring collection goes to Tollerwick Inshore Rescue.</p>
    </div>
  </div>

  <div class="event">
    <div class="when"><span class="day">6</span><span class="mon">Sep</span></div>
    <div class="what">
      <h2>Steam &amp; Song</h2>
      <p class="where">Saturday 6 September 2025 &middot; Skell Valley Steam Railway</p>
      <p>We sing at every station from Tollerwick Quay to Hallow Cross and back. Tickets &euro;18,
      including the train ride, from the railway's booking office.</p>
    </div>
  </div>

  <div class="event">
    <div class="when"><span class="day">19</span><span class="mon">Dec</span></div>
    <div class="what">
      <h2>Carols on the Harbour Wall</h2>
      <p class="where">Friday 19 December 2025, 6pm &middot; The harbour wall, Tollerwick</p>
      <p>Our Christmas singalong by lantern light. Ticket details to be announced.</p>
    </div>
  </div>

  <h2 class="past">Looking back</h2>
  <p>Our 25th anniversary concert in November 2023 filled St Brannock's Church. Thank you to everyone
  who came, and to the parish for having us.</p>
</section>

<aside class="about-box">
  <h3>About the choir</h3>
  <p>We are a friendly, non-auditioned choir of about sixty singers from Tollerwick and the villages
  around. Our musical director is Gideon Farrow, who took up the baton in 2019, and our accompanist
  is Mei Lindqvist. We rehearse on Wednesdays at 7.30pm in Tollerwick Methodist Hall &ndash; new
  singers are always welcome, no experience needed.</p>
  <p><a class="btn" href="/join/">Come to a rehearsal</a></p>
</aside>

<div id="consent" class="consent-popup">
  <p>Hello! This site uses a few cookies to count visitors. Is that OK with you?</p>
  <button>Yes, fine</button> <button>No thanks</button>
</div>
<footer class="foot">
  <p>The Saltings Singers is a registered charity, no. 1187432. Member of the Cardale Choirs Network.</p>
  <p><a href="/privacy/">Privacy</a> | <a href="/safeguarding/">Safeguarding</a> |
    <a href="https://social.example/saltingssingers">Follow us</a></p>
</footer>
</body>
</html>
"""


CRAB_BLOG = """<!DOCTYPE html>
<html lang="en-GB">
<head>
<meta charset="UTF-8">
<title>The spider crab summer (and why you should eat one) &#8211; Quayside Notes</title>
<link rel="alternate" type="application/rss+xml" title="Quayside Notes &raquo; Feed" href="/feed/">
<link rel="stylesheet" href="/wp-content/themes/saltmarsh/style.css">
</head>
<body class="post-template-default single">
<div class="notice-cookies">Quayside Notes uses cookies for comments and statistics.
  <a href="#" class="accept">Got it</a> &middot; <a href="/privacy/">Privacy</a></div>
<div id="page">
<header id="masthead">
  <p class="site-title"><a href="/">Quayside Notes</a></p>
  <p class="site-description">Food, fish and the folk of Tollerwick harbour</p>
  <nav id="site-navigation">
    <a href="/">Blog</a> <a href="/recipes/">Recipes</a> <a href="/the-shed/">The Fish Shed</a>
    <a href="/about/">About Annis</a> <a href="/contact/">Contact</a>
  </nav>
</header>

<div id="content">
<main id="main">
<article class="post">
  <header class="entry-header">
    <h1 class="entry-title">The spider crab summer (and why you should eat one)</h1>
    <div class="entry-meta">Posted on <time>3 June 2024</time> by <a href="/about/">Annis</a>
      in <a href="/category/fish/">Fish</a>, <a href="/category/recipes/">Recipes</a></div>
  </header>
  <div class="entry-content">
    <p>If you have walked along the quay this week you will have seen them: crates of spider crabs,
    long-legged and cross, stacked up in the co-op's market hall every morning. The boats are
    bringing in more of them than anyone can remember. Piran Scobell, who runs the market for the
    Tollerwick Harbour Co-operative, says he has never had to order so many extra crates.</p>

    <p>And yet hardly anyone here eats them. Most of the spider crab landed at Tollerwick goes to
    Spain, on the refrigerated lorry that leaves the quay every Saturday night. The Spanish know
    something we have forgotten: the white meat in those long legs is sweet and delicate, and the
    brown meat in the shell is richer than any brown crab's.</p>

    <h2>At the Shed</h2>
    <p>So this summer, at the Fish Shed, we are putting spider crab front and centre. Our spider crab
    sandwich (white and brown meat, lemon mayonnaise, a handful of leaves, on our own sourdough) is
    &euro;7.50, and when the boats bring in lobster we do a lobster roll as well &ndash; ask at the
    counter.</p>

    <h2>Cooking one at home</h2>
    <p>Ask at the market office for a whole crab after the auction. Put it in the freezer for an
    hour first, then into a big pan of boiling, well-salted water. Cook it for fifteen minutes per
    kilo, lift it out and let it cool on its back. Twist off the legs, crack them with the back of a
    heavy knife and pick out the meat with a skewer. Then open the body and scoop out the brown
    meat. Toast some bread, mash the brown meat with butter and a little chilli, pile the white meat
    on top. That's it. That's the recipe.</p>

    <p>Go on. Buy a crab.</p>
  </div>
  <footer class="entry-footer">Tags: <a href="#">spider crab</a>, <a href="#">co-op</a>,
    <a href="#">sandwiches</a> &middot; <a href="#">Share on Facebook</a> &middot; <a href="#">Pin it</a></footer>
</article>

<nav class="post-navigation"><a href="#" rel="prev">&larr; Mackerel, gooseberries and a barbecue</a>
  <a href="#" rel="next">Crab &amp; Mackerel Day: the recipes &rarr;</a></nav>

<section id="comments" class="comments-area">
  <h2 class="comments-title">4 thoughts on &ldquo;The spider crab summer (and why you should eat one)&rdquo;</h2>
  <ol class="comment-list">
    <li class="comment"><div class="comment-author">Hamish Oddie</div>
      <div class="comment-metadata">3 June 2024 at 21:14</div>
      <p>Good to see the spider crab getting some love, Annis. From the co-op side: we would love more
      of it to stay local. Anyone who wants a whole crab can ask at the market hall office after the
      auction, as you say.</p><a class="reply" href="#">Reply</a></li>
    <li class="comment"><div class="comment-author">SeaSparrowMum</div>
      <div class="comment-metadata">4 June 2024 at 08:02</div>
      <p>Took my two to the Shed after sailing on Saturday and the crab sandwich was gone in about a
      minute. Any chance of a smaller portion for kids?</p><a class="reply" href="#">Reply</a>
      <ol class="children"><li class="comment by-author"><div class="comment-author">Annis</div>
        <div class="comment-metadata">4 June 2024 at 09:30</div>
        <p>Yes! Half sandwiches for little ones from next week.</p></li></ol></li>
    <li class="comment"><div class="comment-author">Fenna de Wit</div>
      <div class="comment-metadata">5 June 2024 at 18:47</div>
      <p>We'll bring the Sea Sparrows down to watch the boats unload one Saturday this month. Brace
      yourself for a lot of questions about claws.</p><a class="reply" href="#">Reply</a></li>
  </ol>
  <div id="respond"><h3>Leave a Reply</h3>
    <p>Your email address will not be published. Required fields are marked *</p>
    <form><textarea name="comment"></textarea><input name="author" placeholder="Name *">
      <input name="email" placeholder="Email *"><button>Post Comment</button></form></div>
</section>
</main>

<aside id="secondary" class="widget-area">
  <section class="widget"><h2>Hello, I'm Annis</h2>
    <p>I'm Annis Gribble. I run Gribble's Fish Shed on the quay at Tollerwick, and I write here about
    what the boats bring in and what to do with it.</p></section>
  <section class="widget"><h2>Archives</h2>
    <ul><li><a href="#">June 2024</a></li><li><a href="#">May 2024</a></li><li><a href="#">April 2024</a></li>
      <li><a href="#">March 2024</a></li></ul></section>
  <section class="widget"><h2>Categories</h2>
    <ul><li><a href="#">Fish</a></li><li><a href="#">Recipes</a></li><li><a href="#">The harbour</a></li></ul></section>
</aside>
</div>

<footer id="colophon">
  <p>&copy; 2024 Quayside Notes &middot; Proudly powered by a very old laptop and a lot of tea.</p>
</footer>
</div>
</body>
</html>
"""


# --- PDFs --------------------------------------------------------------------------------------

def _para(text: str, width: int = 88) -> list[str]:
    """Blank-line separated paragraphs wrapped to ``width``, an empty line after each."""
    return _wrap(text, width) + [""]


def _grid(rows: list[tuple[str, ...]], first: int, rest: int) -> list[str]:
    """Rows as fixed-width lines: the first column left-aligned, the others right-aligned."""
    return [(row[0].ljust(first) + "".join(c.rjust(rest) for c in row[1:])).rstrip() for row in rows]


COOP_REVIEW_PAGES = [
    [
        "TOLLERWICK HARBOUR CO-OPERATIVE LTD",
        "Annual Review 2024",
        "Presented to members at the Annual General Meeting,",
        "Thursday 20 March 2025, the Net Loft, Tollerwick",
        "",
        "FROM THE CHAIR",
        "",
        *_para("""
        2024 was a year of two halves for the co-operative. The spring was cold and the mackerel
        came late, but the summer brought the biggest spider crab landings anyone on the quay can
        remember, and for the first time spider crab outweighed brown crab at our market. Brown crab
        continues its slow decline, and we are working with the Cardale Fisheries Office to
        understand why.

        The co-operative was founded in 1931 by fourteen skippers who were tired of selling their
        catch to dealers at whatever price the dealers chose. Ninety-three years later the idea is
        the same: we sell our members' fish together, we run the ice plant, the fuel berth and the
        gear store, and we keep the market hall open six mornings a week.

        In February we finally replaced the ice plant, which had been running since 1989. The new
        plant cost 86,000 euros. The Cardale Fisheries Fund gave a grant of 30,000 euros and the
        rest came from our reserves. It makes twelve tonnes of flake ice a day and uses far less
        power than the old one.

        We lost two member vessels over the winter: Morning Star was sold out of the harbour, and
        Girl Pearl retired with her skipper after fifty-one years. We wish them both well.
        """),
        "Aldous Trevennick, Chair",
    ],
    [
        "1. LANDINGS",
        "",
        "Landings through the co-operative's market, in tonnes (live weight).",
        "",
        *_grid([
            ("Species", "2021", "2022", "2023", "2024"),
            ("Mackerel", "212", "198", "231", "244"),
            ("Spider crab", "61", "74", "69", "88"),
            ("Brown crab", "118", "109", "102", "81"),
            ("Lobster", "14.2", "15.8", "13.1", "16.4"),
            ("Pollack", "39", "44", "47", "41"),
            ("Total", "444.2", "440.8", "462.1", "470.4"),
        ], 16, 9),
        "",
        "2. MEMBERSHIP",
        "",
        "Member vessels and registered fishers at 31 December each year.",
        "",
        *_grid([
            ("", "2020", "2021", "2022", "2023", "2024"),
            ("Member vessels", "27", "26", "25", "25", "23"),
            ("Registered fishers", "41", "40", "38", "37", "34"),
        ], 20, 8),
        "",
        "3. VALUE OF FIRST SALES",
        "",
        *_para("""
        First sales through the market, in thousands of euros. The co-operative takes a commission
        of six per cent on first sales, which pays for the market staff and the hall.
        """),
        *_grid([
            ("", "2022", "2023", "2024"),
            ("First sales (thousand euros)", "1,912", "2,046", "2,318"),
        ], 30, 9),
    ],
    [
        "4. FINANCES",
        "",
        "Income and expenditure of the co-operative, in euros.",
        "",
        *_grid([
            ("", "2023", "2024"),
            ("Commission on first sales", "122,760", "139,080"),
            ("Ice sales", "31,400", "36,950"),
            ("Fuel sales (margin)", "18,210", "17,640"),
            ("Gear store", "9,880", "11,020"),
            ("Total income", "182,250", "204,690"),
            ("", "", ""),
            ("Staff", "96,500", "101,200"),
            ("Ice plant running and repairs", "24,300", "12,800"),
            ("Insurance", "8,900", "9,450"),
            ("Market hall and quay", "21,600", "22,900"),
            ("Other", "6,150", "7,340"),
            ("Total expenditure", "157,450", "153,690"),
            ("", "", ""),
            ("Surplus", "24,800", "51,000"),
        ], 32, 11),
        "",
        "5. THE YEAR AHEAD",
        "",
        *_para("""
        The market hall roof needs replacing, and the committee will bring a plan and a budget to
        members in the autumn. We will again sponsor the fishermen's race at the Skellmouth Regatta.
        We thank the Harbour Trust and the harbourmaster, Bryony Vosper, for their help through the
        year.
        """),
        "OFFICERS",
        "Chair: Aldous Trevennick     Treasurer: Hamish Oddie",
        "Secretary: Tillie Marsh      Market manager: Piran Scobell",
    ],
]


TIMETABLE_PAGES = [
    [
        "SKELL VALLEY STEAM RAILWAY",
        "Timetable and special events 2025",
        "Tollerwick Quay - Gannet Halt - Pennock Mill - Hallow Cross",
        "",
        "OUR SEASON",
        *_para("""
        Trains run from Saturday 29 March 2025 to Sunday 2 November 2025. GREEN days are weekends
        and bank holidays in spring and autumn, with two return trains. GOLD days are every day from
        26 May to 7 September, with four return trains. The journey from Tollerwick Quay to Hallow
        Cross takes 35 minutes. Gannet Halt is a request stop: please tell the guard if you wish to
        get off there, and signal clearly to the driver if you are waiting on the platform.
        """),
        "GREEN TIMETABLE",
        *_grid([
            ("Tollerwick Quay        dep", "10:30", "13:30"),
            ("Gannet Halt (request)  dep", "10:37", "13:37"),
            ("Pennock Mill           dep", "10:51", "13:51"),
            ("Hallow Cross           arr", "11:05", "14:05"),
            ("Hallow Cross           dep", "11:40", "14:40"),
            ("Pennock Mill           dep", "11:54", "14:54"),
            ("Gannet Halt (request)  dep", "12:08", "15:08"),
            ("Tollerwick Quay        arr", "12:15", "15:15"),
        ], 28, 8),
        "",
        "GOLD TIMETABLE",
        *_grid([
            ("Tollerwick Quay        dep", "10:00", "11:45", "13:30", "15:15"),
            ("Gannet Halt (request)  dep", "10:07", "11:52", "13:37", "15:22"),
            ("Pennock Mill           dep", "10:21", "12:06", "13:51", "15:36"),
            ("Hallow Cross           arr", "10:35", "12:20", "14:05", "15:50"),
            ("Hallow Cross           dep", "10:50", "12:35", "14:20", "16:05"),
            ("Tollerwick Quay        arr", "11:25", "13:10", "14:55", "16:40"),
        ], 28, 8),
    ],
    [
        "FARES",
        "All fares are return fares, in euros.",
        "",
        *_grid([
            ("Adult", "16"),
            ("Senior (65 and over)", "14"),
            ("Child (5 to 15)", "8"),
            ("Under 5", "free"),
            ("Family (2 adults and up to 3 children)", "42"),
            ("Day Rover, adult", "24"),
            ("Day Rover, child", "12"),
            ("Dogs", "2"),
        ], 42, 8),
        "",
        "SPECIAL EVENTS",
        "",
        "Easter Eggspress - Friday 18 to Monday 21 April",
        *_para("""
        An egg hunt in the woods at Pennock Mill for every child on board. Book online.
        """),
        "Heritage Diesel Day - Sunday 20 July 2025",
        *_para("""
        Our diesel shunter Pennock takes charge of the service all day, with brake van rides at
        Hallow Cross.
        """),
        "Steam & Song - Saturday 6 September 2025",
        *_para("""
        The Saltings Singers ride with us and sing at every station. Tickets 18 euros, including
        the train ride.
        """),
        "Driver for a Day - selected Mondays, May to September",
        *_para("""
        Learn to fire and drive a steam locomotive under the eye of one of our drivers. 295 euros,
        including lunch in the buffet car.
        """),
        "Santa Specials - Saturdays and Sundays, 6 to 21 December",
        *_para("""
        Tickets go on sale on 1 October; times and prices will be published then.
        """),
        "The railway is run almost entirely by volunteers. To join them, write to the general",
        "manager, Osgood Thirle, at Tollerwick Quay station.",
    ],
]


# --- Markdown pages --------------------------------------------------------------------------------

WIKI_VILLAGE = """# Tollerwick

*This article is about the village in Cardale. For the lighthouse, see [[Gannet Point Lighthouse]].*

| | |
|---|---|
| **County** | Cardale |
| **Parish** | Tollerwick |
| **Population (2021)** | 1,452 |
| **Twinned with** | Ploumarec |
| **Nearest town** | Skellmouth |

**Tollerwick** is a fishing village on the north bank of the Skell estuary in Cardale, about
four kilometres upstream from the town of Skellmouth. It is known for its harbour, its fishing
co-operative, a boatyard that still builds wooden boats, and the [[Skell Valley Railway]], whose
line begins on the quay.

## History

A fishing settlement is recorded here in the 13th century. The village grew in the 19th
century with the pilchard and mackerel fisheries; the harbour wall that encloses the inner
harbour was completed in 1838. The railway arrived in 1889, carrying fish inland and roadstone
from the quarries at Hallow Cross down to the quay.

The fishing declined after the Second World War and the population fell, but the village
recovered from the 1980s as sailing, walking and the reopened railway brought visitors.

## Population

| Census | Population |
|---|---|
| 1951 | 1,212 |
| 1971 | 986 |
| 1991 | 1,104 |
| 2011 | 1,387 |
| 2021 | 1,452 |

## Landmarks

- **St Brannock's Church**, with a 14th-century tower; the nave was rebuilt in 1862.
- **The harbour wall** (1838) and the fish market hall on the quay.
- **Gannet Point Lighthouse**, built in 1872 at the mouth of the estuary and automated in 1991.
- **Tollerwick Methodist Hall** (1904), now used for concerts, choir practice and the
  Thursday market.
- **The Anchor Inn**, a 17th-century inn on Fore Street.

## Community

The village has a primary school (St Brannock's), an independent lifeboat station
([[Tollerwick Inshore Rescue]]), a gig club, a dinghy club and a community choir. Tollerwick
has been twinned with Ploumarec since 1994.

## See also

- [[Skell Valley Railway]]
- [[Tollerwick Inshore Rescue]]
- [[Skellmouth]]

*Last edited 2 February 2025.*
"""


WIKI_RAILWAY = """# Skell Valley Railway

> Heritage railway running from Tollerwick Quay to Hallow Cross, Cardale.
> Operated by volunteers of the Skell Valley Railway Society.

The **Skell Valley Railway** is a standard-gauge heritage railway, 7.4 kilometres long, that runs
from the quay at [[Tollerwick]] up the valley of the River Skell to Hallow Cross, with
intermediate stations at Gannet Halt and Pennock Mill.

## History

The line was opened in 1889 by the Skell Valley Railway Company, to carry roadstone from the
quarries at Hallow Cross and fish from Tollerwick. Passenger services were withdrawn in 1967 and
goods traffic ended in 1971, after which the track was lifted from most of the line.

The Skell Valley Railway Society was formed in 1979 by a group of enthusiasts who bought the
trackbed. Trains ran again between Tollerwick Quay and Pennock Mill from 1986, and the line
was extended to Hallow Cross in 1994. Gannet Halt, the last of the original stations to come
back into use, reopened in April 2025.

## Locomotives

| Name | Type | Builder | Built | Arrived | Status |
|---|---|---|---|---|---|
| Bellerophon | 0-4-2 tank | Harker & Vine | 1898 | 1984 | Under overhaul |
| Lady Ermyntrude | 0-6-0 saddle tank | Harker & Vine | 1911 | 1981 | In service |
| Skell | 2-6-2 tank | Corran Foundry | 1924 | 1988 | In service |
| Pennock | 0-4-0 diesel shunter | Sallis Motor Works | 1958 | 1979 | In service |

Pennock was the society's first locomotive and worked the permanent-way trains while the line
was being relaid.

## Organisation

The railway is run by about 240 volunteers, with a small paid staff. The general manager since
2020 has been Osgood Thirle. Trains run from late March to early November, with Santa Specials
in December.

## See also

- [[Tollerwick]]
- [[Gannet Point]]
"""


WIKI_LIFEBOAT = """# Tollerwick Inshore Rescue

**Tollerwick Inshore Rescue** is an independent lifeboat station at [[Tollerwick]], covering
the Skell estuary and the coast for about ten miles either side of its mouth. It is a registered
charity and receives no government funding; its running costs, about 58,000 euros a year, are
met by donations, the annual harbour swim and the shop on the East Quay.

## History

The station was founded in 1969, after the loss of the Tollerwick fishing boat *Brighter Morn*
with her crew of three in a November gale in 1968. Its first boat, *Ellen Morrow*, was built in
the village by Ferrand & Daughter in 1969 and paid for by a public appeal. The boathouse on the
East Quay was rebuilt in 2008.

## Boats

| Name | Type | Builder | In service |
|---|---|---|---|
| Ellen Morrow | 6.1 m wooden motor launch | Ferrand & Daughter | 1969-1984 |
| Spirit of Skell | 5.4 m rigid inflatable | Pellew Marine | 1984-2002 |
| Gwen Abelard | 6.5 m rigid inflatable | Pellew Marine | 2002-2019 |
| Sir Hector Pengelly | 7.8 m rigid inflatable | Carrow Boats | 2019- |

## Launches

| Year | Launches | People helped |
|---|---|---|
| 2021 | 31 | 40 |
| 2022 | 27 | 33 |
| 2023 | 38 | 51 |
| 2024 | 34 | 45 |

## People

The station has 22 volunteer crew. The lifeboat operations manager, who authorises every
launch, is Senan Hocking; among the helms is the Tollerwick harbourmaster, Bryony Vosper.

## See also

- [[Tollerwick]]
- [[Gannet Point Lighthouse]]
"""


# --- .docx: two letters and a memo -----------------------------------------------------------------

FOSB_LETTER = [
    ("head", "Friends of St Brannock's"),
    ("small", "St Brannock's Primary School, School Lane, Tollerwick, Cardale"),
    ("right", "3 March 2025"),
    ("p", "Dear Parents and Carers,"),
    ("p", """Thank you to everyone who came to last summer's fair. Together we raised €4,860, which
     has paid for new reading books for the school library and a polytunnel for the gardening
     club."""),
    ("b", "Summer Fair 2025"),
    ("p", """This year's fair will be on Saturday 21 June 2025, from 12 noon to 4pm on the school
     field. Our goal this year is an outdoor classroom, which the children have already named "the
     Den", in the corner of the field by the hedge. It will cost €9,500, and we hope the fair will
     raise a good part of it."""),
    ("p", """Mr Tregear, our head teacher, tells us that all one hundred and eighteen pupils will
     take part: every class is making something to sell. The Saltings Singers will sing at 2pm,
     Skellmouth Sailing School is bringing a dinghy for the children to sit in, and the Skell Valley
     Steam Railway has kindly given a family ticket as a raffle prize."""),
    ("b", "Can you help?"),
    ("p", "We need helpers for the stalls below. Please let the organiser know, or reply to the class WhatsApp."),
    ("table", "Stall | Organiser | Helpers needed\n"
              "Cake stall | Nadia Ferreira | 6\n"
              "Tombola | Gethin Pryce | 4\n"
              "Bottle stall | Wilf Penna | 3\n"
              "Raffle | Sunniva Holt | 2"),
    ("p", """Donations of cakes can be brought to the school office on the Friday before the fair.
     Bottles (anything from shampoo to wine) can go in the box by the gate from Monday 9 June."""),
    ("p", "With many thanks,"),
    ("lines", "Delphine Ashgrove\nChair, Friends of St Brannock's"),
]

BOATYARD_MEMO = [
    ("head", "FERRAND & DAUGHTER BOATBUILDERS"),
    ("small", "West Quay, Tollerwick harbour - wooden boats built and restored since 1952"),
    ("b", "MEMO"),
    ("lines", "To: everyone in the shed\nFrom: Maud Ferrand, Managing Director\nDate: 14 January 2025\n"
              "Subject: the spring order book, the new steam box and a few other things"),
    ("p", """Happy new year, all. As we start the yard's seventy-third year, the order book is the
     fullest I can remember. Here is what we have on until the summer, in the order it is due:"""),
    ("table", "Job | Customer | Due\n"
              "New teak doors for the observation carriage | Skell Valley Steam Railway | March 2025\n"
              "Refit of the keelboat Marguerite | Skellmouth Sailing School | 28 March 2025\n"
              "Curlew, 32 ft pilot gig (finishing) | Tollerwick Gig Club | May 2025\n"
              "Tern, 16 ft clinker dinghy (new build) | Dr Priya Vellacott | July 2025"),
    ("p", """Marguerite must be back on her mooring before the sailing school's season opens on 1
     April, so the refit takes priority over everything else in March. Curlew's launch date will
     be fixed with the gig club once her fittings are in."""),
    ("b", "The steam box"),
    ("p", """The old steam box finally split at Christmas. The new one, in stainless steel with a
     bigger boiler, arrives on 3 February and we will put it in the same day. It cost €6,400. Until
     then please use the small box and book it on the board."""),
    ("b", "Other things"),
    ("bullet", """Lukas starts his college day release on 21 January: he will be at college every
     Tuesday during term, so don't plan Tuesday jobs around him."""),
    ("bullet", "From 3 March the shed opens at 7.30 and closes at 4; on Fridays we finish at 1."),
    ("bullet", "Please keep the west door shut when the glue is curing. It's January."),
    ("lines", "Maud"),
]

VET_LETTER = [
    ("head", "Gannet Point Veterinary Practice"),
    ("small", "Ropewalk Road, Tollerwick  |  Fore Street, Skellmouth  |  0170 448 2200"),
    ("lines", "Ms Tillie Marsh\n4 Pilchard Row\nTollerwick\nCardale"),
    ("right", "9 September 2024"),
    ("b", "Re: Biscuit (springer spaniel, male, 6 years)"),
    ("p", "Dear Ms Marsh,"),
    ("p", """Our records show that Biscuit's annual vaccination booster is due on 1 October 2024.
     Please call us or book online for an appointment at either surgery in the two weeks before
     that date."""),
    ("p", """At his last check-up Priya Vellacott noticed tartar building up on his back teeth, and
     she recommends a scale and polish under general anaesthetic in the next few months. He
     weighed 19.4 kg, which is just right for him, so there is no need for a diet."""),
    ("table", "Treatment | Price\n"
              "Annual booster vaccination | €62\n"
              "Kennel cough vaccine (optional) | €38\n"
              "Dental scale and polish under anaesthetic (estimate) | €285"),
    ("p", """Members of our Paw Plan have their booster included and get 10% off dental work. Ask at
     reception if you would like to join."""),
    ("p", "Yours sincerely,"),
    ("lines", "Kenna Polglaze\nHead Nurse"),
]


# --- .txt: minutes and notes ---------------------------------------------------------------------

COOP_MINUTES = """TOLLERWICK HARBOUR CO-OPERATIVE LTD
Committee meeting - Thursday 10 April 2025, 7pm, the Net Loft

Present: Aldous Trevennick (chair), Hamish Oddie (treasurer), Tillie Marsh (secretary, minutes),
Piran Scobell (market manager), Dorcas Jelbert, Wilf Penna
In attendance: Bryony Vosper (harbourmaster) for item 5
Apologies: Jago Hext

1. MINUTES
   The minutes of the meeting of 13 March were agreed.

2. MATTERS ARISING
   Ice plant has run without a fault since the February service. Piran says ice sales are
   already ahead of this time last year.

3. FUEL
   Hamish reported that the supplier has put the price up again. From 1 May the co-op will sell
   diesel to members at 1.12 euros a litre (now 1.06). Non-members pay 15 cents a litre more.
   Agreed.

4. SKELLMOUTH REGATTA (Saturday 2 August)
   The co-op will sponsor the fishermen's race again. Prize of 250 euros for the winning boat
   plus the co-op shield. Piran to ask Ferrand & Daughter to repaint the shield.

5. DREDGING
   Bryony said the Harbour Trust will dredge the inner harbour in November, the first time
   since 2017. The Trust pays. Boats on the inner moorings will have to move to the outer trot
   for about a week; dates to follow.

6. CRAB & MACKEREL DAY - Sunday 27 July 2025, on the quay
   Annis Gribble will do a cookery demonstration. The Saltings Singers asked whether they can
   sing: agreed, 2pm. Stall fees unchanged.

7. ANY OTHER BUSINESS
   Hamish said he will stand down as treasurer at the next AGM after eleven years in the job.
   Dorcas Jelbert said she would be willing to stand. Aldous thanked Hamish for his work.

Next meeting: Thursday 8 May 2025, 7pm, the Net Loft.
"""

FOSB_MINUTES = """Friends of St Brannock's (FOSB) - committee meeting
Tuesday 4 February 2025, 7.30pm, school staff room

Present: Delphine Ashgrove (chair), Gethin Pryce (treasurer), Nadia Ferreira (secretary),
Sunniva Holt, Tillie Marsh, Wilf Penna. Anselm Tregear (head teacher) for item 2.

1. Treasurer's report
   Gethin: the 2024 summer fair money has been spent as agreed -
     * reading books for the school library ........ 1,740 euros
     * polytunnel for the gardening club ........... 2,350 euros
     * kept back for the next project ...............  770 euros
   The Christmas disco on 13 December made 612 euros after paying the DJ.

2. Outdoor classroom ("the Den")
   Mr Tregear showed the drawings. Children's council has chosen the spot by the hedge.
   Parish council grant application went in during January; answer expected in April.

3. Summer fair
   Date fixed: Saturday 21 June. Stall organisers as last year, except Wilf takes the bottle
   stall. Delphine to write to parents at the start of March.

4. Quiz night
   Friday 14 March, 7.30pm, back room of the Anchor Inn. Teams of up to six, 8 euros a head,
   quizmaster Gideon Farrow (kindly volunteered again). Sunniva doing the food.

5. AOB
   Lost property mountain - Nadia to put it out at pick-up on Friday before it goes to charity.

Next meeting: Tuesday 1 April, 7.30pm.
"""

MY_NOTES = """stuff to remember (Tillie)
==========================

BOAT
- Pipit is on mooring B14 (inner harbour, east side)
- mooring fee for 2025 is 410 euros, to the Harbour Trust by 31 March -- PAID 18 March
- Nov: they dredge the inner harbour, Pipit has to go to the outer trot (ask Bryony which week)
- regatta 2 Aug, enter the harbour race again. beat Caius this time!!

BISCUIT
- booster done 28 Sept at Ropewalk Rd
- dental booked 15 Oct with Priya, no food after 8pm the night before

CHOIR
- learn the alto line of Salt on the Wind before the alto sectional
- sell my 6 concert tickets (Mum wants 2)

WREN / SCHOOL
- Wren's class = Year 3, Miss Tallack
- FOSB quiz 14 March, team with the Pennas

CO-OP
- type up minutes of 10 April and send to Aldous by Friday

MISC
- Mum's birthday 11 November - book a table at the Anchor
- car service due June
"""


# --- .csv and .eml -------------------------------------------------------------------------------

REGATTA_ROWS = [
    ("1", "3317", "Wagtail", "Skell Scamp", "Fenna de Wit", "Skellmouth Sailing School", "0:51:08", "0:47:40"),
    ("2", "1186", "Halcyon", "Gull", "Jago Hext", "Skellmouth Yacht Club", "0:49:55", "0:48:02"),
    ("3", "3290", "Dunlin", "Skell Scamp", "Caius Brennan", "Skellmouth Sailing School", "0:52:31", "0:48:57"),
    ("4", "2750", "Pipit", "Skell Scamp", "Tillie Marsh", "Tollerwick Dinghy Club", "0:53:10", "0:49:34"),
    ("5", "1420", "Sandpiper", "Gull", "Roisin Galley", "Tollerwick Dinghy Club", "0:51:47", "0:49:51"),
    ("6", "0977", "Bluefin", "Skell Cormorant", "Hamish Oddie", "Skellmouth Yacht Club", "0:47:20", "0:50:12"),
    ("7", "3102", "Little Auk", "Skell Scamp", "Wilf Penna", "Tollerwick Dinghy Club", "0:58:44", "0:54:47"),
    ("DNF", "2218", "Kittiwake", "Gull", "Delphine Ashgrove", "Tollerwick Dinghy Club", "", ""),
    ("DNF", "1355", "Razorbill", "Skell Cormorant", "Piran Scobell", "Skellmouth Yacht Club", "", ""),
]


def regatta_csv() -> str:
    header = "Place,Sail number,Boat,Class,Helm,Club,Elapsed,Corrected\n"
    return header + "".join(",".join(row) + "\n" for row in REGATTA_ROWS)


def choir_email() -> bytes:
    msg = EmailMessage()
    msg["From"] = "Gideon Farrow <md@saltingssingers.example>"
    msg["To"] = "Saltings Singers members <members@saltingssingers.example>"
    msg["Date"] = "Thu, 06 Mar 2025 21:47:00 +0000"
    msg["Subject"] = "Songs of the Sea: extra rehearsal, sectionals and what to wear"
    msg["Message-ID"] = "<20250306214700.md@saltingssingers.example>"
    msg.set_content(textwrap.dedent("""\
        Dear singers,

        Seven weeks to go until Songs of the Sea on Saturday 26 April, and it is starting to sound
        lovely. A few things to put in your diaries.

        EXTRA REHEARSAL
        Saturday 12 April, 10am to 1pm, at the Methodist Hall as usual. Please come if you
        possibly can: it is the only time we will have the whole programme in one go before the
        day.

        SECTIONALS
        The altos will meet on Wednesday 2 April at 6.30pm, before the main rehearsal, led by
        Isolde Marrack. Tenors and basses will work with me on Wednesday 9 April at the same time.

        NEW MUSIC
        We are giving the first performance of Salt on the Wind, which Mei Lindqvist wrote for us
        last autumn. It is the hardest thing on the programme, so please use the learning tracks
        in the members' area.

        WHAT TO WEAR
        Navy tops and black trousers or skirts. The choir will provide sea-green scarves on the
        night; please give them back at the end!

        ON THE DAY
        Arrive at St Brannock's Church by 6pm for a 7pm start. The Skellmouth Silver Band will
        rehearse with us from 6.15.

        TICKETS
        Last year's spring concert sold 212 tickets. The church seats 240, so let's fill it this
        time. Each of you has six tickets to sell; the rest are at Gribble's Fish Shed.

        SUBS
        Summer term subs (45 euros) are due by 31 March. Please pay by bank transfer if you can.

        Thank you all, and happy practising,

        Gideon
        --
        Gideon Farrow
        Musical Director, The Saltings Singers
        """))
    return bytes(msg)


# --- the folder ----------------------------------------------------------------------------------

def _write_files(folder: Path) -> None:
    text = {
        "estuary-echo-new-gig-curlew.html": GIG_ARTICLE,
        "estuary-echo-gannet-halt-reopens.html": HALT_ARTICLE,
        "skellmouth-sailing-school-courses.html": SAILING_PAGE,
        "gannet-point-vets-about-us.html": VETS_PAGE,
        "saltings-singers-whats-on.html": CHOIR_PAGE,
        "quayside-notes-spider-crab.html": CRAB_BLOG,
        "wiki-tollerwick.md": WIKI_VILLAGE,
        "wiki-skell-valley-railway.md": WIKI_RAILWAY,
        "wiki-tollerwick-inshore-rescue.md": WIKI_LIFEBOAT,
        "harbour-coop-committee-2025-04-10.txt": COOP_MINUTES,
        "fosb-committee-minutes-2025-02.txt": FOSB_MINUTES,
        "tillie-notes.txt": MY_NOTES,
        "skellmouth-regatta-2024-harbour-race.csv": regatta_csv(),
    }
    binary = {
        "tollerwick-harbour-coop-annual-review-2024.pdf": pdf_bytes(COOP_REVIEW_PAGES, font_size=10),
        "skell-valley-railway-timetable-2025.pdf": pdf_bytes(TIMETABLE_PAGES, font_size=10),
        "fosb-summer-fair-letter-2025.docx": _docx("Delphine Ashgrove", datetime(2025, 3, 3, 20, 10), FOSB_LETTER),
        "ferrand-memo-spring-2025.docx": _docx("Maud Ferrand", datetime(2025, 1, 14, 7, 45), BOATYARD_MEMO),
        "vets-letter-biscuit-2024-09.docx": _docx("Kenna Polglaze", datetime(2024, 9, 9, 11, 20), VET_LETTER),
        "choir-songs-of-the-sea-rehearsals.eml": choir_email(),
    }
    write_files(folder, text, binary)


def make_person_folder(folder: Path) -> list[Question]:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    _write_files(folder)
    return list(QUESTIONS)


# --- the questions, grouped by the document that answers them (or holds a near miss's entity) ----

def _q(question: str, gold: str, kind: str, file: str) -> Question:
    return Question("", question, gold, kind, file)


def _nm(question: str, file: str) -> Question:
    return near_miss("", question, file)


def _numbered(questions: list[Question]) -> list[Question]:
    """The questions with their ids, "q2-001", "q2-002", ... in list order."""
    return [replace(q, id=f"q2-{n:03d}") for n, q in enumerate(questions, 1)]


GIG = "estuary-echo-new-gig-curlew.html"
HALT = "estuary-echo-gannet-halt-reopens.html"
SAIL = "skellmouth-sailing-school-courses.html"
VETS = "gannet-point-vets-about-us.html"
CHOIR = "saltings-singers-whats-on.html"
BLOG = "quayside-notes-spider-crab.html"
COOP = "tollerwick-harbour-coop-annual-review-2024.pdf"
TIMES = "skell-valley-railway-timetable-2025.pdf"
VILLAGE = "wiki-tollerwick.md"
RAIL = "wiki-skell-valley-railway.md"
RESCUE = "wiki-tollerwick-inshore-rescue.md"
FAIR = "fosb-summer-fair-letter-2025.docx"
MEMO = "ferrand-memo-spring-2025.docx"
VETLETTER = "vets-letter-biscuit-2024-09.docx"
COOPMIN = "harbour-coop-committee-2025-04-10.txt"
FOSBMIN = "fosb-committee-minutes-2025-02.txt"
NOTES = "tillie-notes.txt"
REGATTA = "skellmouth-regatta-2024-harbour-race.csv"
EMAIL = "choir-songs-of-the-sea-rehearsals.eml"

QUESTIONS = _numbered([
    # estuary-echo-new-gig-curlew.html
    _q("who built the new gig for tollerwick gig club", "Ferrand & Daughter", "fact", GIG),
    _q("when was curlew launched", "16 May 2025", "date", GIG),
    _q("how many hours of work went into building curlew", "2300 hours", "number", GIG),
    _q("which kid came up with the name Curlew?", "Marnie Ostler", "fact", GIG),
    _q("who founded ferrands boatyard", "Silas Ferrand", "fact", GIG),
    _q("whos the boss at ferrand and daughter", "Maud Ferrand", "synonym", GIG),
    _q("which is older, gannet point vets or ferrand & daughter", "Ferrand & Daughter", "compare", GIG),
    _nm("how much did it cost to build shearwater back in 1985", GIG),
    _nm("when was tollerwick gig club founded", GIG),
    _nm("When did Ada Ferrand retire from the boatyard?", GIG),

    # estuary-echo-gannet-halt-reopens.html
    _q("when did gannet halt reopen", "5 April 2025", "date", HALT),
    _q("how long is the new platfrom at gannet halt", "60 metres", "number", HALT),
    _q("how many winters did the volunteers spend rebuilding gannet halt", "three winters", "number", HALT),
    _q("who drove the first train into gannet halt", "Agnes Tremlow", "fact", HALT),
    _nm("who was the last stationmaster at gannet halt", HALT),
    _nm("How many passengers did the steam railway carry in 2023?", HALT),

    # skellmouth-sailing-school-courses.html
    _q("how much is the level 2 dinghy course", "340 euros", "number", SAIL),
    _q("which is more expensive, seamanship skills or dinghy level 2", "Level 2", "compare", SAIL),
    _q("who is the head of skellmouth sailing school", "Caius Brennan", "synonym", SAIL),
    _q("who started the sailing school", "Hester Quiller", "fact", SAIL),
    _q("which sailing courses only take two days", "Level 1, Seamanship Skills", "list", SAIL),
    _q("what costs more, driver for a day on the steam railway or the keelboat competent crew course",
       "Keelboat Competent Crew", "compare", SAIL),
    _q("whats older the saltings singers or the sailing school", "sailing school", "compare", SAIL),
    _nm("how much is the powerboat course at the sailing school", SAIL),

    # gannet-point-vets-about-us.html
    _q("who's the head vet at gannet point", "Isolde Marrack", "synonym", VETS),
    _q("which vet at gannet point looks after horses", "Tobias Hensher", "synonym", VETS),
    _q("when did the vets open their skellmouth branch", "2011", "date", VETS),
    _q("how many farms do gannet point vets look after", "35 farms", "number", VETS),
    _q("how much is the paw plan for a dog each month", "14.50 euros", "number", VETS),
    _nm("who founded gannet point vets", VETS),
    _nm("who was clinical director at gannet point before isolde marrack", VETS),
    _nm("how much does it cost to get a cat neutered at gannet point vets", VETS),

    # saltings-singers-whats-on.html
    _q("when is the saltings singers spring concert", "26 April 2025", "date", CHOIR),
    _q("where is songs of the sea on", "St Brannock's Church", "fact", CHOIR),
    _q("which band is playing with the choir at the spring concert", "Skellmouth Silver Band", "fact", CHOIR),
    _q("who are the choir's musical director and accompanist", "Gideon Farrow, Mei Lindqvist", "list", CHOIR),
    _nm("who was the choir's musical director before gideon farrow", CHOIR),
    _nm("how much are tickets for carols on the harbour wall", CHOIR),

    # quayside-notes-spider-crab.html
    _q("who runs the fish shed on the quay", "Annis Gribble", "fact", BLOG),
    _q("where does most of the spider crab landed at tollerwick end up", "Spain", "fact", BLOG),
    _nm("how much is the lobster roll at gribble's fish shed", BLOG),

    # tollerwick-harbour-coop-annual-review-2024.pdf
    _q("how many tonnes of spider crab did the co-op land in 2024", "88 tonnes", "number", COOP),
    _q("did the coop land more spider crab or brown crab in 2024", "spider crab", "compare", COOP),
    _q("when was the harbour co-op founded", "1931", "date", COOP),
    _q("how much was the new ice plant", "86,000 euros", "number", COOP),
    _q("what commission does the co-op take on first sales", "6%", "number", COOP),
    _q("what kinds of fish and shellfish does the harbour co-op land",
       "mackerel, spider crab, brown crab, lobster, pollack", "list", COOP),
    _q("how many fishing boats were in the harbour co-op in 2024", "23", "synonym", COOP),
    _q("who chairs the harbour co-op", "Aldous Trevennick", "fact", COOP),
    _nm("who founded the tollerwick harbour co-operative", COOP),
    _nm("what did the old ice plant cost when it was put in", COOP),
    _nm("how many tonnes of spider crab were landed in 2019", COOP),
    _nm("how many member boats did the co-op have in 2019", COOP),

    # skell-valley-railway-timetable-2025.pdf
    _q("how long does the steam train take from tollerwick quay to hallow cross", "35 minutes", "number", TIMES),
    _q("how much is a family ticket on the skell valley railway", "42 euros", "number", TIMES),
    _q("when does the steam railway season start this year", "29 March 2025", "date", TIMES),
    _q("what does it cost to take my pooch on the steam train", "2 euros", "synonym", TIMES),
    _q("what are the stations on the skell valley railway",
       "Tollerwick Quay, Gannet Halt, Pennock Mill, Hallow Cross", "list", TIMES),
    _nm("how much are tickets for the santa specials", TIMES),
    _nm("How much is an annual season ticket on the steam railway?", TIMES),

    # wiki-tollerwick.md
    _q("what was tollerwick's population in 2011", "1,387", "number", VILLAGE),
    _q("were there more people living in tollerwick in 1951 or 1991", "1951", "compare", VILLAGE),
    _q("when was gannet point lighthouse built", "1872", "date", VILLAGE),
    _q("what town is tollerwick twinned with", "Ploumarec", "fact", VILLAGE),
    _nm("what was the population of tollerwick in 2001", VILLAGE),
    _nm("who designed the harbour wall at tollerwick", VILLAGE),

    # wiki-skell-valley-railway.md
    _q("when was the skell valley railway society formed", "1979", "date", RAIL),
    _q("which engine is older, lady ermyntrude or skell", "Lady Ermyntrude", "compare", RAIL),
    _q("who built the locomotive skell", "Corran Foundry", "fact", RAIL),
    _q("which locos are in service on the steam railway", "Lady Ermyntrude, Skell, Pennock", "list", RAIL),
    _nm("who was general manager of the railway before osgood thirle", RAIL),
    _nm("when will bellerophon be back in service", RAIL),

    # wiki-tollerwick-inshore-rescue.md
    _q("how many times did the tollerwick lifeboat launch in 2023", "38", "number", RESCUE),
    _q("whos in charge of the lifeboat station", "Senan Hocking", "synonym", RESCUE),
    _q("when did the sir hector pengelly come into service", "2019", "date", RESCUE),
    _q("which did ferrand & daughter build first, the lifeboat ellen morrow or the keelboat marguerite",
       "Ellen Morrow", "compare", RESCUE),
    _q("which fishing boat was lost in 1968", "Brighter Morn", "fact", RESCUE),
    _nm("how many times did the lifeboat launch in 2020", RESCUE),
    _nm("how much did the sir hector pengelly cost", RESCUE),

    # fosb-summer-fair-letter-2025.docx
    _q("when is st brannocks summer fair this year", "21 June 2025", "date", FAIR),
    _q("how much did last summers fair raise", "4,860 euros", "number", FAIR),
    _q("whos running the tombola at the summer fair", "Gethin Pryce", "fact", FAIR),
    _q("which stalls need helpers at the summer fair", "cake stall, tombola, bottle stall, raffle", "list", FAIR),
    _q("how many kids go to st brannock's", "118", "synonym", FAIR),
    _nm("how much did the 2023 summer fair raise", FAIR),

    # ferrand-memo-spring-2025.docx
    _q("who has ordered work from ferrand & daughter this spring",
       "Skell Valley Steam Railway, Skellmouth Sailing School, Tollerwick Gig Club, Priya Vellacott", "list", MEMO),
    _q("who ordered the dinghy tern", "Priya Vellacott", "fact", MEMO),
    _nm("how much is priya vellacott paying for her new dinghy", MEMO),

    # vets-letter-biscuit-2024-09.docx
    _q("when is biscuit's booster due", "1 October 2024", "date", VETLETTER),
    _q("what breed of dog is biscuit", "springer spaniel", "fact", VETLETTER),
    _nm("how much is a booster for a cat at gannet point", VETLETTER),

    # harbour-coop-committee-2025-04-10.txt
    _q("when is crab and mackerel day", "27 July 2025", "date", COOPMIN),
    _q("who could take over as treasurer of the co-op", "Dorcas Jelbert", "fact", COOPMIN),
    _nm("how much did it cost to dredge the harbour in 2017", COOPMIN),

    # fosb-committee-minutes-2025-02.txt
    _q("how many people can be on a team at the fosb quiz", "6", "number", FOSBMIN),
    _q("did fosb spend more on the polytunnel or the library books", "polytunnel", "compare", FOSBMIN),
    _nm("how much did the fosb quiz night raise", FOSBMIN),

    # tillie-notes.txt
    _q("whats my mooring number", "B14", "fact", NOTES),
    _q("what's my dinghy called", "Pipit", "fact", NOTES),
    _q("how much is my mooring fee", "410 euros", "number", NOTES),
    _nm("how much was my mooring fee in 2024", NOTES),

    # skellmouth-regatta-2024-harbour-race.csv
    _q("who won the harbour race at the 2024 skellmouth regatta", "Fenna de Wit", "fact", REGATTA),
    _q("who did better in the 2024 harbour race, tillie marsh or caius brennan", "Caius Brennan", "compare",
       REGATTA),
    _nm("who won the harbour race at the 2023 regatta", REGATTA),

    # choir-songs-of-the-sea-rehearsals.eml
    _q("who wrote salt on the wind", "Mei Lindqvist", "fact", EMAIL),
    _q("who's leading the alto sectional", "Isolde Marrack", "fact", EMAIL),
    _q("when is the extra saturday rehearsal for songs of the sea", "12 April", "date", EMAIL),
    _q("how many people fit in st brannock's church", "240", "synonym", EMAIL),
    _q("what do we wear for the spring concert", "navy tops, black trousers or skirts, sea green scarves",
       "list", EMAIL),
    _nm("who is taking the sopranos sectional", EMAIL),
])


def _check(folder: Path, questions: list[Question]) -> None:
    """Ids unique and in order, kinds known, every named file written, near misses null."""
    ids = [q.id for q in questions]
    assert ids == [f"q2-{n:03d}" for n in range(1, len(ids) + 1)], "ids out of order"
    for q in questions:
        assert q.kind in KINDS, q.id
        assert (folder / q.file).is_file(), q.id
        assert (q.gold == NULL) == (not q.answerable) == (q.kind == "unanswerable"), q.id


def main() -> None:
    if len(sys.argv) != 2:
        print("usage: person_folder2.py OUT_DIR", file=sys.stderr)
        raise SystemExit(2)
    folder = Path(sys.argv[1])
    questions = make_person_folder(folder)
    _check(folder, questions)
    docs = Counter(p.suffix.lstrip(".") for p in sorted(folder.iterdir()) if p.is_file())
    kinds = Counter(q.kind for q in questions)
    answerable = sum(q.answerable for q in questions)
    print(f"{sum(docs.values())} documents in {folder}: " + ", ".join(f"{n} {k}" for k, n in sorted(docs.items())))
    print(f"{len(questions)} questions: " + ", ".join(f"{kinds[k]} {k}" for k in KINDS))
    print(f"answerable {answerable}, unanswerable {len(questions) - answerable}")


if __name__ == "__main__":
    main()
