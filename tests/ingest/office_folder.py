"""A generated office folder, as a small business keeps one: a scanned and signed contract (a PDF of
page pictures at 150 dpi, no text layer), a photo of the whiteboard, the quarterly slides with
speaker notes, the stock workbook (two sheets), a carriers CSV, the safety rules as .odt, an offer
letter as .rtf, a customer's complaint as .eml with an attachment, the team's mail as .mbox, a
Markdown note and an HTML page. Every fact is invented; each question's answer sits in one file,
at a known page, slide, sheet or message.

``make_office_folder(folder)`` writes the files and returns the questions. Deterministic.
"""

from __future__ import annotations

import io
import mailbox
import textwrap
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path


@dataclass
class Question:
    question: str
    gold: str
    file: str  # the file name its answer comes from
    where: str = ""  # the location its first source must cite ("p. 2", "slide 3", "sheet Stock") or a key suffix


CONTRACT_PAGES = [
    ("SUPPLY AGREEMENT\n\nThis Supply Agreement is made on 14 March 2025 between Brightwater Joinery Ltd of "
     "12 Mill Lane, Harrowgate (the Buyer) and Calder Timber Supplies of Ostby Wharf (the Supplier).\n\n"
     "1. The Supplier shall deliver forty cubic metres of seasoned oak to the Buyer each quarter.\n\n"
     "2. The price is 1,180 euros per cubic metre, fixed until 31 December 2026."),
    ("3. Either party may end this agreement with ninety days' written notice.\n\n"
     "4. Disputes are settled by the chamber of commerce in Harrowgate.\n\n"
     "Signed for the Buyer by Margit Olesen, managing director of Brightwater Joinery.\n\n"
     "Signed for the Supplier by Anders Vik, sales director of Calder Timber Supplies."),
]
WHITEBOARD = ["WEEK 23 PLAN", "Kiln repair - owner: Tobias Wren", "Varnish order due Thursday", "Showroom photos: Petra"]


def _font(size: int):
    from PIL import ImageFont

    return ImageFont.load_default(size=size)  # Pillow's own font: the same pictures on every machine


def render_page(text: str, dpi: int = 150, width_chars: int = 78):
    """A letter-size page of ``text`` (11 pt) as a greyscale picture at ``dpi``, as a scanner makes it."""
    from PIL import Image, ImageDraw

    w, h = int(8.5 * dpi), int(11 * dpi)
    page = Image.new("L", (w, h), 255)
    draw = ImageDraw.Draw(page)
    font = _font(int(11 / 72 * dpi))
    y = dpi
    for para in text.split("\n\n"):
        for line in textwrap.wrap(para, width_chars):
            draw.text((dpi, y), line, fill=0, font=font)
            y += int(font.size * 1.45)
        y += int(font.size * 0.8)
    return page


def scanned_pdf(pages: list[str], dpi: int = 150) -> bytes:
    """A PDF of page pictures only (no text layer), like a scanner's."""
    images = [render_page(p, dpi) for p in pages]
    out = io.BytesIO()
    images[0].save(out, "PDF", resolution=dpi, save_all=True, append_images=images[1:])
    return out.getvalue()


def whiteboard_photo(lines: list[str]) -> bytes:
    """A photo-like JPEG of a whiteboard: uneven light, a slight tilt, blur and sensor noise."""
    from PIL import Image, ImageDraw, ImageFilter

    w, h = 1600, 1000
    board = Image.new("RGB", (w, h))
    px = board.load()
    for y in range(0, h, 4):  # light falling off to one corner
        for x in range(0, w, 4):
            v = int(235 - 40 * (x / w) * (y / h))
            for dy in range(4):
                for dx in range(4):
                    px[x + dx, y + dy] = (v, v, v - 6)
    draw = ImageDraw.Draw(board)
    font = _font(64)
    y = 120
    for i, line in enumerate(lines):
        draw.text((140 + 12 * i, y), line, fill=(30, 40, 120) if i else (150, 20, 20), font=font)
        y += 150
    board = board.rotate(-2.5, resample=Image.Resampling.BICUBIC, fillcolor=(90, 90, 90))
    board = board.filter(ImageFilter.GaussianBlur(1.2))
    noise = Image.effect_noise((w, h), 18).convert("RGB")
    board = Image.blend(board, noise, 0.06)
    out = io.BytesIO()
    board.save(out, "JPEG", quality=72)
    return out.getvalue()


def slides(path: Path) -> None:
    from pptx import Presentation
    from pptx.util import Inches

    prs = Presentation()
    s = prs.slides.add_slide(prs.slide_layouts[0])
    s.shapes.title.text = "Brightwater Joinery: second quarter 2025"
    s.placeholders[1].text = "Board meeting, 3 July 2025"
    s = prs.slides.add_slide(prs.slide_layouts[1])
    s.shapes.title.text = "Revenue"
    s.placeholders[1].text = "Quarterly revenue reached 412,000 euros\nCustom kitchens were the largest line"
    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = "Orders by region"
    table = s.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(1.5)).table
    for r, (a, b) in enumerate([("Region", "Orders"), ("Harrowgate", "118"), ("Ostby", "64")]):
        table.cell(r, 0).text, table.cell(r, 1).text = a, b
    s = prs.slides.add_slide(prs.slide_layouts[1])
    s.shapes.title.text = "Next steps"
    s.placeholders[1].text = "A second showroom\nA new finishing line"
    s.notes_slide.notes_text_frame.text = "Say that the Aarhus showroom opens in October, after the lease is signed."
    prs.save(path)


def workbook(path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Stock"
    ws.append(["Wood", "Stock (cubic metres)", "Reorder level"])
    for row in [("Oak", 31.0, 20), ("Walnut", 6.5, 8), ("Ash", 14.25, 10), ("Cherry", 3.0, 4), ("Maple", 9.5, 6)]:
        ws.append(list(row))
    ws2 = wb.create_sheet("Suppliers")
    ws2.append(["Wood", "Supplier", "Lead time (days)"])
    for row in [("Oak", "Calder Timber Supplies", 21), ("Walnut", "Hollins & Daughters", 35), ("Ash", "Fenwick Sawmill", 14),
                ("Cherry", "Hollins & Daughters", 35), ("Maple", "Fenwick Sawmill", 14)]:
        ws2.append(list(row))
    wb.save(path)


def safety_odt(path: Path) -> None:
    from odf.opendocument import OpenDocumentText
    from odf.text import H, P

    doc = OpenDocumentText()
    doc.text.addElement(H(outlinelevel=1, text="Workshop safety rules"))
    for line in ("Safety glasses are worn at every saw and at the lathe.",
                 "The fire warden of the workshop is Ilse Marquardt; the assembly point is the car park gate.",
                 "Dust extraction runs whenever a sander is switched on."):
        doc.text.addElement(P(text=line))
    doc.save(str(path))


OFFER_RTF = (r"{\rtf1\ansi\deff0{\fonttbl{\f0 Times New Roman;}}\f0\fs24 "
             r"{\b Brightwater Joinery Ltd}\par 12 Mill Lane, Harrowgate\par\par "
             r"Dear Jonas Berg,\par\par We are pleased to offer you the position of workshop foreman, "
             r"starting on 1 September 2025. Your starting salary is 41,500 euros a year.\par\par "
             r"Yours sincerely,\par Margit Olesen\par}")


def complaint_eml() -> bytes:
    msg = EmailMessage()
    msg["From"] = "Helga Sorensen <helga.sorensen@example.org>"
    msg["To"] = "orders@brightwater.example"
    msg["Date"] = "Mon, 16 Jun 2025 09:12:00 +0200"
    msg["Subject"] = "Complaint about order BW-2291"
    msg.set_content("Hello,\n\nthe dining table of order BW-2291 arrived with a cracked top. "
                    "I attach the repair quote I was given.\n\nHelga Sorensen")
    msg.add_attachment("Repair quote\n\nLindqvist Restorations quotes 380 euros to repair the cracked table top.\n",
                       filename="repair-quote.txt")
    return bytes(msg)


def team_mbox(path: Path) -> None:
    path.unlink(missing_ok=True)  # mailbox appends: a folder made again gets the same three messages
    box = mailbox.mbox(str(path))
    for sender, subject, body, date in [
        ("Petra Lind <petra@brightwater.example>", "Showroom photos", "The new showroom photos are on the shared drive.",
         "Tue, 10 Jun 2025 14:00:00 +0200"),
        ("Tobias Wren <tobias@brightwater.example>", "Team dinner", "The summer team dinner is at Cafe Mireille on Friday at seven.",
         "Wed, 11 Jun 2025 08:30:00 +0200"),
        ("Margit Olesen <margit@brightwater.example>", "Holiday closure", "The workshop is closed from 4 to 15 August.",
         "Thu, 12 Jun 2025 17:45:00 +0200"),
    ]:
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"], msg["Date"] = sender, "team@brightwater.example", subject, date
        msg.set_content(body)
        box.add(msg)
    box.flush()
    box.close()


def make_office_folder(folder: Path) -> list[Question]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "supply-agreement-scan.pdf").write_bytes(scanned_pdf(CONTRACT_PAGES))
    (folder / "whiteboard.jpg").write_bytes(whiteboard_photo(WHITEBOARD))
    slides(folder / "q2-board.pptx")
    workbook(folder / "stock.xlsx")
    (folder / "carriers.csv").write_text("Town,Carrier,Delivery day\nHarrowgate,Northline Freight,Tuesday\n"
                                         "Ostby,Gull Coast Haulage,Thursday\nAarhus,Baltic Parcel,Monday\n", encoding="utf-8")
    safety_odt(folder / "safety-rules.odt")
    (folder / "offer-letter.rtf").write_text(OFFER_RTF, encoding="ascii")
    (folder / "complaint.eml").write_bytes(complaint_eml())
    team_mbox(folder / "team.mbox")
    (folder / "handbook.md").write_text("# Workshop handbook\n\nThe workshop opens at half past seven and the first shift "
                                        "ends at four.\n\nThe finishing room is kept at 19 degrees.\n", encoding="utf-8")
    (folder / "about.html").write_text("<html><head><title>About Brightwater</title></head><body><nav>Home | About</nav>"
                                       "<p>Our showroom in Harrowgate is managed by Petra Lind.</p>"
                                       "<footer>Brightwater Joinery Ltd</footer></body></html>", encoding="utf-8")
    return [
        Question("Who signed the supply agreement for the Supplier?", "Anders Vik", "supply-agreement-scan.pdf", "p. 2"),
        Question("What is the price per cubic metre in the supply agreement?", "1,180 euros", "supply-agreement-scan.pdf", "p. 1"),
        Question("Who is the owner of the kiln repair?", "Tobias Wren", "whiteboard.jpg"),
        Question("What was the quarterly revenue?", "412,000 euros", "q2-board.pptx", "slide 2"),
        Question("When does the Aarhus showroom open?", "October", "q2-board.pptx", "slide 4"),
        Question("How many cubic metres of walnut are in stock?", "6.5", "stock.xlsx", "sheet Stock"),
        Question("Which supplier provides the ash?", "Fenwick Sawmill", "stock.xlsx", "sheet Suppliers"),
        Question("Which carrier delivers to Ostby?", "Gull Coast Haulage", "carriers.csv", "row"),
        Question("Who is the fire warden of the workshop?", "Ilse Marquardt", "safety-rules.odt"),
        Question("What position is offered to Jonas Berg?", "workshop foreman", "offer-letter.rtf"),
        Question("Which order is Helga Sorensen's complaint about?", "BW-2291", "complaint.eml"),
        Question("How much does Lindqvist Restorations quote for the repair?", "380 euros", "complaint.eml",
                 "#attachment/1/repair-quote.txt"),
        Question("Where is the summer team dinner?", "Cafe Mireille", "team.mbox", "#message/2"),
    ]
