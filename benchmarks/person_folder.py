"""A generated person's folder for the benchmarks: the documents one resident of Wendlecote, an
invented inland market town on the River Brume, has kept. Pages saved from the local paper's, the
council's, the cycling club's, the brewery's and a software company's web sites (menus, cookie
banners, breadcrumbs, sidebars, share buttons and footers around the article), a local historian's
blog with its comments, the clinic's annual report (tables) and the festival programme as PDF, wiki
pages and a brewer's blog post in Markdown, letters and a memo as .docx, minutes and notes as
.txt, the hill climb's results as .csv and the festival committee's e-mail as .eml.

Every name, date and figure is made up, and the same people turn up in several documents, so a
question about one of them has near neighbours that do not answer it. The questions, in a fixed
order, grouped by the document that answers them: single facts, lists, comparisons (each side's
figure in a different sentence or file), dates, numbers (often words in the text and digits in
the gold), questions that use another word than the text ("boss" for "managing director"), and
near misses: the entity is in the folder, the asked fact is nowhere (gold "Insufficient
information."; ``file`` names the file holding the entity).

``make_person_folder(folder)`` writes the files and returns the questions. Deterministic: no
randomness, fixed dates inside the .docx files and fixed zip timestamps.

    .venv/bin/python benchmarks/person_folder.py OUT_DIR
"""

from __future__ import annotations

import io
import sys
import textwrap
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fixtures.make_fixtures import _normalized_zip, pdf_bytes  # noqa: E402

NULL = "Insufficient information."
KINDS = ("fact", "list", "compare", "date", "number", "synonym", "unanswerable")


@dataclass
class Question:
    id: str  # "p-001", ...
    question: str
    gold: str  # the short answer; a list's items joined with ", "; NULL for a near miss
    kind: str  # one of KINDS
    file: str  # the file holding the answer (for a near miss: the file holding its entity)
    answerable: bool = True


def near_miss(id: str, question: str, file: str) -> Question:
    """A question about an entity of ``file`` whose asked fact no document gives."""
    return Question(id, question, NULL, "unanswerable", file, answerable=False)


# --- web pages -------------------------------------------------------------------------------

def _paras(text: str) -> str:
    """Blank-line separated paragraphs as <p> elements ("## " lines as <h2>)."""
    out = []
    for block in textwrap.dedent(text).strip().split("\n\n"):
        block = " ".join(block.split())
        out.append(f"<h2>{block[3:]}</h2>" if block.startswith("## ") else f"<p>{block}</p>")
    return "\n      ".join(out)


COURIER_MOST_READ = [
    "Thursday market traders call for covered stalls",
    "Bicycles stolen from racks on Guildhall Street, police appeal",
    "Ashcombe Rovers held to goalless draw at home",
    "Planning row over barn conversion on Corvey Road",
    "Obituary: retired postmaster Linus Harwood, 91",
]


def courier_page(*, title: str, standfirst: str, section: list[str], date: str, author: str,
                 body: str, related: list[str]) -> str:
    """An article saved from the Brume Valley Courier's web site, with everything around it."""
    crumbs = " &rsaquo; ".join(f'<a href="/{s.lower().replace(" ", "-")}/">{s}</a>' for s in section)
    related_items = "\n          ".join(f'<li><a href="#">{r}</a></li>' for r in related)
    most_read = "\n          ".join(f'<li><span class="rank">{i}</span> <a href="#">{r}</a></li>'
                                   for i, r in enumerate(COURIER_MOST_READ, 1))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{title} | Brume Valley Courier</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/static/courier.css">
  <script src="/static/consent.js" defer></script>
</head>
<body class="article">
  <div id="cookie-banner" class="consent">
    <p>We and our partners use cookies to personalise content and ads, to provide social media
    features and to analyse our traffic. You can change your choices at any time.</p>
    <button>Accept all</button> <button>Reject non-essential</button> <a href="/privacy/">Manage preferences</a>
  </div>
  <header class="masthead">
    <div class="topline">Serving the Brume valley since 1889 &middot; <a href="/subscribe/">Subscribe</a> &middot;
      <a href="/login/">Sign in</a> &middot; <a href="/epaper/">E-paper</a></div>
    <a class="logo" href="/">The Brume Valley Courier</a>
    <nav class="main-nav">
      <ul>
        <li><a href="/">Home</a></li><li><a href="/news/">News</a></li><li><a href="/sport/">Sport</a></li>
        <li><a href="/business/">Business</a></li><li><a href="/whats-on/">What's On</a></li>
        <li><a href="/opinion/">Opinion</a></li><li><a href="/announcements/">Announcements</a></li>
        <li><a href="/jobs/">Jobs</a></li><li><a href="/property/">Property</a></li>
      </ul>
    </nav>
  </header>
  <div class="breadcrumbs"><a href="/">Home</a> &rsaquo; {crumbs}</div>
  <main>
    <article>
      <h1>{title}</h1>
      <p class="standfirst">{standfirst}</p>
      <div class="byline">By <a href="#">{author}</a> &middot; <time>{date}</time> &middot; 4 min read</div>
      <div class="share">Share: <a href="#">Facebook</a> <a href="#">X</a> <a href="#">WhatsApp</a>
        <a href="#">Email</a> <a href="#">Copy link</a></div>
      {_paras(body)}
      <div class="share bottom">Did you find this article useful? Share it:
        <a href="#">Facebook</a> <a href="#">X</a> <a href="#">Email</a></div>
      <aside class="related">
        <h3>Related articles</h3>
        <ul>
          {related_items}
        </ul>
      </aside>
      <section class="comments-closed"><p>Comments are closed on this article.</p></section>
    </article>
    <aside class="sidebar">
      <div class="widget most-read">
        <h3>Most read</h3>
        <ol>
          {most_read}
        </ol>
      </div>
      <div class="widget newsletter">
        <h3>Get the Courier in your inbox</h3>
        <p>Our free morning briefing, every weekday at 7am.</p>
        <form><input type="email" placeholder="Your email address"><button>Sign up</button></form>
      </div>
      <div class="widget advert"><p>Advertisement</p><p>Brume Cycles &ndash; servicing from 45 euros. Station Road.</p></div>
    </aside>
  </main>
  <footer>
    <ul class="footer-links">
      <li><a href="/about/">About us</a></li><li><a href="/contact/">Contact</a></li>
      <li><a href="/advertise/">Advertise</a></li><li><a href="/complaints/">Complaints</a></li>
      <li><a href="/privacy/">Privacy notice</a></li><li><a href="/terms/">Terms and conditions</a></li>
      <li><a href="/cookies/">Cookie settings</a></li>
    </ul>
    <p>&copy; 2025 Brume Valley Courier Ltd, 22 Guildhall Street, Wendlecote, Marlshire.
      All rights reserved. Published every Thursday in print and daily online.</p>
  </footer>
</body>
</html>
"""


BRIDGE_ARTICLE = courier_page(
    title="Kingsmill Bridge to close for six weeks as resurfacing work begins",
    standfirst="Drivers face a long detour while the 18th-century crossing gets a new road surface "
               "and drains",
    section=["News", "Wendlecote", "Roads and transport"],
    date="Tuesday 11 February 2025",
    author="Tobin Greaves",
    related=["Flood wall held as river rose in 2020, says council",
             "Mill Street traders launch loyalty card scheme",
             "Letters: the footbridge needs better lighting"],
    body="""
    Kingsmill Bridge, the five-arched sandstone crossing that carries Mill Street over the River
    Brume, will close to all traffic from Monday 3 March 2025 while its road surface and drains are
    renewed, Wendlecote Town Council confirmed on Monday.

    The closure is planned to last six weeks. The work has been awarded to the engineering firm
    Halloran &amp; Pike, the same company that rebuilt the bridge's parapets and its damaged third
    arch after the flood of 2007. Those repairs cost 1.4 million euros and kept the bridge shut for
    two and a half years.

    This time the bill is smaller. The contract is worth 386,000 euros; the county highways fund
    pays 60 per cent and the town council pays the rest from its highways reserve.

    Town clerk Osric Pellow said the dates had been chosen so that the work would finish before the
    Easter holidays and before the cycling season begins in earnest. "We looked at the autumn, but
    Lantern Night brings thousands of people over the bridge in October, and nobody wanted to be
    the council that closed it that month," he said.

    ## Water in the wrong places

    Built in 1794, the bridge is 71 metres long and has carried a weight limit of 7.5 tonnes since
    it reopened after the flood repairs. An inspection last autumn found that rainwater was seeping
    through cracks in the asphalt above the second and third arches and collecting in the fill
    behind the stonework. Left alone, the water would freeze in winter and slowly push the facing
    stones apart.

    The project engineer, Marit Solvang of Halloran &amp; Pike, said the masonry itself was sound.
    "The arches are in remarkably good health for their age," she said. "What we are replacing is
    the skin on top, not the bones. We will take the road down to the fill, lay a waterproof
    membrane, renew the drains at both ends and put the surface back."

    ## How to get across

    During the closure pedestrians and cyclists can cross at the Weavers' Footbridge, about 300
    metres upstream. Drivers will be sent along the Corvey Road bypass, a detour of about six
    kilometres. The number 14 bus to Ashcombe will start and finish at the Market Cross instead of
    Mill Street, with an extra stop outside the Tamsin Orde Library.

    Traders on the far side of the river have asked for signs telling visitors that they are still
    open. Lorcan Tebbitt, managing director of the Kestel Brothers Brewery on Mill Street, said the
    brewery's delivery vans would use the bypass for the six weeks. "It adds twenty minutes to every
    delivery run, but we would rather have a dry bridge for the next thirty years," he said. The
    brewery shop will stay open as usual.

    Residents with questions can attend a drop-in session at the Guildhall on Thursday 20 February
    between 4pm and 7pm, where Ms Solvang and council staff will show the plans. Updates will be
    posted on the council's website and on the noticeboard at the Market Cross.

    Kingsmill Bridge is one of the oldest structures in Wendlecote still in daily use, and on a
    normal weekday around 4,000 vehicles cross it.
    """,
)


LANTERN_ARTICLE = courier_page(
    title="Record crowd of 6,500 turns out for Lantern Night",
    standfirst="A willow heron made by Hollins Lane pupils steals the show as the festival raises "
               "money for the clinic",
    section=["What's On", "Festivals"],
    date="Monday 21 October 2024",
    author="Niamh Ostrander",
    related=["Lantern Night 2023 in pictures",
             "Road closures for Saturday's procession",
             "Letters: why not hold Lantern Night on a Friday?"],
    body="""
    An estimated 6,500 people packed the streets of Wendlecote on Saturday evening for Lantern
    Night, the biggest crowd in the festival's history.

    The procession set off from the steps of the Tamsin Orde Library at 7pm, crossed Kingsmill
    Bridge and wound along Mill Street to the flood wall, where hundreds of paper lanterns were hung
    from the railings and lit one by one. The mayor, Hedda Marchbank, lit the first lantern to a
    cheer from the crowd packed onto the bridge.

    ## A heron on the march

    The star of the night was a heron three metres tall, made from willow and tissue paper by the
    Year 5 class of Hollins Lane Primary School. Their teacher, Quentin Ashdown, said the pupils had
    spent five Friday afternoons building it. "They argued for a week about whether it should be a
    heron or an otter," he said. "The heron won by two votes, and the otter fans carried the legs."

    The festival committee's chair, Rufus Albery, said the bucket collection and the stall takings
    had raised 11,240 euros, which will go to the Brume Valley Clinic towards a new hearing-test
    booth. "Every year people ask us what the money is for, and every year the answer is something
    you can walk into in this town," he said.

    ## From jam jars to thousands

    Lantern Night was first held in 1983, when a few families carried candles in jam jars across
    the bridge on a wet October evening. It now fills the town centre and draws visitors from
    across Marlshire. Thirty-eight volunteer stewards in yellow jackets kept the route moving this
    year, helped by first-aiders from the clinic.

    Kestel Brothers Brewery served its seasonal Lantern Ale from a stall beside the Guildhall and
    had sold out by half past nine. Head brewer Fenna Oldroyd said the brewery had made more than
    the year before "but clearly not enough".

    The rain that had been forecast held off until after ten. Stewards reported one lost child, who
    was found within minutes sitting on the library steps with a toffee apple, and no other
    incidents.

    The committee will meet in the new year to start planning the 2025 festival. Mr Albery said
    new volunteers were always welcome, "especially anyone who can tie a knot that holds in the
    wind".
    """,
)


SCHOOL_ARTICLE = courier_page(
    title="Hollins Lane pupils move into new Orchard Building",
    standfirst="Two new classrooms end years of squeeze at the town's primary school",
    section=["News", "Education"],
    date="Wednesday 15 January 2025",
    author="Tobin Greaves",
    related=["School places: what parents need to know for September",
             "County confirms funding for Hollins Lane building",
             "Walking bus trial starts at the Market Cross"],
    body="""
    Pupils at Hollins Lane Primary School started the spring term in new classrooms after the
    school's Orchard Building was opened on Thursday 9 January 2025.

    The single-storey timber building, which stands where the school's old apple trees used to
    grow, has two classrooms, a small reading corner and a covered outdoor area. The Year 5 and
    Year 6 classes moved in on the first day of term, freeing two rooms in the Victorian main
    building for music and a new nurture group.

    The project cost 940,000 euros. The county education authority paid 760,000 euros and
    Wendlecote Town Council provided the remaining 180,000 euros from its reserves.

    Head teacher Evander Scrope, 56, who has led the school since 2018, said it was the best start
    to a year he could remember. "Our main building went up in 1874, the year the school was
    founded, and it has served the town wonderfully, but it was never meant for 212 pupils," he
    said. "For the first time in years every class has a proper room."

    ## Rain for the toilets

    The building has solar panels on its roof and a 6,000-litre tank that collects rainwater for
    flushing the toilets. Heating comes from an air-source heat pump. Mr Scrope said the pupils'
    eco-council had asked for bird boxes under the eaves, and six have already been fitted.

    The school's parents' association raised 7,300 euros over two years for the furniture, partly
    through a sponsored ride organised with the Wendlecote Wheelers. Year 5 teacher Quentin Ashdown,
    who is also the club's secretary, rode the route three times in one day.

    Some neighbours on Hollins Lane objected to the plans in 2023, worried about traffic at drop-off
    time. The school has since started a walking bus from the Market Cross on three mornings a week,
    and the council has painted new zig-zag lines outside the gate.

    The apple trees were not lost: the pupils replanted four of them along the playground fence
    last spring, and they are expected to fruit next year.
    """,
)


WHEELERS_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>About the club - Wendlecote Wheelers</title>
  <link rel="stylesheet" href="/wp-content/themes/wheelers/style.css">
</head>
<body class="page page-about">
  <div class="cookie-notice">This site uses cookies for visitor statistics. <a href="#">OK</a> &middot;
    <a href="#">No thanks</a> &middot; <a href="/privacy/">Read more</a></div>
  <header id="site-header">
    <div class="site-title"><a href="/">Wendlecote Wheelers</a></div>
    <div class="site-tagline">Cycling club of the Brume valley</div>
    <nav id="primary-menu">
      <a href="/">Home</a> | <a href="/about/">About</a> | <a href="/rides/">Club rides</a> |
      <a href="/racing/">Racing</a> | <a href="/hill-climb/">Hill Climb</a> | <a href="/juniors/">Juniors</a> |
      <a href="/join/">Membership</a> | <a href="/gallery/">Gallery</a> | <a href="/contact/">Contact</a>
    </nav>
  </header>
  <div id="breadcrumb"><a href="/">Home</a> / About the club</div>
  <div id="content">
    <main class="entry-content">
      <h1>About the club</h1>
      <p>Wendlecote Wheelers was founded in 1952 and has been riding the lanes of the Brume valley
      ever since. Today the club has sixty-four members, from juniors of twelve to riders well into
      their seventies, and we welcome anyone who enjoys being on a bike, whether that means a gentle
      ride to a tea room or a hard race against the clock.</p>
      <p>We are a friendly, mostly road-riding club. Some of us race, some of us tour, and a growing
      number ride gravel tracks over the Corvey hills in winter. What we have in common is a liking
      for early starts, cake and the occasional puncture in the rain.</p>
      <h2>Who runs the club</h2>
      <p>The club is run entirely by volunteers. Our chair is Petronella Haig, the treasurer is Ansel
      Moreby, the secretary is Quentin Ashdown, and Sunniva Blackwood is our ride captain. The
      committee is elected at the annual general meeting each February, and any member can stand.</p>
      <h2>Club rides</h2>
      <p>Our main club ride leaves the Market Cross every Sunday at 8:30 in the
      morning. Riders split into three
      groups: a steady group at about 22 km/h that always stops for cake, a middle group, and a fast
      group that usually heads for Corvey Hill. Routes are posted on the noticeboard in the Weavers
      Arms by Friday evening.</p>
      <p>From April to September there is also a chain gang on Wednesday evenings, leaving the Market
      Cross at half past six. It is fast, and it does not wait, so please come on a few Sunday rides
      first.</p>
      <p>New riders are welcome on three club rides before they need to join. Bring a spare inner
      tube, a pump, something to eat and, in winter, working lights front and back.</p>
      <h2>Membership</h2>
      <p>Adult membership costs 35 euros a year and junior membership (under 18) costs 15 euros.
      Membership includes third-party insurance through the national cycling federation, a discount
      at Brume Cycles on Station Road, entry to club events and a vote at the AGM. You can join
      online or with the treasurer after any Sunday ride.</p>
      <h2>The hill climb</h2>
      <p>Every September the club organises the Brume Valley Hill Climb on Corvey Hill: 2.3
      kilometres at an average gradient of 7.8 per cent, with the steepest part, known as the Elbow,
      at 14 per cent. The course record of 6:12 was set by Rhodri Vance in 2019. Riders start at
      one-minute intervals, and the road is closed for the morning with the town council's
      permission. Marshals are always needed; ask the secretary.</p>
      <h2>Club colours</h2>
      <p>Our jerseys are green and gold, the colours of the old Wendlecote town crest. Kit is ordered
      twice a year, in March and October, and members get their first jersey at half price.</p>
      <h2>Safeguarding</h2>
      <p>Juniors under 16 must ride with a parent or a named adult member on club rides. Our
      safeguarding policy is on the Juniors page, and any concern can be raised in confidence with
      any committee member.</p>
      <div class="share-this">Share this page: <a href="#">Facebook</a> &middot; <a href="#">Strava club</a>
        &middot; <a href="#">Email a friend</a></div>
    </main>
    <aside id="sidebar">
      <section class="widget">
        <h3>Next events</h3>
        <ul>
          <li>Sunday club ride &ndash; every week, Market Cross</li>
          <li>Spring reliability ride &ndash; Sunday 23 March 2025</li>
          <li>Brume Valley Hill Climb &ndash; Saturday 6 September 2025</li>
        </ul>
      </section>
      <section class="widget">
        <h3>Latest news</h3>
        <ul>
          <li><a href="#">AGM 2025: all officers re-elected</a></li>
          <li><a href="#">Results: Brume Valley Hill Climb 2024</a></li>
          <li><a href="#">Thank you to Hollins Lane parents for the sponsored ride</a></li>
          <li><a href="#">Winter gravel rides: route maps</a></li>
        </ul>
      </section>
      <section class="widget">
        <h3>Follow us</h3>
        <p><a href="#">Strava</a> &middot; <a href="#">Instagram</a> &middot; <a href="#">Facebook</a></p>
      </section>
    </aside>
  </div>
  <footer id="site-footer">
    <p>&copy; Wendlecote Wheelers. Affiliated to the national cycling federation.</p>
    <p>Club address: c/o The Weavers Arms, Market Cross, Wendlecote &middot;
      <a href="mailto:secretary@wendlecotewheelers.example">secretary@wendlecotewheelers.example</a></p>
    <p><a href="/privacy/">Privacy</a> &middot; <a href="/safeguarding/">Safeguarding policy</a> &middot;
      <a href="/constitution/">Club constitution</a> &middot; Powered by WordPress</p>
  </footer>
</body>
</html>
"""


OTTERBYTE_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>About us | Otterbyte Software</title>
  <meta name="description" content="Otterbyte makes Tallyhouse, the offline-first till and stock app for independent shops.">
  <link rel="stylesheet" href="/assets/site.css">
</head>
<body>
  <div class="consent-bar" role="dialog">
    <p>We use essential cookies to make this site work and, with your consent, analytics cookies to
    understand how it is used.</p>
    <button>Accept</button><button>Reject</button><a href="/cookies">Cookie settings</a>
  </div>
  <header class="top">
    <a href="/" class="brand">otterbyte</a>
    <nav>
      <ul class="menu">
        <li><a href="/tallyhouse">Tallyhouse</a></li>
        <li><a href="/riverwatch">Riverwatch</a></li>
        <li><a href="/pricing">Pricing</a></li>
        <li><a href="/about" class="active">About us</a></li>
        <li><a href="/careers">Careers <span class="badge">We're hiring</span></a></li>
        <li><a href="/blog">Blog</a></li>
        <li><a href="/support">Support</a></li>
        <li><a href="/login" class="button">Log in</a></li>
      </ul>
    </nav>
  </header>
  <nav class="breadcrumbs"><a href="/">Home</a> &gt; <a href="/company">Company</a> &gt; About us</nav>
  <main class="about">
    <section class="hero">
      <h1>About us</h1>
      <p class="lead">Software for the shops that make a high street worth walking down.</p>
    </section>
    <section>
      <h2>How it started</h2>
      <p>Otterbyte Software Ltd was founded in 2014 by Deniz Harrowell and Mabli Ferrante in a spare
      room above a bakery on Mill Street, Wendlecote. Deniz had spent eight years writing till
      software for a supermarket chain; Mabli had built stock systems for warehouses. Both were tired
      of software that treated small shops as an afterthought, and both liked the smell of bread.</p>
      <p>In 2017, with nine people and a great many cables, we moved into the old tannery at 4 Tanners
      Row, a brick building on the bank of the River Brume that had stood empty for twenty years. It
      is still our home. The river is close enough that we take flooding seriously, which is how
      Riverwatch began.</p>
    </section>
    <section>
      <h2>What we make</h2>
      <p>Tallyhouse is our point-of-sale and stock app for independent shops: bookshops, delis,
      hardware stores, bike shops and the occasional cheesemonger. It runs on an ordinary tablet,
      keeps working when the internet does not, and is used today by more than 1,900 shops in four
      countries.</p>
      <p>Riverwatch is a free flood-alert app we built for Wendlecote in 2020. It reads three river
      gauges on the Brume, at Corvey Weir, at Kingsmill Bridge and beside the tannery, and sends an
      alert to residents' phones when the water rises quickly. It is free, it has no adverts, and it
      always will.</p>
    </section>
    <section>
      <h2>Who we are</h2>
      <p>We are a team of twenty-seven: developers, designers, support staff and one very patient
      office manager. Deniz Harrowell is our managing director and Mabli Ferrante is our chief
      technology officer. Most of us live within cycling distance of the office, and several of us
      ride with the Wendlecote Wheelers on Sunday mornings.</p>
      <p>Our senior developer Ansel Moreby looks after the Tallyhouse sync engine (and, in his spare
      time, the Wheelers' accounts). Our support team answers every ticket from Wendlecote, in
      plain language, usually within the hour.</p>
    </section>
    <section>
      <h2>How we work</h2>
      <ul>
        <li>Friday afternoons are for learning, reading and fixing the things that annoy us.</li>
        <li>In August we work a four-day week.</li>
        <li>We run the code club at the Tamsin Orde Library during term time.</li>
        <li>We publish what we learn about offline software on our blog.</li>
      </ul>
    </section>
    <section class="cta">
      <h2>Work with us</h2>
      <p>We are looking for a junior developer to join the Tallyhouse team. <a href="/careers">See open roles</a>.</p>
    </section>
  </main>
  <aside class="from-the-blog">
    <h3>From the blog</h3>
    <ul>
      <li><a href="#">Why Tallyhouse keeps working offline</a></li>
      <li><a href="#">Riverwatch: five years of river readings</a></li>
      <li><a href="#">What a bike shop taught us about stock counts</a></li>
    </ul>
  </aside>
  <footer class="site-footer">
    <div class="cols">
      <div><h4>Product</h4><a href="/tallyhouse">Tallyhouse</a> <a href="/pricing">Pricing</a>
        <a href="/status">Status</a> <a href="/changelog">Changelog</a></div>
      <div><h4>Company</h4><a href="/about">About</a> <a href="/careers">Careers</a> <a href="/press">Press</a></div>
      <div><h4>Legal</h4><a href="/privacy">Privacy</a> <a href="/terms">Terms</a> <a href="/accessibility">Accessibility</a></div>
    </div>
    <p>Otterbyte Software Ltd &middot; 4 Tanners Row &middot; Wendlecote &middot; Marlshire &middot;
      Registered company no. 09218834</p>
    <p>&copy; 2025 Otterbyte Software Ltd. Made beside the river.</p>
  </footer>
</body>
</html>
"""


KESTEL_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Our Story | Kestel Brothers Brewery, Wendlecote</title>
  <link rel="stylesheet" href="/css/kestel.css">
</head>
<body>
  <div id="age-gate" class="modal">
    <p>Welcome to Kestel Brothers Brewery. You must be of legal drinking age to enter this site.</p>
    <button>Yes, I am over 18</button> <button>No</button>
  </div>
  <div class="cookie-banner">We use cookies to remember your age check and to see which pages are
    read. <a href="#">Accept</a> <a href="#">Decline</a></div>
  <header>
    <a class="logo" href="/">KESTEL BROTHERS &middot; Est. 1887 &middot; Wendlecote</a>
    <nav>
      <a href="/">Home</a> <a href="/beers/">Our Beers</a> <a href="/story/">Our Story</a>
      <a href="/tours/">Brewery Tours</a> <a href="/shop/">Shop</a> <a href="/stockists/">Pubs &amp; Stockists</a>
      <a href="/blog/">Brew Log</a> <a href="/contact/">Contact</a> <a href="/basket/">Basket (0)</a>
    </nav>
  </header>
  <p class="crumbs"><a href="/">Home</a> &rsaquo; Our Story</p>
  <main>
    <h1>Our story</h1>
    <p>In 1887 the brothers Aurel and Matthias Kestel, sons of a maltster from the hills above
    Ashcombe, bought a derelict dye works on Mill Street and began brewing beside the River Brume.
    They chose the site for its water: a spring known as St Edda's Well rises under the yard, and we
    still brew with it today.</p>
    <p>Aurel ran the brewhouse and Matthias looked after the horses, the drays and the pubs. By the
    turn of the century Kestel's beer was poured in eleven pubs along the valley, and the brothers
    had built the tall malt store that still gives Mill Street its skyline.</p>
    <p>The copper that sits at the heart of our brewhouse was installed in 1923, after the original
    one split during a hard winter. It has been patched, polished and argued over ever since, and
    every beer we make still passes through it.</p>
    <h2>Floods and fresh starts</h2>
    <p>Being close to the river has its price. In March 2007 the Brume came through the yard and
    into the cellars, and we lost sixty casks of beer and most of a season's malt. For three months
    we brewed in borrowed space at a friendly brewery in Ashcombe while the cellars dried out. The
    flood wall along Mill Street, finished in 2011, has kept our feet dry since.</p>
    <h2>The people</h2>
    <p>Kestel's is still independent. Our managing director is Lorcan Tebbitt, who joined us from the
    wine trade in 2018. Our head brewer, Fenna Oldroyd, looks after every recipe, from the everyday
    beers to the seasonal specials, and writes the occasional brew-day note for our Brew Log.</p>
    <p>Last year we brewed 9,400 hectolitres of beer, more than at any time since the 1960s, and
    almost all of it is drunk within fifty kilometres of the brewery.</p>
    <h2>Our beers</h2>
    <ul class="beer-list">
      <li><strong>Brume Dark</strong> &ndash; our oldest recipe, a dark ruby ale with notes of coffee
        and blackcurrant. 5.2% ABV.</li>
      <li><strong>Kingsmill Bitter</strong> &ndash; copper-coloured, dry and easy-drinking. 3.9% ABV.</li>
      <li><strong>Lantern Ale</strong> &ndash; brewed once a year for Lantern Night in October, a
        warming amber ale spiced with orange peel. 4.8% ABV.</li>
    </ul>
    <p>Look out on the Brew Log for our seasonal specials, which come and go with the year.</p>
    <h2>Visit us</h2>
    <p>Brewery tours run every Saturday at 2pm and last about ninety minutes, finishing with a
    tasting in the old cooperage. Tickets cost 12 euros per person and must be booked in advance;
    visitors must be 18 or over. The brewery shop is open Tuesday to Saturday, 10am to 5pm.</p>
    <p class="share">Share our story: <a href="#">Facebook</a> <a href="#">Instagram</a> <a href="#">Email</a></p>
  </main>
  <aside>
    <h3>From the Brew Log</h3>
    <ul>
      <li><a href="#">Brew day: Tanners Pale returns</a></li>
      <li><a href="#">Lantern Ale sells out again</a></li>
      <li><a href="#">Why we still use wooden casks (sometimes)</a></li>
    </ul>
    <h3>Find us</h3>
    <p>Kestel Brothers Brewery, Mill Street, Wendlecote. Parking in the Corvey Road car park.</p>
  </aside>
  <footer>
    <p>&copy; Kestel Brothers Brewery 1887&ndash;2025. Please enjoy our beers responsibly.</p>
    <p><a href="/privacy/">Privacy</a> &middot; <a href="/terms/">Terms of sale</a> &middot;
      <a href="/trade/">Trade enquiries</a> &middot; <a href="/jobs/">Jobs</a></p>
  </footer>
</body>
</html>
"""


FLOOD_BLOG = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Eighteen years on: the night the Brume came to town &laquo; Wendlecote Past</title>
  <link rel="stylesheet" href="https://wendlecotepast.example/wp-content/themes/twentyfifteen/style.css">
</head>
<body class="single-post">
  <div class="cookie-law-info-bar">This website uses cookies to improve your experience. We'll assume
    you're OK with this, but you can opt out if you wish. <a href="#">Accept</a> <a href="#">Read more</a></div>
  <header class="site-header">
    <p class="site-title"><a href="/">Wendlecote Past</a></p>
    <p class="site-description">Old photographs, old stories and the odd walk along the Brume</p>
    <nav class="main-navigation">
      <a href="/">Home</a> <a href="/about/">About</a> <a href="/archive/">Archive</a>
      <a href="/walks/">Walks</a> <a href="/photos/">Photo requests</a> <a href="/contact/">Contact</a>
    </nav>
  </header>
  <div class="site-content">
    <main>
      <article class="post">
        <header class="entry-header">
          <h1 class="entry-title">Eighteen years on: the night the Brume came to town</h1>
          <div class="entry-meta">Posted on 9 March 2025 by Cressida Lovering &middot;
            Categories: <a href="#">Floods</a>, <a href="#">Mill Street</a> &middot; <a href="#comments">6 comments</a></div>
        </header>
        <div class="entry-content">
          <p>Eighteen years ago tonight the River Brume came over its banks at the bottom of Mill
          Street, and for a few days Wendlecote was two towns with a river running down the middle.
          Every March I mean to write about it, and every March I find a reason not to. This year a
          reader sent me a box of photographs, so I have run out of excuses.</p>
          <p>It had rained for eight days. Not the soft rain we are used to, but the hard, slanting
          kind that comes up the valley from Ashcombe and does not stop for lunch. On top of that,
          the snow that had sat on the Corvey hills since February melted in two warm days, and all
          of it came down the same narrow valley at once.</p>
          <p>On the afternoon of Friday 9 March 2007 the council's flood warden, a retired engineer
          called Leofric Dunmore, walked down to the gauge board on Kingsmill Bridge, as he did
          every day, and did not like what he saw. He went back at six, and again at eight, and at
          half past eight he rang the town clerk's office and told them to open the Guildhall. By
          then the water was lapping at the doorsteps on Tanners Row.</p>
          <p>I lived on Tanners Row in those days, in the narrow house with the blue door, three
          along from the old tannery, which was empty and boarded up then. I remember carrying my
          mother's photograph albums upstairs one armful at a time while my neighbour shouted at me
          to forget the albums and bring the cat. We did both. By midnight there was water in the
          front room up to the second stair.</p>
          <p>About three hundred people were evacuated that night. Most of them spent it in the
          Guildhall, on camp beds and chairs, and when the Guildhall was full the rest were taken up
          the hill to the hall of Hollins Lane Primary School, where the caretaker had the heating on
          and the tea urn going before anyone asked. Children who were there still talk about it as
          the best sleepover of their lives. Their parents do not.</p>
          <p>What I remember most is the sound. A river in flood is not loud in the way you would
          expect. It hisses. Under the arches of Kingsmill Bridge it roared, and at about two in the
          morning there was a crack that people heard all over the lower town, which turned out to
          be part of the parapet going into the water. The bridge stayed shut for two and a half
          years after that, and those of us on the south bank learned a great deal about the Corvey
          Road.</p>
          <p>My grandfather always said that nothing would ever beat 1947, when he rowed a borrowed
          boat down Mill Street to rescue a piano. He was wrong, as it turned out, by quite a lot;
          the marks on the Guildhall wall show that 2007 went higher. I am glad he did not live to
          see it, and a little sorry he did not get to argue about it.</p>
          <p>The clean-up took most of the year. The men from the Kestel brewery carried sandbags all
          night and then spent a month pumping out their own cellars. The library lost thousands of
          books from its basement, and the volunteers who dried the survivors page by page with
          hairdryers deserve a blog post of their own. The Courier printed a special edition on the
          Monday, which I still have, with the headline "Brume, Bridge and Bravery".</p>
          <p>That summer the town held what everyone called the Dry Feet Dance in the Guildhall,
          with a band from Ashcombe and raffle prizes from every shop on Mill Street that still had
          a floor. I went in wellingtons as a joke and was not the only one. The money went to
          families who had no insurance, and there were more of them than you would think: many of
          the cottages on Tanners Row were rented, and the landlords' insurance did not cover their
          tenants' furniture. For months afterwards you could tell which houses had been flooded by
          the skips outside and by the hum of dehumidifiers behind the curtains at night. Some people
          never moved back. The little row of cottages at the very bottom of Mill Street, nearest
          the river, stood empty for three years before it was bought, rebuilt with tiled floors and
          sockets halfway up the walls, and sold again.</p>
          <p>Since then the town has built the flood wall along Mill Street, which held in 2020 when
          the river came up again, and Otterbyte's Riverwatch app now sends an alert to half the
          phones in town whenever the gauges start to climb. I have it on mine. When it buzzed in
          2020 I was out of bed and into my boots before I had read the message, which tells you
          something about what 2007 did to those of us who were here.</p>
          <p>Leofric Dunmore died in 2016. He kept the gauge book at the bridge for many years and
          wrote in it every single day, including that Friday, when his entry in pencil says only:
          "Bad. Rising. Rang clerk." The book is now in the local studies room at the Tamsin Orde
          Library, and you can ask to see it.</p>
          <p>If you have photographs of the 2007 flood, the local studies room is collecting them
          for an exhibition. Scans are fine; the originals go straight back to you. And if you were
          one of the children in the school hall that night, I would love to hear what you remember.</p>
          <p class="tags">Tags: <a href="#">2007</a>, <a href="#">flood</a>, <a href="#">Kingsmill Bridge</a>,
            <a href="#">Tanners Row</a>, <a href="#">memories</a></p>
          <div class="sharedaddy">Share this: <a href="#">Facebook</a> <a href="#">X</a> <a href="#">Email</a>
            <a href="#">Print</a> &middot; <a href="#">Like</a> Be the first to like this.</div>
        </div>
      </article>
      <nav class="post-navigation"><a href="#">&larr; Previous: The tannery chimney, 1890 to 1961</a>
        <a href="#">Next: A walk to Corvey Weir &rarr;</a></nav>
      <section id="comments" class="comments-area">
        <h2 class="comments-title">6 thoughts on &ldquo;Eighteen years on: the night the Brume came to town&rdquo;</h2>
        <ol class="comment-list">
          <li class="comment"><div class="comment-author">Jory Penhallow</div>
            <div class="comment-meta">9 March 2025 at 21:14</div>
            <p>I was one of the kids in the school hall that night! We were given blankets and
            biscuits and someone's dad played the guitar until about one in the morning. Best night
            ever. My mum has a different view.</p></li>
          <li class="comment"><div class="comment-author">Hester Blaney</div>
            <div class="comment-meta">9 March 2025 at 21:40</div>
            <p>The brewery lads carried sandbags along Mill Street all night and never asked for a
            thing. I have drunk Brume Dark out of loyalty ever since.</p></li>
          <li class="comment depth-2"><div class="comment-author">Cressida Lovering</div>
            <div class="comment-meta">9 March 2025 at 22:02</div>
            <p>Hester, they were marvellous. I have a photo of two of them asleep on the Guildhall
            steps at dawn; I will put it in the exhibition if I can find out who they were.</p></li>
          <li class="comment"><div class="comment-author">Ros Dunmore</div>
            <div class="comment-meta">10 March 2025 at 08:17</div>
            <p>Thank you for writing about Dad. He would have hated the fuss and loved the
            post. He always said the river tells you what it is going to do if you look at it every
            day.</p></li>
          <li class="comment"><div class="comment-author">Tam W.</div>
            <div class="comment-meta">11 March 2025 at 13:55</div>
            <p>Lovely piece. Is the exhibition going to be at the library or the Guildhall? And will
            there be anything about the 1968 flood? My nan had stories about that one too.</p></li>
          <li class="comment"><div class="comment-author">Marek Voss</div>
            <div class="comment-meta">12 March 2025 at 18:20</div>
            <p>We bought one of the rebuilt cottages at the bottom of Mill Street in 2011. The
            sockets halfway up the walls have puzzled every electrician we have ever had in. Now I
            know why!</p></li>
        </ol>
        <div class="comment-respond"><h3>Leave a Reply</h3>
          <p>Your email address will not be published. Required fields are marked *</p>
          <p>Comment * &middot; Name * &middot; Email * &middot; Website</p>
          <p><input type="checkbox"> Notify me of follow-up comments by email.</p>
          <button>Post Comment</button></div>
      </section>
    </main>
    <aside class="widget-area">
      <section class="widget"><h2>About me</h2>
        <p>I'm Cressida, a retired archivist. I have lived in Wendlecote most of my life and now
        volunteer in the local studies room at the library. This blog is where I put the stories
        that do not fit in a catalogue.</p></section>
      <section class="widget"><h2>Categories</h2>
        <ul><li>Floods (6)</li><li>Mill Street (11)</li><li>Pubs and breweries (8)</li>
          <li>Schools (5)</li><li>Walks (14)</li></ul></section>
      <section class="widget"><h2>Archives</h2>
        <ul><li>March 2025</li><li>February 2025</li><li>January 2025</li><li>December 2024</li></ul></section>
      <section class="widget"><h2>Blogroll</h2>
        <ul><li><a href="#">Brume Valley Courier</a></li><li><a href="#">Marlshire Record Office</a></li>
          <li><a href="#">Tamsin Orde Library</a></li></ul></section>
    </aside>
  </div>
  <footer class="site-footer">
    <p>&copy; Cressida Lovering. Text and photographs may not be reused without permission.</p>
    <p>Proudly powered by WordPress &middot; Theme: Twenty Fifteen</p>
  </footer>
</body>
</html>
"""


def council_page(*, title: str, crumbs: list[str], body: str, sidebar: str) -> str:
    """A page saved from Wendlecote Town Council's web site."""
    trail = " &rsaquo; ".join(f'<a href="#">{c}</a>' for c in crumbs)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{title} - Wendlecote Town Council</title>
  <link rel="stylesheet" href="/themes/council/main.css">
</head>
<body>
  <a class="skip-link" href="#main">Skip to main content</a>
  <div class="cookie-message">
    <p>Cookies on the Wendlecote Town Council website. We use some essential cookies to make this
    website work. We'd like to set additional cookies to understand how you use the site.</p>
    <button>Accept additional cookies</button> <button>Reject additional cookies</button>
    <a href="/cookies">View cookies</a>
  </div>
  <header class="council-header">
    <a href="/" class="council-logo">Wendlecote Town Council</a>
    <form class="search"><input type="search" placeholder="Search this site"><button>Search</button></form>
    <nav class="council-nav">
      <a href="/">Home</a> <a href="/council">Council and democracy</a> <a href="/bins">Bins and recycling</a>
      <a href="/roads">Roads and parking</a> <a href="/library">Library</a> <a href="/planning">Planning</a>
      <a href="/events">Events</a> <a href="/contact">Contact us</a>
    </nav>
  </header>
  <div class="breadcrumb"><a href="/">Home</a> &rsaquo; {trail}</div>
  <main id="main">
    <h1>{title}</h1>
    {body}
    <p class="page-feedback">Was this page useful? <a href="#">Yes</a> <a href="#">No</a> &middot;
      <a href="#">Report a problem with this page</a></p>
  </main>
  <aside class="related-links">
    {sidebar}
    <h3>Most viewed</h3>
    <ul>
      <li><a href="#">Kingsmill Bridge closure: diversions</a></li>
      <li><a href="#">Bin collection calendar 2025</a></li>
      <li><a href="#">Report a pothole</a></li>
      <li><a href="#">Council meetings and minutes</a></li>
    </ul>
  </aside>
  <footer class="council-footer">
    <p>Wendlecote Town Council, The Guildhall, Guildhall Street, Wendlecote, Marlshire.
      Open Monday to Friday, 9am to 4pm.</p>
    <p><a href="/accessibility">Accessibility statement</a> &middot; <a href="/privacy">Privacy</a> &middot;
      <a href="/foi">Freedom of information</a> &middot; <a href="/sitemap">Site map</a></p>
    <p>&copy; Wendlecote Town Council 2025</p>
  </footer>
</body>
</html>
"""


LIBRARY_EVENTS = council_page(
    title="What's on at the library: spring 2025",
    crumbs=["Library", "What's on"],
    sidebar="""<h3>Library links</h3>
    <ul>
      <li><a href="#">Join the library</a></li><li><a href="#">Renew your books online</a></li>
      <li><a href="#">Opening hours</a></li><li><a href="#">Local studies room</a></li>
      <li><a href="#">Volunteer with us</a></li>
    </ul>""",
    body="""<p class="intro">Talks, clubs and groups at the Tamsin Orde Library, Guildhall Street.
    Most events are free; where there is a charge it is shown below. Book at the front desk, by
    phone, or by e-mail to the library.</p>
    <div class="event">
      <h2>Talk: Floods of the Brume</h2>
      <p class="when">Thursday 13 March 2025, 7pm, in the reading room</p>
      <p>Local historian and blogger Cressida Lovering looks back at the floods of 1947, 1968 and
      2007 through photographs and letters from the local studies room, including the gauge book
      kept at Kingsmill Bridge and pictures never shown in public before. Tickets cost 4 euros,
      including tea and a biscuit, and the money goes to the library's photograph archive.</p>
    </div>
    <div class="event">
      <h2>Code Club</h2>
      <p class="when">Tuesdays in term time, 4pm to 5:30pm</p>
      <p>For young people aged 9 to 13. Learn to make games, animations and websites with volunteers
      from Otterbyte Software. No experience needed and laptops are provided. Free, but places are
      limited to sixteen, so please book at the desk.</p>
    </div>
    <div class="event">
      <h2>Thursday Readers</h2>
      <p class="when">First Thursday of every month, 7pm</p>
      <p>Our friendly book group. In March we are reading The Weir Keeper's Daughter by Mara
      Quennell; copies can be reserved at the desk. New members are always welcome, whether or not
      you finished the book.</p>
    </div>
    <div class="event">
      <h2>Story time</h2>
      <p class="when">Tuesdays, 10:30am</p>
      <p>Stories, songs and rhymes for children under five and their grown-ups. Drop in, no booking
      needed.</p>
    </div>
    <div class="event">
      <h2>Family history drop-in</h2>
      <p class="when">Last Saturday of the month, 10am to 12 noon</p>
      <p>Bring your questions and your old photographs. The librarian, Wilhelmina Corr, and
      volunteers from the local studies room will help you get started with census returns, parish
      records and the Courier archive.</p>
    </div>
    <div class="event">
      <h2>Volunteers wanted: the Courier archive</h2>
      <p>We are scanning every issue of the Brume Valley Courier from 1889 to 1960, about 3,700
      issues in all, so that they can be searched from home. If you can spare two hours a week and
      handle old paper gently, please ask at the desk.</p>
    </div>""",
)


# --- Markdown: wiki pages and a brewer's blog post ----------------------------------------------

WIKI_TOWN = """# Wendlecote

**Wendlecote** is a small market town in the county of Marlshire, on the north bank of the River
Brume about 14 km upstream of Ashcombe. At the 2021 census it had 8,940 inhabitants.

| | |
|---|---|
| County | Marlshire |
| River | Brume |
| Population (2021) | 8,940 |
| Market day | Thursday |
| Twinned with | none |

## History

Wendlecote grew up around a ford on the Brume and a weekly market, which has been held on
Thursdays for centuries. In the eighteenth and nineteenth centuries the town lived from weaving
and tanning; the weavers' cottages on Hollins Lane and the tannery on Tanners Row both survive. The
**Guildhall** on Guildhall Street was built in 1702 and is still used by the town council. The
stone **Kingsmill Bridge** replaced an older wooden bridge at the end of the eighteenth century.

The railway reached the town in 1868. The line closed in 1964, and the station building on Station
Road is now a bicycle shop. Tanning ended in the 1930s, and the tannery building stood empty until
a software company moved in.

The town has been flooded several times, most badly in 1947 and in March 2007; see
[Flood of March 2007](wiki-flood-2007.md).

## Governance

Wendlecote Town Council has fifteen councillors and meets at the Guildhall on the first Tuesday of
each month. The mayor is chosen by the councillors each May. **Hedda Marchbank**, a councillor
since 2017, has been mayor since May 2021, and **Tobiah Wrenfield** is deputy mayor. The town clerk,
who runs the council's offices and staff, is **Osric Pellow**.

The council looks after the library, the parks, the flood barriers, the market and the town's
share of road repairs; schools and main roads are the county's business.

## Landmarks

| Landmark | Built or opened | Notes |
|---|---|---|
| Guildhall | 1702 | council chamber, market hall below |
| Tamsin Orde Library | 1911 | red brick, clock tower |
| Flood wall, Mill Street | 2011 | 620 m, demountable barriers at the bridge |
| Weavers' Footbridge | 2019 | steel, 48 m, pedestrians and cyclists |

The **Market Cross** at the top of Mill Street is the usual meeting point for the town's
processions and for the Sunday rides of the cycling club.

## Economy

The largest employers are the **Brume Valley Clinic** on Quarry Lane, the **Kestel Brothers
Brewery** on Mill Street and the software company **Otterbyte**, which occupies the old tannery.
The Thursday market has about forty stalls in summer. Many residents work in Ashcombe.

## Education

The town's primary school is **Hollins Lane Primary School**. Older pupils travel by bus to
Ashcombe Academy, the nearest secondary school.

## Culture and sport

* **Lantern Night**, a lantern procession through the town, is held every October.
* The **Wendlecote Wheelers** cycling club organises the Brume Valley Hill Climb on Corvey Hill.
* The **Brume Valley Courier**, the local weekly newspaper, was founded in 1889 and is printed on
  Thursdays.
* The **Weavers Arms** on the Market Cross is the oldest pub in the town.

## Transport

Bus route 14 runs to Ashcombe every half hour from Mill Street. The nearest railway station is at
Ashcombe.

## Notable people

* **Tamsin Orde** (1838-1909), benefactor, whose bequest paid for the town library
* **Aurel Kestel** (1851-1920), brewer
* **Rhodri Vance**, racing cyclist

## See also

* [Tamsin Orde Library](wiki-tamsin-orde-library.md)
* [Flood of March 2007](wiki-flood-2007.md)
"""


WIKI_FLOOD = """# Flood of March 2007

The **flood of March 2007** was the worst flood recorded in Wendlecote. After eight days of heavy
rain and a rapid thaw of snow on the Corvey hills, the River Brume peaked at **4.86 metres** above
its normal summer level at the Kingsmill Bridge gauge on the night of 9 March 2007.

## Course of the flood

* **1-8 March**: persistent rain across the upper Brume valley.
* **7 March**: a warm spell melts the snow on the Corvey hills.
* **9 March, evening**: the river overtops its banks at the bottom of Mill Street; the Guildhall
  opens as a rest centre.
* **10 March, early morning**: part of the downstream parapet of Kingsmill Bridge collapses; the
  bridge is closed.
* **12 March**: the water falls below the banks again.

## Impact

140 homes and 23 businesses were flooded, most of them on Mill Street, Tanners Row and the lower
end of Hollins Lane. Several hundred residents had to leave their homes for at least one night.
The cellars of the Kestel Brothers Brewery and the basement of the Tamsin Orde Library were
flooded, and the library lost a large part of the books stored there.

Kingsmill Bridge, the only road bridge in the town, lost part of its parapet and its third arch
was damaged. The bridge reopened on 12 September 2009. During the closure the bus to Ashcombe
turned at the Market Cross and traffic went round by the Corvey Road.

## Flood defences

After the flood the town council, the county and the national flood agency built a **flood wall**
along Mill Street. It was completed in 2011, is 620 metres long and cost 3.1 million euros. At
each end of Kingsmill Bridge there are gaps that are closed with demountable steel barriers; the
council's flood team puts them up when the river at the Kingsmill gauge reaches the red alert
level.

Since 2020 the river gauges have been read by the Riverwatch app, which sends alerts to residents'
phones.

## Historic flood levels

Peaks measured or reconstructed at the Kingsmill Bridge gauge:

| Year | Peak level | Notes |
|---|---|---|
| 1947 | 4.21 m | Mill Street under water for four days |
| 1968 | 3.95 m | water reached the Guildhall steps |
| 2007 | 4.86 m | highest on record |
| 2020 | 3.40 m | flood wall held, no homes flooded |

A brass line on the wall of the Guildhall marks the level of 2007.

## See also

* [Wendlecote](wiki-wendlecote.md)
* [Tamsin Orde Library](wiki-tamsin-orde-library.md)
"""


WIKI_LIBRARY = """# Tamsin Orde Library

The **Tamsin Orde Library** is the public library of Wendlecote, on Guildhall Street. It opened on
4 May 1911 and was paid for by a bequest from **Tamsin Orde** (1838-1909), the widow of a wool
merchant, who left money to the town "for a library open to all, free of charge, for ever". It is
run by the town council.

## Building

The library is a two-storey red-brick building with a clock tower on the corner of Guildhall Street
and Mill Street. The ground floor holds the lending library and the children's library; the
reading room and the local studies room are on the first floor. The clock in the tower strikes the
hours and is wound by hand every Monday by a volunteer.

## Collections

* about 23,000 books, including large-print books and a growing collection of audiobooks
* the local studies collection: maps, photographs, parish records on film, and a complete run of
  the Brume Valley Courier from its first issue in 1889
* the gauge book kept at Kingsmill Bridge by the town's flood warden

## The 2007 flood

In March 2007 water filled the basement, where the reserve stock and part of the local studies
collection were kept. Some 2,300 books were lost. The Courier archive survived because it was kept
upstairs, and since the flood nothing of value has been stored below ground.

## People

The librarian is **Wilhelmina Corr**, who has run the library since 2012. She is helped by
eighteen volunteers, who staff the desk on Saturdays, run the local studies room and wind the
clock.

## Opening hours

| Day | Hours |
|---|---|
| Monday | closed |
| Tuesday | 9:00-17:00 |
| Wednesday | 9:00-19:00 |
| Thursday | 9:00-17:00 |
| Friday | 9:00-17:00 |
| Saturday | 9:00-13:00 |
| Sunday | closed |

## Groups and events

* **Thursday Readers**, the library's book group, meets on the first Thursday of every month.
* **Story time** for children under five, Tuesday mornings.
* **Code Club** for children aged 9 to 13, run with volunteers from Otterbyte.

## See also

* [Wendlecote](wiki-wendlecote.md)
* [Flood of March 2007](wiki-flood-2007.md)
"""


BREWLOG = """# Brew day: Tanners Pale returns

*Kestel Brothers Brewery Brew Log, 14 April 2025, by Fenna Oldroyd, head brewer*

Tanners Pale is back. We first brewed it in 2017, the year the old tannery on Tanners Row got its
lights back on, and it has come back every spring since, a little different each time. This is how
this year's batch was made, for those of you who keep asking what we actually do all day.

## The beer

Tanners Pale is a pale golden ale of 4.1% ABV, light enough for a long evening and bitter enough
to be worth the trip. The base is Marlshire pale malt with a little wheat for the head. The hop
that gives it its smell of lime and cut grass is **Goldmarrow**, grown for us by a farm on the far
side of the Corvey hills. We add it three times: at the start of the boil, at the end, and once
more in the fermenter.

## The day

* **6:30** Mash in. The copper is older than anyone who works here and takes a while to wake up.
* **8:00** Run off the sweet wort. Ossian Tull, our apprentice brewer, rinses the grain bed with
  hot water while I check the gravity every ten minutes.
* **9:30** Boil, with the first Goldmarrow.
* **11:00** Last hops, a short rest, and then the wort is cooled and sent to the fermenter.
* **14:00** Cleaning. Brewing is mostly cleaning; anyone who tells you otherwise has never brewed.

This batch was 32 hectolitres, the most we have ever made of Tanners Pale.

## What happens next

The yeast works for about five days. After that the beer goes into conditioning tanks for eleven
days to settle and clear, and then into casks and bottles. Ossian has already asked whether he can
drink the samples. He cannot.

## Where to find it

Tanners Pale will be launched at the Weavers Arms on Friday 2 May 2025 from 6pm, and after that it
will be in most of our pubs and in the brewery shop until the end of June, or until it runs out,
whichever comes first. In October it gives way to Lantern Ale, which some of you have already
started asking about. Yes, it will have orange peel in it again.

## A note on the copper

People ask whether we will ever replace the old copper. The honest answer is: not while it still
boils. It has a cold spot on the north side that we have learned to work around, and it makes a
noise at about ninety degrees that new staff find alarming. Lorcan says it is part of the
character of the place. I say it is part of the character of my back.

*Comments are open on our Facebook page. Cheers!*
"""


# --- PDF: the clinic's annual report and the festival programme ---------------------------------

def _wrap(text: str, width: int = 84) -> list[str]:
    """Blank-line separated paragraphs as PDF lines of at most ``width`` characters, a blank line
    between paragraphs."""
    lines: list[str] = []
    for block in textwrap.dedent(text).strip().split("\n\n"):
        lines += textwrap.wrap(" ".join(block.split()), width) + [""]
    return lines[:-1]


def _table(rows: list[tuple[str, ...]], widths: tuple[int, ...]) -> list[str]:
    """Table rows as lines, the first column padded to its width, the others right-aligned."""
    out = []
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        out.append("  ".join(cells).rstrip())
    return out


CLINIC_REPORT_PAGES = [
    [
        "BRUME VALLEY CLINIC",
        "Annual Report 2024",
        "Quarry Lane, Wendlecote, Marlshire",
        "",
        "Contents: 1. A word from the medical director  2. The year in numbers",
        "3. Our staff  4. Finances and the year ahead  5. What patients told us",
        "",
        "1. A WORD FROM THE MEDICAL DIRECTOR",
        "",
        *_wrap("""
        2024 was the busiest year since the clinic opened its doors on Quarry Lane in 1978. We saw
        more patients, gave more vaccinations and made more home visits than ever before, and we
        did it with a team that has grown only a little. I want to begin this report by thanking
        every one of them.

        Two changes stand out. In April we started a Saturday morning surgery, open from 8 am to
        noon, for patients who cannot come in during the working week. It was full from the first
        weekend, and it has done more than anything else to shorten the wait for a routine
        appointment, which fell from nine days on average in 2023 to six days in 2024.

        In September the new X-ray unit took its first patients. Until then anyone in Wendlecote
        who needed an X-ray had to travel to the hospital in Ashcombe, often by bus, often in pain.
        The unit was paid for from our equipment budget with a generous contribution from the
        Friends of the Clinic, and it has already carried out more than six hundred examinations.

        We also said goodbye to Dr Hollis Brack, who retired in June after 31 years as a family
        doctor here. Many of our patients have never known the clinic without him, and his
        handwriting will be studied by historians for generations.

        Looking ahead, our next project is a hearing-test booth, so that hearing checks for
        children and older patients can be done here rather than in Ashcombe. The proceeds of
        Lantern Night 2024 will go towards it, and we are deeply grateful to the festival
        committee and to everyone who put a coin in a bucket on a cold October evening.

        In our patient survey, 94 per cent of patients said they would recommend the clinic to a
        friend or family member. We will keep working to deserve that.
        """),
        "",
        "Dr Imogen Stallwood",
        "Medical Director",
    ],
    [
        "2. THE YEAR IN NUMBERS",
        "",
        *_wrap("""
        The table below compares our main activities in 2023 and 2024. Consultations include
        appointments with doctors, nurses and physiotherapists, in person and by telephone.
        """),
        "",
        *_table([("Activity", "2023", "2024"),
                 ("Consultations", "17,105", "18,420"),
                 ("Home visits", "1,212", "1,349"),
                 ("Vaccinations", "4,860", "5,214"),
                 ("Minor operations", "388", "402"),
                 ("X-ray examinations", "-", "611"),
                 ("Average wait for a routine appointment (days)", "9", "6")], (46, 8, 8)),
        "",
        *_wrap("""
        Consultations rose by almost eight per cent. Most of the growth came from the Saturday
        surgery and from telephone appointments, which now make up about a quarter of all
        consultations with a doctor.

        Home visits are made mostly to patients over eighty and to people recovering from an
        operation. The increase reflects the number of older residents in the town and the
        nursing team's work with families after hospital discharge.

        The vaccination figures include the autumn flu campaign, for which nurses visited Hollins
        Lane Primary School and the day centre at the Guildhall as well as running clinics here.
        Minor operations, such as the removal of moles and cysts, are done on Tuesday and Thursday
        afternoons in the treatment room.

        X-ray examinations began on 9 September 2024, so the 2024 figure covers less than four
        months. The most common examinations were of chests, wrists and ankles; the wrists and
        ankles rose sharply in the icy weeks of December.
        """),
    ],
    [
        "3. OUR STAFF",
        "",
        *_wrap("""
        At the end of 2024 the clinic employed 46 people. Many work part time; the table shows the
        number of people in each role, not full-time equivalents.
        """),
        "",
        *_table([("Role", "Headcount"),
                 ("Doctors (GPs)", "7"),
                 ("Nurses", "14"),
                 ("Healthcare assistants", "6"),
                 ("Physiotherapists", "2"),
                 ("Pharmacists", "2"),
                 ("Reception and administration", "13"),
                 ("Facilities", "2"),
                 ("Total", "46")], (40, 10)),
        "",
        *_wrap("""
        Dr Imogen Stallwood has been medical director since 2019. The clinic is run day to day by
        the practice manager, Barnaby Quist, and the nursing team is led by Delphine Marr. In
        August we welcomed Tomasz Greville, our first radiographer, who also trained the nurses and
        receptionists in the safety rules for the new X-ray room.

        Dr Hollis Brack retired in June. His patients have been shared among the other doctors
        until a new doctor joins us; interviews will be held in the spring.

        Staff training in 2024 included a course on caring for patients with dementia, radiation
        safety for everyone who works near the X-ray room, and first-aid refreshers. Our doctors
        also ran a first-aid evening for the Wendlecote Wheelers cycling club in November.

        Our thanks go to the volunteers who drive patients to appointments, to the Friends of the
        Clinic, and to the first-aiders who stood in the rain at Lantern Night.
        """),
    ],
    [
        "4. FINANCES AND THE YEAR AHEAD",
        "",
        *_wrap("""
        The clinic is funded mainly by the regional health fund. The town council gives an annual
        grant towards the Saturday surgery and the home-visit car, and the Friends of the Clinic
        raise money for equipment. All figures are in euros.
        """),
        "",
        *_table([("Income 2024", "euros"),
                 ("Regional health fund", "3,912,000"),
                 ("Town council grant", "85,000"),
                 ("Friends of the Clinic", "41,300"),
                 ("Other income", "22,700"),
                 ("Total income", "4,061,000")], (40, 12)),
        "",
        *_table([("Expenditure 2024", "euros"),
                 ("Staff", "2,986,000"),
                 ("Premises and utilities", "412,000"),
                 ("Equipment (including the X-ray unit)", "318,000"),
                 ("Medicines and supplies", "281,000"),
                 ("Training", "29,000"),
                 ("Total expenditure", "4,026,000")], (40, 12)),
        "",
        "Surplus for the year: 35,000 euros, added to the equipment reserve.",
        "",
        *_wrap("""
        The X-ray unit, including its installation and the shielding of the room, cost 214,500
        euros. The Friends of the Clinic contributed 30,000 euros towards it; the rest came from
        the equipment budget and the reserve.

        In 2025 we plan to install the hearing-test booth, to recruit a doctor to replace Dr Brack,
        and to repaint the waiting room, which has not been done since the last century. We will
        also look at opening the X-ray room on Saturday mornings if demand continues to grow.

        This report was approved by the clinic's board on 18 March 2025. Copies are available at
        reception and from the practice manager.
        """),
    ],
    [
        "5. WHAT PATIENTS TOLD US",
        "",
        *_wrap("""
        Every autumn we ask patients to fill in a short survey, on paper in the waiting room or
        online. We read every comment, including the ones about the car park. This year the
        Saturday surgery was praised more than anything else, followed by the friendliness of the
        reception team and the fact that the X-ray room means one bus journey fewer.

        The most common complaint was the telephone queue on Monday mornings, when the lines open
        at eight and everyone who has been ill over the weekend rings at once. From January 2025
        patients can ask for a call-back instead of waiting on the line, and the first hour of
        Monday appointments is kept for people who need to be seen that day.

        Other comments asked for more bicycle stands (three more have been fitted by the front
        door), for large-print versions of our leaflets (now available at reception), and for a
        hearing loop at the desk, which was installed in November. Several patients told us that
        the Thursday market makes Quarry Lane hard to reach by car in the mornings; we have asked
        the council whether the stalls can leave the corner by the clinic clear.
        """),
        "",
        "Our services at a glance",
        "",
        "Family doctors: weekdays 8:00 to 18:30, Saturday surgery 8:00 to 12:00",
        "Nurse clinics: wound care, asthma and diabetes reviews, travel advice",
        "Physiotherapy: by referral from a doctor, Monday to Thursday",
        "Minor operations: Tuesday and Thursday afternoons, in the treatment room",
        "X-ray: weekdays by appointment, on referral from a doctor or nurse",
        "Home visits: for patients who cannot leave home, arranged by a doctor",
        "Medicines reviews: with one of our pharmacists, for patients on long-term medicines",
        "",
        *_wrap("""
        Our volunteer drivers take patients without a car to appointments here and at the
        hospital in Ashcombe. If you can spare a morning a week and have a clean driving licence,
        please speak to reception. Drivers are reimbursed for their mileage and, we are told,
        rewarded with some of the best conversations in Wendlecote.

        Thank you to every patient who took the time to tell us what we do well and what we could
        do better. Please keep telling us.
        """),
    ],
]


PROGRAMME_PAGES = [
    [
        "LANTERN NIGHT 2025",
        "Saturday 18 October 2025 - Wendlecote town centre",
        "",
        *_wrap("""
        Welcome to Lantern Night! Every October since 1983 Wendlecote has walked through its own
        streets by lantern light, and every year the procession has grown. Last year's crowd was
        the biggest yet, so please be patient on the bridge and follow the stewards in yellow.
        This year the money collected on the night goes to the Tamsin Orde Library, to scan the
        old Brume Valley Courier so that everyone can read the town's history from home.
        """),
        "",
        "PROGRAMME",
        "",
        "14:00  Lantern-making tent opens on Guildhall Square (sponsored by Otterbyte)",
        "15:30  Story lanterns for under-fives at the Tamsin Orde Library",
        "17:00  Food stalls and the Kestel Brothers bar open on Mill Street",
        "18:15  Hollins Lane Primary School choir on the library steps",
        "19:00  The procession leaves the library",
        "19:30  The procession crosses Kingsmill Bridge",
        "19:45  Lanterns are hung and lit along the flood wall",
        "20:30  Fire dancers of the Ashcombe Circus School by the Guildhall",
        "22:00  Close - please take your lantern home",
        "",
        *_wrap("""
        The lantern-making tent has willow, tissue paper, glue and candles (battery candles for
        children under eight). Helpers from Otterbyte and the library will show you how. Lanterns
        take about an hour to make, so come early.

        The Kestel Brothers bar will serve this year's Lantern Ale, soft drinks and hot apple
        juice. Please drink responsibly; no glass is allowed on the procession route.
        """),
    ],
    [
        "PRACTICAL INFORMATION",
        "",
        *_wrap("""
        Road closures: Mill Street and Guildhall Street are closed to traffic from 16:00 to 23:00.
        Kingsmill Bridge is closed to traffic from 18:30 until the procession has passed.

        Parking: please use the field on Corvey Road, which costs 3 euros for the evening and is
        run by the Wendlecote Wheelers. Blue-badge parking is available behind the Guildhall.

        First aid: staff and volunteers from the Brume Valley Clinic run the first-aid tent next to
        the Guildhall all evening.

        Lost children: bring them to the library steps, where stewards will look after them until
        their family is found. Write your phone number on your child's arm before you set out.

        Quiet area: a quieter viewing place for anyone who finds crowds difficult is set up by the
        Weavers' Footbridge, with seats and a view of the lanterns on the flood wall.

        Please do not release sky lanterns. They land in fields and hedges, start fires and harm
        livestock, and they are not allowed anywhere on the route.
        """),
        "",
        "THE LANTERN NIGHT COMMITTEE",
        "",
        "Chair: Rufus Albery",
        "Treasurer: Ysolde Farrant",
        "Secretary: Perpetua Gale",
        "Safety officer: Idris Kemble",
        "",
        *_wrap("""
        Lantern Night is run entirely by volunteers, with a grant from Wendlecote Town Council and
        help from local businesses. Thank you to Otterbyte, the Kestel Brothers Brewery, the Brume
        Valley Clinic, Hollins Lane Primary School and the Tamsin Orde Library.
        """),
    ],
]


# --- .docx: letters and a memo -------------------------------------------------------------------

def _docx(author: str, when: datetime, blocks: list[tuple[str, str]]) -> bytes:
    """A Word document from (style, text) blocks: "head" (the letterhead's name), "small" (the
    letterhead's address line), "right" (a right-aligned line), "lines" (lines kept apart), "b" (bold), "number" and "bullet"
    (list items), "p" (a paragraph), "table" (rows joined by "\\n", cells by " | ")."""
    import docx
    from docx.enum.text import WD_ALIGN_PARAGRAPH
    from docx.shared import Pt

    d = docx.Document()
    props = d.core_properties
    props.author = props.last_modified_by = author
    props.created = props.modified = when
    props.revision = 1
    for style, text in blocks:
        if style == "head":
            p = d.add_paragraph()
            run = p.add_run(text)
            run.bold, run.font.size = True, Pt(16)
            p.alignment = WD_ALIGN_PARAGRAPH.CENTER
        elif style == "small":
            p = d.add_paragraph()
            p.add_run(text).font.size = Pt(9)
            p.alignment = WD_ALIGN_PARAGRAPH.CENTER
        elif style == "right":
            d.add_paragraph(text).alignment = WD_ALIGN_PARAGRAPH.RIGHT
        elif style == "lines":  # an address or a signature: one line each
            p = d.add_paragraph()
            for i, line in enumerate(text.split("\n")):
                if i:
                    p.add_run().add_break()
                p.add_run(line)
        elif style == "b":
            d.add_paragraph().add_run(text).bold = True
        elif style == "number":
            d.add_paragraph(text, style="List Number")
        elif style == "bullet":
            d.add_paragraph(text, style="List Bullet")
        elif style == "table":
            rows = [r.split(" | ") for r in text.split("\n")]
            table = d.add_table(rows=len(rows), cols=len(rows[0]))
            table.style = "Table Grid"
            for r, values in enumerate(rows):
                for c, value in enumerate(values):
                    table.cell(r, c).text = value
        else:
            d.add_paragraph(" ".join(text.split()))
    buf = io.BytesIO()
    d.save(buf)
    return _normalized_zip(buf.getvalue())


HILL_CLIMB_LETTER = [
    ("head", "WENDLECOTE TOWN COUNCIL"),
    ("small", "The Guildhall, Guildhall Street, Wendlecote, Marlshire  |  clerk@wendlecote-tc.example"),
    ("p", "Our ref: OP/HC/2024/07"),
    ("right", "12 July 2024"),
    ("lines", "Ms Petronella Haig\nChair, Wendlecote Wheelers\nc/o The Weavers Arms\nMarket Cross\nWendlecote"),
    ("p", "Dear Ms Haig,"),
    ("b", "Brume Valley Hill Climb, Saturday 7 September 2024"),
    ("p", """Thank you for the club's application of 20 June for this year's hill climb, which the
     council's events panel considered at its meeting on 9 July. I am pleased to confirm that the
     council grants permission for the temporary closure of the Corvey Hill road, between the
     Corvey Weir turning and the top car park, from 9:00 to 13:00 on Saturday 7 September 2024,
     on the following conditions:"""),
    ("number", """The club provides at least twelve marshals in high-visibility jackets, with one at
     each of the six junctions and field gates along the course and the others at the start, the
     Elbow and the finish."""),
    ("number", """Public liability insurance of at least 5 million euros is in place for the event, and
     a copy of the certificate reaches this office by 23 August 2024."""),
    ("number", """The road closure signs are provided by the council for a fee of 150 euros and are
     collected from the council depot on Corvey Road on Friday 6 September between 14:00 and
     16:00."""),
    ("number", """The residents of the four houses on Corvey Hill receive written notice of the closure
     at least fourteen days before the event, with a telephone number they can call on the day."""),
    ("number", """The road is reopened by 13:00 and left clear of cones, signs, chalk marks and
     litter."""),
    ("p", """The council's highways officer, Mr Bram Etheridge, will inspect the course with your
     marshals at 8:30 on the morning of the event. Please make sure that someone from the committee
     is at the start to meet him."""),
    ("p", """As in previous years, the closure will be advertised on the council's website and on the
     noticeboard at the Market Cross. If the event has to be cancelled because of the weather,
     please let this office know as early as possible so that the signs need not be collected."""),
    ("p", """The Mayor, Councillor Hedda Marchbank, has asked me to say that she would be delighted to
     present the prizes again this year, if the club would like her to. Please let her office know
     the time of the presentation."""),
    ("p", "With best wishes for a successful and safe event,"),
    ("p", "Yours sincerely,"),
    ("lines", "Osric Pellow\nTown Clerk"),
]


OFFER_LETTER = [
    ("head", "otterbyte"),
    ("small", "Otterbyte Software Ltd  |  4 Tanners Row, Wendlecote, Marlshire  |  hello@otterbyte.example"),
    ("right", "28 April 2025"),
    ("b", "Private and confidential"),
    ("lines", "Lowri Pennick\n17 Orchard Close\nAshcombe"),
    ("p", "Dear Lowri,"),
    ("b", "Offer of employment: Junior Developer"),
    ("p", """Thank you for coming to see us on 15 April and for the time you spent on the take-home
     exercise; the whole interview panel enjoyed reading your notes on offline sync. I am delighted
     to offer you the position of Junior Developer in our Tallyhouse team, on the terms below."""),
    ("table", "Start date | Monday 2 June 2025\n"
              "Place of work | 4 Tanners Row, Wendlecote, with up to two days a week at home\n"
              "Salary | 38,500 euros a year, paid monthly on the last working day of the month\n"
              "Hours | 37.5 hours a week, worked flexibly between 8:00 and 18:00\n"
              "Holiday | 28 days a year plus public holidays\n"
              "Probation | six months, with a review at three months\n"
              "Reporting to | Ansel Moreby, Senior Developer"),
    ("p", """You will also be able to join our cycle-to-work scheme and our pension scheme, to which
     Otterbyte pays 6 per cent of your salary. We will give you a laptop and everything else you
     need on your first day, and Ansel will spend your first week pairing with you on the sync
     engine."""),
    ("p", """This offer depends on two satisfactory references. If you would like to accept it,
     please sign and return the enclosed copy of this letter by 12 May 2025. If you have any
     questions in the meantime, call me or write to me directly."""),
    ("p", "We very much hope you will join us."),
    ("p", "Yours sincerely,"),
    ("lines", "Deniz Harrowell\nManaging Director, Otterbyte Software Ltd"),
    ("p", "I accept the offer of employment on the terms set out above."),
    ("p", "Signed: ____________________    Date: ______________"),
]


CLINIC_MEMO = [
    ("head", "BRUME VALLEY CLINIC"),
    ("small", "Quarry Lane, Wendlecote  |  Internal memorandum"),
    ("p", "To: All clinic staff"),
    ("p", "From: Barnaby Quist, Practice Manager"),
    ("p", "Date: 19 August 2024"),
    ("b", "Subject: New X-ray unit and changes to the Saturday rota"),
    ("p", """As most of you know, the new X-ray unit arrives next month. This memo sets out what will
     happen and what it means for each of us. Please read it to the end, because the training
     session is compulsory for everyone."""),
    ("b", "Installation"),
    ("p", """The unit will be installed from Monday 2 to Friday 6 September 2024 in the former store
     room at the end of the east corridor, which becomes Room 14. The delivery lorry needs the front
     car park on the morning of 2 September, so please park on Quarry Lane that day. The east
     corridor will be closed to patients for the whole week; the nurses' clinics in Rooms 12 and 13
     will move to the first floor."""),
    ("p", """The first patients will be seen on Monday 9 September 2024. To begin with, X-rays will be
     done from Monday to Friday, 9:00 to 16:00, by appointment only."""),
    ("b", "Our radiographer"),
    ("p", """Tomasz Greville started work with us on 12 August as the clinic's radiographer. Many of
     you have already met him in the staff room. He will run the X-ray room and is the person to ask
     about anything to do with it."""),
    ("b", "Radiation safety training"),
    ("p", """Everyone who works in the building must attend a radiation safety session with Tomasz
     before the unit is switched on. The session lasts forty-five minutes and takes place on
     Wednesday 4 September at 13:00 in the meeting room. A second session at 17:30 the same day is
     for those who work mornings only. Please sign the list at reception."""),
    ("b", "Saturday rota"),
    ("p", """From October the Saturday surgery will be staffed by two doctors, one nurse and two
     receptionists. The doctors' rota is set by Dr Stallwood. Nurses should send swap requests to
     Delphine Marr, and reception staff to me, by the 20th of the month before."""),
    ("p", "Thank you all for your patience during a busy month."),
    ("lines", "Barnaby Quist\nPractice Manager"),
]


SCHOOL_LETTER = [
    ("head", "Hollins Lane Primary School"),
    ("small", "Hollins Lane, Wendlecote  |  Head Teacher: Mr E. Scrope  |  office@hollinslane.example"),
    ("right", "30 September 2024"),
    ("p", "Dear Parents and Carers,"),
    ("b", "Autumn term news"),
    ("p", """What a start to the year! Thank you to all of you for the way the children have settled
     in, especially our new Reception class, who have taken to school dinners with alarming
     enthusiasm. Here is what is coming up in the next few weeks."""),
    ("b", "Lantern Night"),
    ("p", """Lantern Night is on Saturday 19 October. Year 5 are building a very large lantern for the
     procession with Mr Ashdown; its shape is a closely guarded secret, and I have been told that I
     will find out on the night like everyone else. All families are invited to a lantern workshop
     in the school hall on Thursday 10 October from 3:30 to 5:00. Please bring clean jam jars if you
     have them."""),
    ("b", "Staff training day"),
    ("p", """School will be closed to pupils on Friday 11 October 2024 for a staff training day. The
     holiday club run by the Wendlecote Leisure Trust will be open as usual that day."""),
    ("b", "Flu vaccinations"),
    ("p", """Nurses from the Brume Valley Clinic will give the nasal flu vaccine in school on Tuesday
     15 October. If you have not yet returned the consent form, please do so by Friday 4 October."""),
    ("b", "Year 6 trip"),
    ("p", """Year 6 will visit the Marlshire Museum of Rivers on Wednesday 6 November 2024 as part of
     their topic on water. The coach leaves at 8:45 and returns by 15:15. We ask for a contribution
     of 9 euros per child towards the coach; no child will miss the trip because of cost, so please
     speak to the office in confidence if this is difficult. Children will need a packed lunch and
     a waterproof coat."""),
    ("b", "The new building"),
    ("p", """Work on the new classroom building is going well, and we still expect to move in after
     the Christmas holidays. Thank you for your patience with the builders' vans at drop-off time."""),
    ("p", """As always, my door is open. If you have any worries or ideas, please come and see me or
     speak to your child's class teacher."""),
    ("p", "With best wishes,"),
    ("lines", "Evander Scrope\nHead Teacher"),
]


# --- .txt minutes and notes, .csv results, .eml e-mail ------------------------------------------

AGM_MINUTES = """WENDLECOTE WHEELERS
MINUTES OF THE ANNUAL GENERAL MEETING

Saturday 1 February 2025, 7:30pm, back room of the Weavers Arms, Market Cross

Present: 31 members, including the chair (Petronella Haig, PH), the treasurer (Ansel Moreby, AM),
the secretary (Quentin Ashdown, QA) and the ride captain (Sunniva Blackwood, SB).
Apologies: 6 members.

1. WELCOME
PH welcomed members and thanked the Weavers Arms for the room and the sandwiches. A minute's
silence was held for Walter Greenhalgh, a member since 1961, who died in November.

2. MINUTES OF THE 2024 AGM
Approved without changes. Proposed QA, seconded SB.

3. CHAIR'S REPORT
PH said 2024 had been a good year. The club ended the year with 64 members, 11 of them new, and
the Sunday ride averaged 23 riders, the most since records began in 2009. The sponsored ride for
the Hollins Lane parents' association raised over 2,000 euros towards furniture for the new school
building. PH thanked everyone who had marshalled, baked or washed kit.

4. TREASURER'S REPORT
AM presented the accounts. The club's bank balance at 31 December 2024 was 4,870 euros. Income
came mostly from subscriptions and the hill climb; the largest costs were insurance, the hill climb
signs and prizes, and the new club gazebo (340 euros). The hill climb made a profit of 612 euros.
The accounts were accepted; proposed Oswin Hale, seconded Ottilie Frane.

5. HILL CLIMB 2024
QA reported on the Brume Valley Hill Climb of 7 September 2024. 38 riders entered and 36
finished, in dry but windy weather. The winner was Kasimir Dole of Ashcombe CC; the fastest woman
was the club's own SB. No rider beat the course record. The Mayor presented the prizes. Thanks to
the fourteen marshals and to Bram Etheridge of the council for a smooth road closure.
The 2025 hill climb will be held on Saturday 6 September 2025.

6. SUBSCRIPTIONS
AM proposed that the adult subscription rise from 35 to 40 euros from 1 January 2026, the first
rise since 2018, mainly because of higher insurance costs. The junior subscription stays at 15
euros. Carried: 27 for, 3 against, 1 abstention.

7. ELECTION OF OFFICERS
All four officers were re-elected unopposed: chair PH, treasurer AM, secretary QA, ride captain
SB. The meeting agreed to create a new post of junior coach, and Ottilie Frane was elected to it.
She will run a Saturday morning skills session for juniors once a month from April.

8. ANY OTHER BUSINESS
- New kit: QA has asked two suppliers for quotes; samples at the next club night.
- Defibrillator: the Weavers Arms has agreed to host one on the outside wall; AM to apply for a
  grant.
- First aid: PH thanked Dr Imogen Stallwood and the Brume Valley Clinic for the first-aid evening
  in November, attended by fourteen members.
- Winter gravel rides will continue on the last Sunday of each month until March.

The meeting closed at 9:10pm.
Minutes taken by Quentin Ashdown, secretary.
"""


FINANCE_NOTES = """Wendlecote Town Council - Finance Committee
Notes of the meeting of Tuesday 14 January 2025, 6:30pm, council chamber, Guildhall

Present: Cllr Ysolde Farrant (chair), Cllr Hedda Marchbank (Mayor), Cllr Amos Thwaite,
Cllr Leonie Rask. Officer: Osric Pellow (Town Clerk).
Apologies: Cllr Tobiah Wrenfield (Deputy Mayor).

The chair noted that this was her twelfth budget as chair of the committee; she has sat on the
council since 2013.

1. Budget 2025-26
The clerk presented the draft budget. Total spending for 2025-26 is 1,284,000 euros, compared with
1,231,000 euros in 2024-25. Most of the increase is staff pay and the library's heating. The
committee agreed to recommend a precept rise of 3.9 per cent to the full council on 4 February.

2. Grants
- Brume Valley Clinic: annual grant held at 85,000 euros (Saturday surgery and home-visit car).
- Lantern Night: grant raised from 8,000 to 9,000 euros, mostly for stewards' equipment and
  insurance.
- Wendlecote Wheelers: 500 euros towards hill climb signs and marshals' jackets, as last year.
- Friends of the Clinic: no application this year.

3. Library
Running budget for the Tamsin Orde Library set at 148,000 euros. The clerk reported that the
boiler needs replacing within two years; a quote will come to the March meeting. Cllr Rask asked
whether the Courier scanning project could bid for a heritage grant; the clerk will check.

4. Kingsmill Bridge resurfacing
The council's share of the resurfacing contract (40 per cent) is 154,400 euros, to come from the
highways reserve. Work starts on 3 March. The Mayor asked for a letter to every business on Mill
Street before the closure; the clerk will send it this month.

5. Riverwatch
Otterbyte continues to run the Riverwatch flood alerts free of charge. The committee agreed to
pay for a fourth river gauge at the Corvey Road culvert, at a cost of 6,800 euros, which Otterbyte
will connect to the app.

6. Reserves
General reserve at 31 December 2024: 436,000 euros. The committee noted that the policy is to
keep at least six months of running costs in reserve.

Next meeting: Tuesday 11 March 2025.
Notes: O. Pellow
"""


FRIENDS_MINUTES = """FRIENDS OF BRUME VALLEY CLINIC
Committee meeting, Tuesday 8 October 2024, 7pm, clinic meeting room

Present: Marguerite Dunnock (chair), Hester Blaney (treasurer), Barnaby Quist (practice manager,
for the clinic), Ned Ashworth, Prue Calloway, Sol Varga.

1. Treasurer's report
HB reported that the Friends have raised 38,900 euros so far this year, mostly from the spring
plant sale, the sponsored walk and regular donations. The 30,000 euros promised towards the X-ray
unit was handed over to the clinic in September.

2. X-ray unit
BQ thanked the Friends on behalf of the clinic. The unit took its first patients on 9 September;
in its first month it carried out 163 examinations, and patients no longer need to travel to
Ashcombe for most X-rays. Dr Stallwood sends her thanks and will speak at the Christmas fair.

3. Hearing-test booth
BQ presented a quote from Clearnote Acoustics for a sound-proofed hearing-test booth with its
testing equipment: 18,600 euros including installation. The Lantern Night committee has told the
chair that this year's Lantern Night collection will go to the booth. The committee agreed that the
Friends would pay whatever the Lantern Night money does not cover.

4. Membership
The Friends now have 97 members. The annual subscription stays at 10 euros. MD will put a
membership leaflet in the waiting room.

5. Events
- Christmas fair: Saturday 30 November 2024, 10am to 2pm, at the Guildhall. Stalls at 15 euros.
  PC to ask the Kestel Brothers Brewery for a raffle prize.
- Spring plant sale: provisionally the last Saturday in April.

6. Next meeting
Tuesday 10 December 2024, 7pm.
"""


NOTES_TO_SELF = """THINGS TO REMEMBER (keep this file on the desktop!!)

House
- Bins: black bin Thursday, recycling every other Monday (the week after the garden waste)
- Boiler service due in May, ring Pellings
- Gutter over the back door still drips, ask about it when the roofer comes

Library
- books due back 4 March: the Brume floods book + two novels
- Cressida's flood talk, Thurs 13 March - get tickets at the desk

Bike
- renew Wheelers membership before 31 Jan (still 35 euros this year)
- Brume Cycles quote for new chain + cassette: 86 euros, book it in before the spring reliability ride
- Sunday ride 8:30 at the Cross. Bring lights till March.

Riverwatch thresholds (asked Ansel after the ride)
- amber alert when the Kingsmill gauge reaches 2.5 m
- red alert at 3.2 m -> that's when the council puts the barriers up at the bridge
- app also warns if the river rises fast, whatever the level

Bridge closed from 3 March for about six weeks
- walk over the footbridge, or bus from the Market Cross
- brewery shop still open

Appointments
- dentist: Dr Halvard Imrie, Tuesday 25 March, 10:40
- brewery tour with Tom: Saturday 15 March, 2pm, two tickets already paid (24 euros)

Other
- Mum's birthday 22 April - book a table at the Weavers Arms
- Courier subscription renews in June, 62 euros a year
- ask Rufus if they still need stewards for Lantern Night
"""


HILL_CLIMB_RESULTS = [
    ("1", "27", "Kasimir Dole", "Ashcombe CC", "Senior men", "6:41"),
    ("2", "31", "Rhodri Vance", "Marlshire Road Club", "Senior men", "6:48"),
    ("3", "19", "Emrys Tallant", "Wendlecote Wheelers", "Senior men", "7:02"),
    ("4", "8", "Jonah Brisco", "Ashcombe CC", "Junior men", "7:11"),
    ("5", "22", "Teodor Raskin", "Marlshire Road Club", "Senior men", "7:18"),
    ("6", "14", "Fraser Quilley", "Wendlecote Wheelers", "Senior men", "7:26"),
    ("7", "30", "Ansel Moreby", "Wendlecote Wheelers", "Senior men", "7:39"),
    ("8", "5", "Corin Ashby", "Corvey Velo", "Veteran men 40+", "7:44"),
    ("9", "25", "Lucan Merridew", "Ashcombe CC", "Senior men", "7:52"),
    ("10", "11", "Sunniva Blackwood", "Wendlecote Wheelers", "Senior women", "8:02"),
    ("11", "17", "Piran Goodeve", "Corvey Velo", "Veteran men 40+", "8:09"),
    ("12", "2", "Milo Farrant", "Wendlecote Wheelers", "Junior men", "8:13"),
    ("13", "33", "Bryony Thackeray", "Marlshire Road Club", "Senior women", "8:19"),
    ("14", "9", "Quentin Ashdown", "Wendlecote Wheelers", "Veteran men 40+", "8:27"),
    ("15", "36", "Elowen Norrie", "Ashcombe CC", "Veteran women 40+", "8:35"),
    ("16", "21", "Lowri Pennick", "Ashcombe CC", "Senior women", "8:44"),
    ("17", "4", "Gethin Marwood", "Corvey Velo", "Veteran men 50+", "8:51"),
    ("18", "28", "Oswin Hale", "Wendlecote Wheelers", "Veteran men 50+", "8:58"),
    ("19", "13", "Tamsyn Rook", "Corvey Velo", "Junior women", "9:04"),
    ("20", "35", "Imogen Stallwood", "Wendlecote Wheelers", "Veteran women 50+", "9:15"),
    ("21", "7", "Dorian Keddle", "Marlshire Road Club", "Veteran men 50+", "9:22"),
    ("22", "16", "Halvard Imrie", "Wendlecote Wheelers", "Veteran men 60+", "9:31"),
    ("23", "24", "Seren Oakley", "Ashcombe CC", "Senior women", "9:40"),
    ("24", "1", "Ottilie Frane", "Wendlecote Wheelers", "Veteran women 40+", "9:47"),
    ("25", "38", "Cai Lindell", "Unattached", "Senior men", "9:55"),
    ("26", "12", "Marlowe Finch", "Corvey Velo", "Veteran men 60+", "10:03"),
    ("27", "20", "Nessa Gorran", "Wendlecote Wheelers", "Junior women", "10:11"),
    ("28", "29", "Anselm Brody", "Unattached", "Veteran men 50+", "10:20"),
    ("29", "6", "Petronella Haig", "Wendlecote Wheelers", "Veteran women 60+", "10:52"),
    ("30", "15", "Wynn Carrow", "Marlshire Road Club", "Veteran men 70+", "11:04"),
    ("31", "34", "Rosalind Vey", "Ashcombe CC", "Veteran women 50+", "11:18"),
    ("32", "10", "Idris Kemble", "Wendlecote Wheelers", "Veteran men 60+", "11:35"),
    ("33", "23", "Perpetua Gale", "Wendlecote Wheelers", "Veteran women 60+", "12:02"),
    ("34", "3", "Benedict Swale", "Corvey Velo", "Veteran men 70+", "12:26"),
    ("35", "37", "Hollis Brack", "Unattached", "Veteran men 70+", "13:10"),
    ("36", "26", "Arlo Minchin", "Ashcombe CC", "Junior men", "13:48"),
    ("DNF", "18", "Kit Pardoe", "Corvey Velo", "Senior men", ""),
    ("DNS", "32", "Gwilym Ashe", "Marlshire Road Club", "Senior men", ""),
]


def results_csv() -> str:
    header = "Position,Number,Rider,Club,Category,Time (min:s)\n"
    return header + "".join(",".join(row) + "\n" for row in HILL_CLIMB_RESULTS)


def lantern_email() -> bytes:
    msg = EmailMessage()
    msg["From"] = "Rufus Albery <rufus.albery@lanternnight.example>"
    msg["To"] = "Lantern Night stewards <stewards@lanternnight.example>"
    msg["Cc"] = "Ysolde Farrant <ysolde.farrant@lanternnight.example>"
    msg["Date"] = "Tue, 02 Sep 2025 19:05:00 +0100"
    msg["Subject"] = "Lantern Night 2025: stewards wanted, and our first meeting"
    msg.set_content(textwrap.dedent("""\
        Dear all,

        I hope you have had a good summer. Lantern Night is on Saturday 18 October this year, and it
        is time to get organised.

        Our first planning meeting is on Tuesday 16 September at 7:30pm in the reading room of the
        Tamsin Orde Library (many thanks to Wilhelmina for letting us use it again). Tea, coffee and
        Kestel's finest biscuits will be provided. Idris will go through the route and the safety
        plan, and Perpetua will have the sign-up sheets.

        Stewards: we need 50 this year. Last year we had 38, and with the crowds we had it was
        tight, especially on the bridge. For comparison, in 2023 we had around 5,800 visitors, and
        we managed with fewer stewards then, but we do not want to rely on luck. If you stewarded
        last year, please say whether you can do it again, and if you know anyone who might be
        willing, bring them along. Stewards get a yellow jacket, a torch, a radio if they want one
        and a hot meal at the end.

        Where the money goes: the committee has agreed that this year's collection goes to the
        library's project to scan the Courier archive, so that every issue from 1889 onwards can be
        read at home. Last year's money has gone to the clinic's hearing-test booth, which I am told
        will be installed before Christmas.

        A few other things:
        - Parking will again be on the field on Corvey Road, run by the Wheelers.
        - The bridge is back to normal after the spring works, so the route is the same as last
          year.
        - Ysolde (cc'd) is looking after the float for the stalls and the buckets. Please send
          her your receipts for anything you have bought for the festival.

        Please reply by Friday 12 September to say whether you can come to the meeting and whether
        you can steward.

        With thanks and lantern-lit wishes,

        Rufus Albery
        Chair, Lantern Night Committee
        """))
    return bytes(msg)


# --- the folder ----------------------------------------------------------------------------------

def _write_files(folder: Path) -> None:
    text = {
        "courier-bridge-closure.html": BRIDGE_ARTICLE,
        "courier-lantern-night-2024.html": LANTERN_ARTICLE,
        "courier-orchard-building.html": SCHOOL_ARTICLE,
        "wheelers-about.html": WHEELERS_PAGE,
        "otterbyte-about-us.html": OTTERBYTE_PAGE,
        "kestel-our-story.html": KESTEL_PAGE,
        "wendlecote-past-flood-2007.html": FLOOD_BLOG,
        "library-whats-on.html": LIBRARY_EVENTS,
        "wiki-wendlecote.md": WIKI_TOWN,
        "wiki-flood-2007.md": WIKI_FLOOD,
        "wiki-tamsin-orde-library.md": WIKI_LIBRARY,
        "kestel-brewlog-tanners-pale.md": BREWLOG,
        "wheelers-agm-2025-minutes.txt": AGM_MINUTES,
        "finance-committee-notes-2025-01.txt": FINANCE_NOTES,
        "friends-of-clinic-minutes-2024-10.txt": FRIENDS_MINUTES,
        "notes-to-self.txt": NOTES_TO_SELF,
        "hill-climb-2024-results.csv": results_csv(),
    }
    binary = {
        "brume-valley-clinic-annual-report-2024.pdf": pdf_bytes(CLINIC_REPORT_PAGES),
        "lantern-night-2025-programme.pdf": pdf_bytes(PROGRAMME_PAGES),
        "letter-hill-climb-permission.docx": _docx("Osric Pellow", datetime(2024, 7, 12, 10, 0), HILL_CLIMB_LETTER),
        "offer-letter-lowri-pennick.docx": _docx("Deniz Harrowell", datetime(2025, 4, 28, 16, 30), OFFER_LETTER),
        "memo-xray-unit.docx": _docx("Barnaby Quist", datetime(2024, 8, 19, 9, 15), CLINIC_MEMO),
        "school-letter-autumn-2024.docx": _docx("Hollins Lane office", datetime(2024, 9, 30, 12, 0), SCHOOL_LETTER),
        "lantern-night-2025-stewards.eml": lantern_email(),
    }
    write_files(folder, text, binary)


def write_files(folder: Path, text: dict[str, str], binary: dict[str, bytes]) -> None:
    """Each file of ``text`` (UTF-8) and of ``binary`` into ``folder``, by name."""
    for name, content in text.items():
        (folder / name).write_text(content, encoding="utf-8")
    for name, data in binary.items():
        (folder / name).write_bytes(data)


def make_person_folder(folder: Path) -> list[Question]:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    _write_files(folder)
    return list(QUESTIONS)


# --- the questions, grouped by the document that answers them --------------------------------------

QUESTIONS = [
    # courier-bridge-closure.html
    Question("p-001", "which company is resurfacing kingsmill bridge", "Halloran & Pike", "fact", "courier-bridge-closure.html"),
    Question("p-002", "Who's the project engineer on the Kingsmill Bridge job?", "Marit Solvang", "fact",
             "courier-bridge-closure.html"),
    Question("p-003", "When does Kingsmill Bridge close for the resurfacing?", "3 March 2025", "date", "courier-bridge-closure.html"),
    Question("p-004", "How much is the bridge resurfacing contract worth?", "386,000 euros", "number", "courier-bridge-closure.html"),
    Question("p-005", "how long will the bridge be shut for", "6 weeks", "number", "courier-bridge-closure.html"),
    Question("p-006", "How much extra time does the detour add to each of the brewery's delivery runs?", "20 minutes", "number",
             "courier-bridge-closure.html"),
    Question("p-007", "Which is longer, Kingsmill Bridge or the Weavers' Footbridge?", "Kingsmill Bridge", "compare",
             "courier-bridge-closure.html"),
    near_miss("p-008", "Who designed Kingsmill Bridge?", "courier-bridge-closure.html"),
    near_miss("p-009", "What was the weight limit on Kingsmill Bridge before the 2007 flood?", "courier-bridge-closure.html"),

    # courier-lantern-night-2024.html
    Question("p-010", "Who lit the first lantern at Lantern Night 2024?", "Hedda Marchbank", "fact", "courier-lantern-night-2024.html"),
    Question("p-011", "What's the 2024 Lantern Night money going towards?", "hearing-test booth", "fact",
             "courier-lantern-night-2024.html"),
    Question("p-012", "What did Year 5 at Hollins Lane make for the 2024 procesion?", "heron", "fact",
             "courier-lantern-night-2024.html"),
    Question("p-013", "who chairs the lantern night committee", "Rufus Albery", "fact", "courier-lantern-night-2024.html"),
    Question("p-014", "how much money did lantern night 2024 raise", "11,240 euros", "number", "courier-lantern-night-2024.html"),
    Question("p-015", "How many stewards were on duty at Lantern Night 2024?", "38", "number", "courier-lantern-night-2024.html"),
    Question("p-016", "When did Lantern Night first take place?", "1983", "date", "courier-lantern-night-2024.html"),
    Question("p-017", "Was Lantern Night busier in 2023 or 2024?", "2024", "compare", "courier-lantern-night-2024.html"),
    near_miss("p-018", "Who started Lantern Night?", "courier-lantern-night-2024.html"),

    # courier-orchard-building.html
    Question("p-019", "When did the Orchard Building open?", "9 January 2025", "date", "courier-orchard-building.html"),
    Question("p-020", "what did the new orchard building at the school cost", "940,000 euros", "number", "courier-orchard-building.html"),
    Question("p-021", "Which classes moved into the Orchard Building?", "Year 5, Year 6", "list", "courier-orchard-building.html"),
    Question("p-022", "Who paid for the Orchard Building?", "county education authority, town council", "list",
             "courier-orchard-building.html"),
    Question("p-023", "how many kids go to Hollins Lane Primary?", "212", "synonym", "courier-orchard-building.html"),
    Question("p-024", "Which is older, Hollins Lane Primary or the Kestel brewery?", "Hollins Lane Primary", "compare",
             "courier-orchard-building.html"),
    Question("p-025", "Did the town council put more money into the Orchard Building or into the bridge resurfacing?",
             "Orchard Building", "compare", "courier-orchard-building.html"),
    near_miss("p-026", "Who was the architect of the Orchard Building?", "courier-orchard-building.html"),
    near_miss("p-027", "How many teachers does Hollins Lane Primary have?", "courier-orchard-building.html"),

    # wheelers-about.html
    Question("p-028", "who are the wheelers' officers", "Petronella Haig, Ansel Moreby, Quentin Ashdown, Sunniva Blackwood", "list",
             "wheelers-about.html"),
    Question("p-029", "What colours are the Wheelers' jerseys?", "green, gold", "list", "wheelers-about.html"),
    Question("p-030", "How many members has the Wendlecote Wheelers got?", "64", "number", "wheelers-about.html"),
    Question("p-031", "Where do the Sunday club rides start from?", "Market Cross", "fact", "wheelers-about.html"),
    Question("p-032", "what time does the sunday club ride leave", "8:30", "fact", "wheelers-about.html"),
    Question("p-033", "Who holds the course record on the hill climb?", "Rhodri Vance", "fact", "wheelers-about.html"),
    Question("p-034", "Who's the money person at the Wheelers?", "Ansel Moreby", "synonym", "wheelers-about.html"),
    near_miss("p-035", "Who founded the Wendlecote Wheelers?", "wheelers-about.html"),
    near_miss("p-036", "How much does family membership of the Wheelers cost?", "wheelers-about.html"),
    near_miss("p-037", "how many members did the wheelrs have in 2020", "wheelers-about.html"),

    # otterbyte-about-us.html
    Question("p-038", "who's the boss at otterbyte", "Deniz Harrowell", "synonym", "otterbyte-about-us.html"),
    Question("p-039", "Who founded Otterbyte?", "Deniz Harrowell, Mabli Ferrante", "list", "otterbyte-about-us.html"),
    Question("p-040", "Where are the river gauges that Riverwatch reads?", "Corvey Weir, Kingsmill Bridge, tannery", "list",
             "otterbyte-about-us.html"),
    Question("p-041", "Who is Otterbyte's CTO?", "Mabli Ferrante", "fact", "otterbyte-about-us.html"),
    Question("p-042", "When did Otterbyte move into the old tannery?", "2017", "date", "otterbyte-about-us.html"),
    near_miss("p-043", "What's Otterbyte's annual turnover?", "otterbyte-about-us.html"),
    near_miss("p-044", "How much does a Tallyhouse subscription cost a month?", "otterbyte-about-us.html"),

    # kestel-our-story.html
    Question("p-045", "who founded the Kestel brewery", "Aurel Kestel, Matthias Kestel", "list", "kestel-our-story.html"),
    Question("p-046", "Where does Kestel's get its brewing water from?", "St Edda's Well", "fact", "kestel-our-story.html"),
    Question("p-047", "What's Lantern Ale spiced with?", "orange peel", "fact", "kestel-our-story.html"),
    Question("p-048", "who's the brewmaster at kestel's", "Fenna Oldroyd", "synonym", "kestel-our-story.html"),
    Question("p-049", "When was the brewhouse copper at Kestel's installed?", "1923", "date", "kestel-our-story.html"),
    Question("p-050", "How many casks did the brewry lose in the 2007 flood?", "60", "number", "kestel-our-story.html"),
    Question("p-051", "How much beer did Kestel's brew last year?", "9,400 hectolitres", "number", "kestel-our-story.html"),
    Question("p-052", "Which is stronger, Brume Dark or Tanners Pale?", "Brume Dark", "compare", "kestel-our-story.html"),
    near_miss("p-053", "How many people work at Kestel Brothers Brewery?", "kestel-our-story.html"),
    near_miss("p-054", "How much is a pint of Brume Dark?", "kestel-our-story.html"),
    near_miss("p-055", "When was Lantern Ale first brewed?", "kestel-our-story.html"),
    near_miss("p-056", "When did Fenna Oldroyd become head brewer at Kestel's?", "kestel-our-story.html"),

    # wendlecote-past-flood-2007.html
    Question("p-057", "Who was the town's flood warden in 2007?", "Leofric Dunmore", "fact", "wendlecote-past-flood-2007.html"),
    Question("p-058", "What street did Cressida Lovering live on at the time of the flood?", "Tanners Row", "fact",
             "wendlecote-past-flood-2007.html"),
    Question("p-059", "Where did the evacuees spend the night of the 2007 flood?", "Guildhall, Hollins Lane Primary School", "list",
             "wendlecote-past-flood-2007.html"),
    Question("p-060", "How many people were evacuated on the night of the 2007 flood?", "300", "number",
             "wendlecote-past-flood-2007.html"),
    Question("p-061", "how many days had it been raining before the 2007 flood", "8 days", "number", "wendlecote-past-flood-2007.html"),
    near_miss("p-062", "How old was Leofric Dunmore in 2007?", "wendlecote-past-flood-2007.html"),
    near_miss("p-063", "What was Cressida Lovering's grandfather called?", "wendlecote-past-flood-2007.html"),

    # library-whats-on.html
    Question("p-064", "When is Cressida Lovering's flood talk at the library?", "13 March 2025", "date", "library-whats-on.html"),
    Question("p-065", "What ages is the library's code club for?", "9 to 13", "fact", "library-whats-on.html"),
    Question("p-066", "how many places are there at code club", "16", "number", "library-whats-on.html"),
    Question("p-067", "What's the Thursday Readers reading in March?", "The Weir Keeper's Daughter", "fact", "library-whats-on.html"),
    near_miss("p-068", "Who runs story time at the library?", "library-whats-on.html"),

    # wiki-wendlecote.md
    Question("p-069", "Who is the town clerk of Wendlecote?", "Osric Pellow", "fact", "wiki-wendlecote.md"),
    Question("p-070", "where do older kids go to secondary school", "Ashcombe Academy", "fact", "wiki-wendlecote.md"),
    Question("p-071", "When does the town council meet?", "first Tuesday", "fact", "wiki-wendlecote.md"),
    Question("p-072", "Who is Wendlecote's vice-mayor?", "Tobiah Wrenfield", "synonym", "wiki-wendlecote.md"),
    Question("p-073", "how many councillors does wendlecote have", "15", "number", "wiki-wendlecote.md"),
    Question("p-074", "When did the railway line to Wendlecote close?", "1964", "date", "wiki-wendlecote.md"),
    Question("p-075", "which was built first, the guildhall or kingsmill bridge", "Guildhall", "compare", "wiki-wendlecote.md"),
    near_miss("p-076", "How old is the mayor, Hedda Marchbank?", "wiki-wendlecote.md"),
    near_miss("p-077", "Who was mayor before Hedda Marchbank?", "wiki-wendlecote.md"),
    near_miss("p-078", "How much did the Weavers' Footbridge cost?", "wiki-wendlecote.md"),
    near_miss("p-079", "What's the population of Ashcombe?", "wiki-wendlecote.md"),
    near_miss("p-080", "When did Wendlecote's Thursday market start?", "wiki-wendlecote.md"),

    # wiki-flood-2007.md
    Question("p-081", "how high did the brume get in the 2007 flood", "4.86 metres", "number", "wiki-flood-2007.md"),
    Question("p-082", "How many homes were flooded in March 2007?", "140", "number", "wiki-flood-2007.md"),
    Question("p-083", "When did Kingsmill Bridge reopen after the flood?", "12 September 2009", "date", "wiki-flood-2007.md"),
    Question("p-084", "Which streets got hit worst in the 2007 flood?", "Mill Street, Tanners Row, Hollins Lane", "list",
             "wiki-flood-2007.md"),
    Question("p-085", "Which cost more, the flood wall or repairing Kingsmill Bridge after 2007?", "flood wall", "compare",
             "wiki-flood-2007.md"),
    near_miss("p-086", "How much damage did the 2007 flood cause in total?", "wiki-flood-2007.md"),
    near_miss("p-087", "How many homes were flooded in 1947?", "wiki-flood-2007.md"),

    # wiki-tamsin-orde-library.md
    Question("p-088", "when did the tamsin orde libary open", "4 May 1911", "date", "wiki-tamsin-orde-library.md"),
    Question("p-089", "Who's the librarian in Wendlecote?", "Wilhelmina Corr", "fact", "wiki-tamsin-orde-library.md"),
    Question("p-090", "Whose money paid for the town library?", "Tamsin Orde", "fact", "wiki-tamsin-orde-library.md"),
    Question("p-091", "Which days is the library closed?", "Monday, Sunday", "list", "wiki-tamsin-orde-library.md"),
    Question("p-092", "What's older, the Tamsin Orde Library or the copper in Kestel's brewhouse?", "Tamsin Orde Library", "compare",
             "wiki-tamsin-orde-library.md"),
    near_miss("p-093", "How many registered borrowers does the library have?", "wiki-tamsin-orde-library.md"),
    near_miss("p-094", "Who designed the Tamsin Orde Library building?", "wiki-tamsin-orde-library.md"),
    near_miss("p-095", "How tall is the library's clock tower?", "wiki-tamsin-orde-library.md"),

    # kestel-brewlog-tanners-pale.md
    Question("p-096", "Which hop goes into Tanners Pale?", "Goldmarrow", "fact", "kestel-brewlog-tanners-pale.md"),
    Question("p-097", "Who's the apprentice brewer at Kestel's?", "Ossian Tull", "fact", "kestel-brewlog-tanners-pale.md"),
    Question("p-098", "When is Tanners Pale being launched?", "2 May 2025", "date", "kestel-brewlog-tanners-pale.md"),
    Question("p-099", "How long does Tanners Pale condition for?", "11 days", "number", "kestel-brewlog-tanners-pale.md"),
    near_miss("p-100", "How much does a bottle of Tanners Pale cost?", "kestel-brewlog-tanners-pale.md"),

    # brume-valley-clinic-annual-report-2024.pdf
    Question("p-101", "Who is the clinic's medical director?", "Imogen Stallwood", "fact", "brume-valley-clinic-annual-report-2024.pdf"),
    Question("p-102", "Which doctor retired from the clinic in 2024?", "Hollis Brack", "fact",
             "brume-valley-clinic-annual-report-2024.pdf"),
    Question("p-103", "How many consultations did the clinic do in 2024?", "18,420", "number",
             "brume-valley-clinic-annual-report-2024.pdf"),
    Question("p-104", "What did the new X-ray unit cost?", "214,500 euros", "number", "brume-valley-clinic-annual-report-2024.pdf"),
    Question("p-105", "how many jabs did the clinic give in 2024", "5,214", "synonym", "brume-valley-clinic-annual-report-2024.pdf"),
    Question("p-106", "How many physios does the clinic employ?", "2", "synonym", "brume-valley-clinic-annual-report-2024.pdf"),
    Question("p-107", "How long do patients wait for a normal appointment at the clinic now?", "6 days", "synonym",
             "brume-valley-clinic-annual-report-2024.pdf"),
    Question("p-108", "When did the clinic open?", "1978", "date", "brume-valley-clinic-annual-report-2024.pdf"),
    Question("p-109", "Who employs more people, Otterbyte or the Brume Valley Clinic?", "clinic", "compare",
             "brume-valley-clinic-annual-report-2024.pdf"),
    Question("p-110", "Which came first, the clinic or Lantern Night?", "clinic", "compare", "brume-valley-clinic-annual-report-2024.pdf"),
    near_miss("p-111", "How many consultations did the clinic have in 2022?", "brume-valley-clinic-annual-report-2024.pdf"),
    near_miss("p-112", "How many patients are registered at the Brume Valley Clinic?", "brume-valley-clinic-annual-report-2024.pdf"),
    near_miss("p-113", "What's Dr Stallwood's salary?", "brume-valley-clinic-annual-report-2024.pdf"),
    near_miss("p-114", "When did Barnaby Quist become practice manager?", "brume-valley-clinic-annual-report-2024.pdf"),
    near_miss("p-115", "What was the clinic's total income in 2023?", "brume-valley-clinic-annual-report-2024.pdf"),

    # lantern-night-2025-programme.pdf
    Question("p-116", "When's Lantern Night 2025?", "18 October 2025", "date", "lantern-night-2025-programme.pdf"),
    Question("p-117", "where's the lantern-making tent this year", "Guildhall Square", "fact", "lantern-night-2025-programme.pdf"),
    Question("p-118", "What are people asked not to release at Lantern Night?", "sky lanterns", "fact", "lantern-night-2025-programme.pdf"),
    Question("p-119", "Who's on the Lantern Night committee?", "Rufus Albery, Ysolde Farrant, Perpetua Gale, Idris Kemble", "list",
             "lantern-night-2025-programme.pdf"),

    # letter-hill-climb-permission.docx
    Question("p-120", "When was the 2024 hill climb?", "7 September 2024", "date", "letter-hill-climb-permission.docx"),
    Question("p-121", "How many marshals did the council want for the hill climb?", "12", "number", "letter-hill-climb-permission.docx"),
    Question("p-122", "Who's the council's highways officer?", "Bram Etheridge", "fact", "letter-hill-climb-permission.docx"),
    near_miss("p-123", "How much does it cost to enter the Brume Valley Hill Climb?", "letter-hill-climb-permission.docx"),

    # offer-letter-lowri-pennick.docx
    Question("p-124", "What job has Lowri Pennick been offered?", "Junior Developer", "fact", "offer-letter-lowri-pennick.docx"),
    Question("p-125", "how much will lowri get paid", "38,500 euros", "synonym", "offer-letter-lowri-pennick.docx"),
    Question("p-126", "Who will be Lowri's line manager?", "Ansel Moreby", "synonym", "offer-letter-lowri-pennick.docx"),
    Question("p-127", "When does Lowri Pennick start at Otterbyte?", "2 June 2025", "date", "offer-letter-lowri-pennick.docx"),
    Question("p-128", "How long is Lowri's probation?", "6 months", "number", "offer-letter-lowri-pennick.docx"),
    near_miss("p-129", "Which university did Lowri Pennick go to?", "offer-letter-lowri-pennick.docx"),

    # memo-xray-unit.docx
    Question("p-130", "Which room is the new X-ray unit in?", "Room 14", "fact", "memo-xray-unit.docx"),
    Question("p-131", "Who is the clinic's radiographer?", "Tomasz Greville", "fact", "memo-xray-unit.docx"),
    Question("p-132", "who do nurses send rota swap requests to", "Delphine Marr", "fact", "memo-xray-unit.docx"),
    Question("p-133", "When did the X-ray unit see its first patients?", "9 September 2024", "date", "memo-xray-unit.docx"),
    near_miss("p-134", "What make is the clinic's new X-ray machine?", "memo-xray-unit.docx"),

    # school-letter-autumn-2024.docx
    Question("p-135", "Where are Year 6 going on their trip?", "Marlshire Museum of Rivers", "fact", "school-letter-autumn-2024.docx"),
    Question("p-136", "Who's the principal at Hollins Lane?", "Evander Scrope", "synonym", "school-letter-autumn-2024.docx"),
    Question("p-137", "When is the school shut for staff training?", "11 October 2024", "date", "school-letter-autumn-2024.docx"),

    # wheelers-agm-2025-minutes.txt
    Question("p-138", "who's the wheelers' new junior coach", "Ottilie Frane", "fact", "wheelers-agm-2025-minutes.txt"),
    Question("p-139", "How much cash did the Wheelers have at the end of 2024?", "4,870 euros", "synonym",
             "wheelers-agm-2025-minutes.txt"),
    Question("p-140", "When does the Wheelers' adult fee go up?", "1 January 2026", "date", "wheelers-agm-2025-minutes.txt"),
    near_miss("p-141", "How many riders entered the 2023 hill climb?", "wheelers-agm-2025-minutes.txt"),
    near_miss("p-142", "How many members came to the Wheelers' 2024 AGM?", "wheelers-agm-2025-minutes.txt"),

    # finance-committee-notes-2025-01.txt
    Question("p-143", "Who chairs the council's finance committee?", "Ysolde Farrant", "fact", "finance-committee-notes-2025-01.txt"),
    Question("p-144", "What's the council's total spending for 2025-26?", "1,284,000 euros", "number",
             "finance-committee-notes-2025-01.txt"),
    Question("p-145", "Who has been on the town council longer, Ysolde Farrant or Hedda Marchbank?", "Ysolde Farrant", "compare",
             "finance-committee-notes-2025-01.txt"),
    near_miss("p-146", "How much will the new library boiler cost?", "finance-committee-notes-2025-01.txt"),

    # friends-of-clinic-minutes-2024-10.txt
    Question("p-147", "How much is the hearing-test booth going to cost?", "18,600 euros", "number",
             "friends-of-clinic-minutes-2024-10.txt"),
    Question("p-148", "Which company quoted for the hearing test booth?", "Clearnote Acoustics", "fact",
             "friends-of-clinic-minutes-2024-10.txt"),
    Question("p-149", "Who are the chair and treasurer of the Friends of the Clinic?", "Marguerite Dunnock, Hester Blaney", "list",
             "friends-of-clinic-minutes-2024-10.txt"),
    near_miss("p-150", "Who is the secretary of the Friends of the Clinic?", "friends-of-clinic-minutes-2024-10.txt"),

    # notes-to-self.txt
    Question("p-151", "At what river level does Riverwatch send an amber alert?", "2.5", "number", "notes-to-self.txt"),
    Question("p-152", "whos my dentist", "Halvard Imrie", "fact", "notes-to-self.txt"),

    # hill-climb-2024-results.csv
    Question("p-153", "Who won the 2024 hill climb?", "Kasimir Dole", "fact", "hill-climb-2024-results.csv"),
    Question("p-154", "Who was the fastest junior in the 2024 hill climb?", "Jonah Brisco", "fact", "hill-climb-2024-results.csv"),
    Question("p-155", "Who was faster up Corvey Hill in 2024, Ansel Moreby or Quentin Ashdown?", "Ansel Moreby", "compare",
             "hill-climb-2024-results.csv"),
    Question("p-156", "who was quicker in the 2024 hill climb, lowri pennick or sunniva blackwood", "Sunniva Blackwood", "compare",
             "hill-climb-2024-results.csv"),
    near_miss("p-157", "Who won the hill climb in 2023?", "hill-climb-2024-results.csv"),

    # lantern-night-2025-stewards.eml
    Question("p-158", "What's the 2025 Lantern Night collection for?", "Courier archive", "fact", "lantern-night-2025-stewards.eml"),
    Question("p-159", "How many stewards does Lantern Night need in 2025?", "50", "number", "lantern-night-2025-stewards.eml"),
    near_miss("p-160", "How much did Lantern Night raise in 2023?", "lantern-night-2025-stewards.eml"),
    near_miss("p-161", "How many stewards have signed up for Lantern Night 2025 so far?", "lantern-night-2025-stewards.eml"),
]


def main() -> None:
    if len(sys.argv) != 2:
        print("usage: person_folder.py OUT_DIR", file=sys.stderr)
        raise SystemExit(2)
    folder = Path(sys.argv[1])
    questions = make_person_folder(folder)
    docs = Counter(p.suffix.lstrip(".") for p in sorted(folder.iterdir()) if p.is_file())
    kinds = Counter(q.kind for q in questions)
    answerable = sum(q.answerable for q in questions)
    print(f"{sum(docs.values())} documents in {folder}: " + ", ".join(f"{n} {k}" for k, n in sorted(docs.items())))
    print(f"{len(questions)} questions: " + ", ".join(f"{kinds[k]} {k}" for k in KINDS))
    print(f"answerable {answerable}, unanswerable {len(questions) - answerable}")


if __name__ == "__main__":
    main()
