"""A hostile-input corpus, generated: every format damaged every way a real folder damages it.

``make_corpus(folder)`` writes 200+ files (good copies of the fixtures, truncations, bit flips,
wrong encodings, zip bombs, an encrypted PDF, a 200 MB text file, odd names, links that loop,
a FIFO, an unreadable file and folder) and returns what each one is, so a test can check that
every file is reported. Deterministic (seeded).
"""

from __future__ import annotations

import io
import json
import mailbox
import os
import random
import zipfile
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
BASES = {  # extension -> a good document of that format
    ".txt": FIXTURES / "mixed" / "lighthouse.txt",
    ".md": FIXTURES / "mixed" / "recipes.md",
    ".html": FIXTURES / "mixed" / "garden.html",
    ".pdf": FIXTURES / "mixed" / "report.pdf",
    ".docx": FIXTURES / "mixed" / "minutes.docx",
    ".epub": FIXTURES / "epub" / "book.epub",
    ".jsonl": FIXTURES / "corpus_small.jsonl",
}
BIG_TEXT_BYTES = 200 << 20
BOMB_BYTES = 512 << 20  # what a zip bomb's member inflates to


@dataclass
class Made:
    path: Path
    case: str
    good: bool = False  # a document that must end up indexed


def _write(folder: Path, name: str, data: bytes, case: str, made: list[Made], good: bool = False) -> Path:
    path = folder / name
    path.write_bytes(data)
    made.append(Made(path, case, good))
    return path


def _bomb_zip(members: dict[str, bytes], bomb_member: str) -> bytes:
    """A zip whose ``bomb_member`` inflates to BOMB_BYTES of zeros (compressed to ~0.5 MB)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        info = zipfile.ZipInfo(bomb_member)
        info.compress_type = zipfile.ZIP_DEFLATED
        with zf.open(info, "w", force_zip64=True) as out:
            block = b"\0" * (8 << 20)
            for _ in range(BOMB_BYTES // len(block)):
                out.write(block)
    return buf.getvalue()


def _zip_members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist()}


def _encrypted_pdf(data: bytes) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="RC4-128")  # no extra crypto library
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def make_corpus(folder: Path, seed: int = 7) -> list[Made]:
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    made: list[Made] = []
    bases = {ext: path.read_bytes() for ext, path in BASES.items()} | office_bases(folder / ".bases")
    for ext, data in bases.items():
        stem = ext[1:]
        for i in range(2):
            _write(folder, f"{stem}-good-{i}{ext}", data if i == 0 else data + b"\n" * (ext in (".txt", ".md")),
                   "good copy", made, good=True)
        for frac in (0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99):
            _write(folder, f"{stem}-truncated-{int(frac * 100):02d}{ext}", data[: max(1, int(len(data) * frac))],
                   f"truncated at {frac:.0%}", made)
        for i in range(12):
            flipped = bytearray(data)
            for _ in range(1 + i * 3):
                pos = rng.randrange(len(flipped))
                flipped[pos] ^= 1 << rng.randrange(8)
            _write(folder, f"{stem}-bitflip-{i}{ext}", bytes(flipped), f"{1 + i * 3} bits flipped", made)
        _write(folder, f"{stem}-empty{ext}", b"", "empty file", made)
        _write(folder, f"{stem}-random{ext}", rng.randbytes(4096), "random bytes", made)
        _write(folder, f"{stem}-header-only{ext}", data[:16], "first 16 bytes", made)
        _write(folder, f"{stem}-doubled{ext}", data + data, "the file twice over", made)

    text = BASES[".txt"].read_bytes().decode("utf-8")
    _write(folder, "enc-invalid-utf8.txt", text.encode() + b"\xff\xfe\xc3\x28 more \xe2\x82", "invalid UTF-8", made)
    _write(folder, "enc-utf16-le.txt", "\ufeff".encode("utf-16-le") + text.encode("utf-16-le"), "UTF-16 LE with BOM", made)
    _write(folder, "enc-utf16-be.txt", "\ufeff".encode("utf-16-be") + text.encode("utf-16-be"), "UTF-16 BE with BOM", made)
    _write(folder, "enc-utf16-nobom.txt", text.encode("utf-16-le"), "UTF-16 without BOM", made)
    _write(folder, "enc-latin1.txt", "Café crème, Müller, façade. ".encode("latin-1") * 20, "latin-1", made)
    _write(folder, "nul-bytes.txt", text.encode() + b"\0" * 64 + text.encode(), "NUL bytes", made)
    # one 5 MB line of 121-byte words (each a single [UNK] token, so it embeds in seconds)
    _write(folder, "long-line.txt", (b"lighthouse" * 12 + b" ") * ((5 << 20) // 121), "a 5 MB line", made)
    _write(folder, "long-word.txt", b"x" * (1 << 20), "a 1 MB word", made)
    _write(folder, "whitespace.txt", b" \n\t\r\n" * 1000, "only whitespace", made)
    _write(folder, "controls.txt", bytes(range(1, 32)) * 200, "control characters", made)
    _write(folder, "crlf-mixed.txt", text.replace("\n", "\r\n").encode() + b"\rold mac\r", "mixed line endings", made)
    _write(folder, "emoji-rtl.md", "# 🚀 عنوان\n\nשלום עולם ✨ — naïve façade 你好\n".encode() * 50, "emoji and RTL", made, good=True)
    _write(folder, "deep.html", b"<div>" * 100_000 + b"deep text" + b"</div>" * 100_000, "100k-deep HTML", made)
    _write(folder, "unclosed.html", b"<html><body><p>unclosed <b>bold <i>italic <table><tr><td>cell", "unclosed tags", made)
    _write(folder, "script-only.html", b"<html><script>" + b"var a=1;" * 10_000 + b"</script></html>", "script only", made)
    _write(folder, "huge-attribute.html", b'<p title="' + b"a" * (4 << 20) + b'">text</p>', "a 4 MB attribute", made)
    _write(folder, "entities.html", b"<!DOCTYPE x [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;&a;'>]><p>&b;&b;&b;</p>",
           "entity declarations", made)
    _write(folder, "encrypted.pdf", _encrypted_pdf(BASES[".pdf"].read_bytes()), "encrypted PDF (user password)", made)
    _write(folder, "not-a-pdf.pdf", b"%PDF-1.7\n" + b"garbage " * 500, "PDF header, no PDF", made)
    docx = _zip_members(BASES[".docx"].read_bytes())
    _write(folder, "bomb.docx", _bomb_zip({k: v for k, v in docx.items() if k != "word/document.xml"}, "word/document.xml"),
           "DOCX zip bomb", made)
    _write(folder, "no-document.docx", _zip_with({k: v for k, v in docx.items() if k != "word/document.xml"}),
           "DOCX without its document part", made)
    epub = _zip_members(BASES[".epub"].read_bytes())
    chapter = next(k for k in epub if k.endswith((".xhtml", ".html")))
    _write(folder, "bomb.epub", _bomb_zip({k: v for k, v in epub.items() if k != chapter}, chapter), "EPUB zip bomb", made)
    _write(folder, "no-container.epub", _zip_with({k: v for k, v in epub.items() if k != "META-INF/container.xml"}),
           "EPUB without container.xml", made)
    corpus_line = BASES[".jsonl"].read_text(encoding="utf-8").splitlines()[0]
    _write(folder, "broken-lines.jsonl", f"{corpus_line}\n{{not json\n[1, 2]\n\n{corpus_line[:40]}\n".encode(),
           "corpus with malformed lines", made)
    _write(folder, "long-record.jsonl", json.dumps({"title": "long", "body": ("lighthouse" * 12 + " ") * 40_000, "url": "u"}).encode(),
           "a 5 MB record", made)
    for name in ("'; DROP TABLE documents; --.txt", "名前 with spaces.txt", "new\nline.txt", "100% _under_.txt"):
        _write(folder, name, f"A note filed as {name!r}: the harbour office opens at nine.".encode(), "odd file name",
               made, good=True)

    person_folder_cases(folder, made, bases)

    big = folder / "big-200mb.txt"
    line = b"The lighthouse keeper logged the weather at dawn and again at dusk.\n"
    with open(big, "wb") as f:
        block = line * ((1 << 20) // len(line))
        for _ in range(BIG_TEXT_BYTES // len(block) + 1):
            f.write(block)
    made.append(Made(big, "a 200 MB text file"))
    (folder / "loop-a.txt").symlink_to(folder / "loop-b.txt")
    (folder / "loop-b.txt").symlink_to(folder / "loop-a.txt")
    made += [Made(folder / "loop-a.txt", "symlink loop"), Made(folder / "loop-b.txt", "symlink loop")]
    (folder / "dangling.pdf").symlink_to(folder / "nowhere.pdf")
    made.append(Made(folder / "dangling.pdf", "broken link"))
    os.mkfifo(folder / "fifo.txt")
    made.append(Made(folder / "fifo.txt", "FIFO"))
    locked = _write(folder, "unreadable.txt", b"secret text nobody may read", "unreadable file", made)
    locked.chmod(0)
    closed = folder / "closed-folder"
    closed.mkdir()
    (closed / "inside.txt").write_bytes(b"never seen")
    closed.chmod(0)
    made.append(Made(closed, "unreadable folder"))
    return made


def office_bases(work: Path) -> dict[str, bytes]:
    """A good file of each office kind the damage loop takes (pictures are left out: each copy
    would be read by OCR)."""
    from tests.ingest import office_folder as office

    work.mkdir(parents=True, exist_ok=True)
    office.slides(work / "b.pptx")
    office.workbook(work / "b.xlsx")
    office.safety_odt(work / "b.odt")
    out = {ext: (work / f"b{ext}").read_bytes() for ext in (".pptx", ".xlsx", ".odt")}
    for f in work.iterdir():
        f.unlink()
    work.rmdir()
    out[".csv"] = b"Town,Carrier,Delivery day\nHarrowgate,Northline Freight,Tuesday\nOstby,Gull Coast Haulage,Thursday\n"
    out[".rtf"] = office.OFFER_RTF.encode("ascii")
    out[".eml"] = office.complaint_eml()
    return out


def _png_header(width: int, height: int) -> bytes:
    """A PNG that declares ``width`` × ``height`` pixels and holds a few rows: a decompression bomb's header."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0" * 4096)) + chunk(b"IEND", b""))


def _million_formatted_rows(xlsx: bytes) -> bytes:
    """The workbook with a million empty but formatted rows appended to its first sheet (~90 MiB of XML)."""
    members = _zip_members(xlsx)
    sheet = members["xl/worksheets/sheet1.xml"].decode()
    rows = "".join(f'<row r="{n}" s="1" customFormat="1"><c r="A{n}" s="1"/><c r="B{n}" s="1"/></row>' for n in range(7, 1_000_001))
    at = sheet.index("</sheetData>")
    members["xl/worksheets/sheet1.xml"] = (sheet[:at] + rows + sheet[at:]).encode()
    return _zip_with(members)


def _broken_mime_with_big_attachment() -> bytes:
    """A message whose 30 MB base64 attachment is cut off, with no closing boundary and stray bytes."""
    import base64

    payload = base64.encodebytes(random.Random(5).randbytes(22 << 20))
    return (b"From: someone@example.org\r\nSubject: Scans of the site\r\nMIME-Version: 1.0\r\n"
            b'Content-Type: multipart/mixed; boundary="XYZ"\r\n\r\n--XYZ\r\nContent-Type: text/plain\r\n\r\n'
            b"The site photos are attached.\r\n--XYZ\r\nContent-Type: application/pdf; name=site.pdf\r\n"
            b"Content-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=site.pdf\r\n\r\n"
            + payload + b"%%%\xff\xfe not base64 \x00")


def person_folder_cases(folder: Path, made: list[Made], bases: dict[str, bytes]) -> None:
    """The files of a person's folder, damaged: pictures, slides, sheets, OpenDocument, RTF and mail."""
    from tests.ingest import office_folder as office

    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(8192)  # how Office stores a password-protected file
    photo = office.whiteboard_photo(office.WHITEBOARD)
    _write(folder, "image-bomb.png", _png_header(50_000, 50_000), "a 50,000 x 50,000 PNG", made)
    _write(folder, "image-wide.webp", _png_header(200_000, 400), "a PNG named .webp, 80 Mpx", made)
    _write(folder, "photo-good.jpg", photo, "a photo of a whiteboard", made, good=True)
    _write(folder, "photo-truncated.jpg", photo[: len(photo) // 3], "a photo cut at a third", made)
    _write(folder, "photo-random.png", random.Random(11).randbytes(8192), "random bytes as PNG", made)
    _write(folder, "photo-empty.tif", b"", "an empty TIFF", made)
    _write(folder, "photo-text.bmp", b"BM this is not a bitmap at all", "text named .bmp", made)
    _write(folder, "scan-blank.pdf", office.scanned_pdf([""]), "a scanned blank page", made)
    for kind in ("xlsx", "pptx", "docx"):
        _write(folder, f"locked.{kind}", ole, f"password-protected {kind.upper()}", made)
    pptx = bases[".pptx"]
    for frac in (0.05, 0.5, 0.95):
        _write(folder, f"slides-cut-{int(frac * 100):02d}.pptx", pptx[: int(len(pptx) * frac)], f"PPTX truncated at {frac:.0%}", made)
    pptx_members = _zip_members(pptx)
    slide = next(k for k in pptx_members if k.startswith("ppt/slides/slide"))
    _write(folder, "slides-bomb.pptx", _bomb_zip({k: v for k, v in pptx_members.items() if k != slide}, slide), "PPTX zip bomb", made)
    xlsx_members = _zip_members(bases[".xlsx"])
    _write(folder, "sheet-bomb.xlsx", _bomb_zip({k: v for k, v in xlsx_members.items() if k != "xl/sharedStrings.xml"},
                                                "xl/sharedStrings.xml"), "XLSX zip bomb (shared strings)", made)
    _write(folder, "sheet-million-formatted-rows.xlsx", _million_formatted_rows(bases[".xlsx"]),
           "a million empty formatted rows", made, good=True)
    odt_members = _zip_members(bases[".odt"])
    _write(folder, "rules-no-content.odt", _zip_with({k: v for k, v in odt_members.items() if k != "content.xml"}),
           "ODT without content.xml", made)
    _write(folder, "rules-bomb.odt", _bomb_zip({k: v for k, v in odt_members.items() if k != "content.xml"}, "content.xml"),
           "ODT zip bomb", made)
    _write(folder, "letter-unbalanced.rtf", office.OFFER_RTF.encode()[:-40], "RTF with unbalanced braces", made, good=True)
    _write(folder, "letter-binary.rtf", b"{\\rtf1 " + random.Random(2).randbytes(4096), "RTF with binary garbage", made)
    _write(folder, "table-nul.csv", b"a,b\n1,\x00\x00\x002\n" * 100, "CSV with NUL bytes", made)
    _write(folder, "table-one-field.csv", b'"' + b"x" * (5 << 20) + b'"\n', "CSV with a 5 MB field", made)
    _write(folder, "mail-broken-mime.eml", _broken_mime_with_big_attachment(), "30 MB attachment, broken MIME", made, good=True)
    _write(folder, "mail-junk.eml", random.Random(3).randbytes(2048), "random bytes as EML", made)
    _write(folder, "mail-charset.eml", b"Subject: =?x-unknown?q?Caf=E9?=\nContent-Type: text/plain; charset=x-unknown\n\n"
           b"The caf\xe9 order is confirmed.\n", "EML with an unknown charset", made, good=True)
    box = mailbox.mbox(str(folder / "mail-10000.mbox"))
    box.lock()
    for n in range(10_000):
        msg = EmailMessage()
        msg["From"], msg["Subject"] = f"sender{n % 37}@example.org", f"Ticket {n}"
        msg.set_content(f"Ticket {n} is closed.")
        box.add(msg)
    box.flush()
    box.unlock()
    box.close()
    made.append(Made(folder / "mail-10000.mbox", "an mbox of 10,000 messages", good=True))
    _write(folder, "mail-empty.mbox", b"", "an empty mbox", made)


def _zip_with(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()
