"""The formats of a person's folder, read by their libraries (python-pptx, openpyxl, odfpy,
striprtf, csv, email, mailbox) from the generated office folder (tests/ingest/office_folder.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from k2desk.errors import IngestError
from k2desk.ingest import read_path
from k2desk.ingest.document import ReadContext
from k2desk.ingest.locations import location


def _one(path: Path):
    docs = read_path(path)
    assert len(docs) == 1
    return docs[0]


def _where(doc, needle: str) -> str:
    start = doc.text.index(needle)
    return location(doc.meta, start, start + len(needle))


def test_slides_keep_titles_tables_and_speaker_notes_cited_by_slide(office_folder):
    folder, _ = office_folder
    doc = _one(folder / "q2-board.pptx")
    assert doc.kind == "pptx" and doc.meta["slides"] == 4
    assert _where(doc, "Quarterly revenue reached 412,000 euros") == "slide 2"
    assert _where(doc, "Ostby | 64") == "slide 3"  # a table's row
    assert _where(doc, "Speaker notes: Say that the Aarhus showroom opens in October") == "slide 4"


def test_sheets_write_each_row_with_its_headers_cited_by_sheet_and_rows(office_folder):
    folder, _ = office_folder
    doc = _one(folder / "stock.xlsx")
    assert "Wood: Walnut · Stock (cubic metres): 6.5 · Reorder level: 8" in doc.text
    assert _where(doc, "Wood: Walnut · Stock") == "sheet Stock, rows 2–6"
    assert _where(doc, "Supplier: Fenwick Sawmill") == "sheet Suppliers, rows 2–6"
    assert doc.meta["sheets"] == ["Stock", "Suppliers"]


def test_csv_and_tsv(office_folder, tmp_path):
    folder, _ = office_folder
    doc = _one(folder / "carriers.csv")
    assert _where(doc, "Town: Ostby · Carrier: Gull Coast Haulage · Delivery day: Thursday") == "rows 2–4"
    tsv = tmp_path / "prices.tsv"
    tsv.write_text("Item\tPrice\nChair\t120\nDesk\t340\n", encoding="utf-8")
    assert _one(tsv).text == "Item: Chair · Price: 120\nItem: Desk · Price: 340"


def test_a_long_sheet_is_cited_in_ranges_of_ten_rows(tmp_path):
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Log"
    ws.append(["Day", "Visitors"])
    for day in range(1, 26):
        ws.append([f"day {day}", day * 3])
    wb.save(tmp_path / "log.xlsx")
    doc = _one(tmp_path / "log.xlsx")
    assert _where(doc, "Day: day 1 ·") == "sheet Log, rows 2–11"
    assert _where(doc, "Day: day 25 ·") == "sheet Log, rows 22–26"


def test_opendocument_text_slides_and_sheets(office_folder, tmp_path):
    from odf.draw import Frame, Page, TextBox
    from odf.opendocument import OpenDocumentPresentation, OpenDocumentSpreadsheet
    from odf.style import MasterPage, PageLayout
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    folder, _ = office_folder
    assert "The fire warden of the workshop is Ilse Marquardt" in _one(folder / "safety-rules.odt").text

    ods = OpenDocumentSpreadsheet()
    table = Table(name="Tools")
    for values in (("Tool", "Count"), ("Chisel", "12"), ("Plane", "4")):
        row = TableRow()
        for v in values:
            cell = TableCell()
            cell.addElement(P(text=v))
            row.addElement(cell)
        table.addElement(row)
    empty = TableRow(numberrowsrepeated=1_048_000)  # formatting to the sheet's end: not expanded
    empty.addElement(TableCell(numbercolumnsrepeated=1024))
    table.addElement(empty)
    ods.spreadsheet.addElement(table)
    ods.save(str(tmp_path / "tools.ods"))
    doc = _one(tmp_path / "tools.ods")
    assert doc.text == "Tool: Chisel · Count: 12\nTool: Plane · Count: 4"
    assert _where(doc, "Plane") == "sheet Tools, rows 2–3"

    odp = OpenDocumentPresentation()
    layout = PageLayout(name="L")
    odp.automaticstyles.addElement(layout)
    master = MasterPage(name="M", pagelayoutname=layout)
    odp.masterstyles.addElement(master)
    for words in ("Welcome to the open day", "The kiln tour starts at ten"):
        page = Page(masterpagename=master)
        frame = Frame(width="20cm", height="3cm", x="1cm", y="1cm")
        box = TextBox()
        box.addElement(P(text=words))
        frame.addElement(box)
        page.addElement(frame)
        odp.presentation.addElement(page)
    odp.save(str(tmp_path / "open-day.odp"))
    doc = _one(tmp_path / "open-day.odp")
    assert _where(doc, "The kiln tour starts at ten") == "slide 2"


def test_rtf_letter(office_folder, tmp_path):
    folder, _ = office_folder
    text = _one(folder / "offer-letter.rtf").text
    assert "the position of workshop foreman" in text and "41,500 euros" in text and "\\par" not in text
    (tmp_path / "fake.rtf").write_text("just text", encoding="utf-8")
    with pytest.raises(IngestError, match="not an RTF file"):
        read_path(tmp_path / "fake.rtf")


def test_an_email_and_its_attachment_are_documents_of_their_own(office_folder):
    folder, _ = office_folder
    message, attachment = read_path(folder / "complaint.eml")
    assert message.kind == "eml" and message.title == "Complaint about order BW-2291"
    assert message.text.startswith("From: Helga Sorensen <helga.sorensen@example.org>\nTo: orders@brightwater.example\n")
    assert "Attachments: repair-quote.txt" in message.text and "order BW-2291 arrived with a cracked top" in message.text
    assert message.meta["date"] == "Mon, 16 Jun 2025 09:12:00 +0200"
    assert attachment.key == f"{folder / 'complaint.eml'}#attachment/1/repair-quote.txt"
    assert attachment.title == "Complaint about order BW-2291 — repair-quote.txt" and attachment.kind == "txt"
    assert "Lindqvist Restorations quotes 380 euros" in attachment.text


def test_an_html_mail_and_an_unreadable_attachment(tmp_path):
    from email.message import EmailMessage

    msg = EmailMessage()
    msg["Subject"] = "Prices"
    msg.set_content("<html><body><p>The new price list is <b>attached</b>.</p></body></html>", subtype="html")
    msg.add_attachment(b"\x00\x01binary", maintype="application", subtype="octet-stream", filename="blob.bin")
    msg.add_attachment(b"%PDF-1.7 garbage", maintype="application", subtype="pdf", filename="prices.pdf")
    (tmp_path / "prices.eml").write_bytes(bytes(msg))
    (doc,) = read_path(tmp_path / "prices.eml")
    assert "The new price list is attached." in doc.text
    assert "blob.bin (a kind k2desk does not read)" in doc.text and "prices.pdf (not read: cannot read PDF" in doc.text


def test_an_mbox_gives_one_document_per_message(office_folder):
    folder, _ = office_folder
    docs = read_path(folder / "team.mbox")
    assert [d.title for d in docs] == ["Showroom photos", "Team dinner", "Holiday closure"]
    assert docs[1].key == f"{folder / 'team.mbox'}#message/2" and docs[1].kind == "mbox"
    assert "The summer team dinner is at Cafe Mireille" in docs[1].text
    assert len({d.content_hash for d in docs}) == 3


def test_a_scan_needs_ocr_and_says_so_without_it(office_folder):
    folder, _ = office_folder
    with pytest.raises(IngestError, match="no OCR engine"):
        read_path(folder / "supply-agreement-scan.pdf")


def test_password_protected_and_damaged_office_files_are_one_line(office_folder, tmp_path):
    folder, _ = office_folder
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 4096  # what Office writes for a password-protected file
    for ext in ("pptx", "xlsx"):
        (tmp_path / f"locked.{ext}").write_bytes(ole)
        with pytest.raises(IngestError, match="password-protected"):
            read_path(tmp_path / f"locked.{ext}")
    data = (folder / "q2-board.pptx").read_bytes()
    (tmp_path / "cut.pptx").write_bytes(data[: len(data) // 2])
    with pytest.raises(IngestError, match=r"^cut.pptx: cannot read PPTX"):
        read_path(tmp_path / "cut.pptx")


def test_a_context_passes_progress_and_cancel_to_ocr(office_folder):
    from k2desk.errors import Cancelled
    from k2desk.progress import CancelToken

    folder, _ = office_folder
    cancel = CancelToken()
    cancel.cancel()
    with pytest.raises(Cancelled):
        read_path(folder / "whiteboard.jpg", ctx=ReadContext(ocr=lambda: None, cancel=cancel))
