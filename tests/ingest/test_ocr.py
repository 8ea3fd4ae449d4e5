"""OCR of scans and pictures with the real engine and models (PP-OCRv6 through rapidocr): the
office folder's 150-dpi scan read to ≥ 97 % of its characters, pages cited, mixed PDFs, the page
cache that makes cancel, kill and re-runs cheap, and pictures too large to decode."""

from __future__ import annotations

import io

import pytest
from rapidfuzz.distance import Levenshtein

from k2desk.errors import Cancelled, IngestError
from k2desk.ingest import read_path
from k2desk.ingest.document import ReadContext
from k2desk.ingest.locations import location
from k2desk.ingest.ocr import OcrCache, layout
from k2desk.progress import CancelToken
from tests.ingest.hostile import _png_header
from tests.ingest.office_folder import CONTRACT_PAGES, WHITEBOARD, scanned_pdf


def _accuracy(got: str, gold: str) -> float:
    a, b = " ".join(got.split()), " ".join(gold.split())
    return 1 - Levenshtein.distance(a, b) / len(b)


def test_a_150_dpi_scan_is_read_to_97_percent_of_its_characters_and_cited_by_page(office_folder, ocr_engine, tmp_path):
    folder, _ = office_folder
    (doc,) = read_path(folder / "supply-agreement-scan.pdf", ctx=ReadContext(ocr=lambda: ocr_engine))
    assert doc.meta["reading"] == "OCR" and doc.meta["ocr_pages"] == 2 and doc.meta["ocr_confidence"] > 0.9
    pages = [doc.text[a:b] for a, b in zip(doc.meta["page_offsets"], doc.meta["page_offsets"][1:] + [len(doc.text)])]
    for got, gold in zip(pages, CONTRACT_PAGES):
        assert _accuracy(got, gold) >= 0.97, (got, gold)
    start = doc.text.index("Anders Vik")
    assert location(doc.meta, start, start + 10) == "p. 2"


def test_a_photo_of_a_whiteboard(office_folder, ocr_engine):
    folder, _ = office_folder
    (doc,) = read_path(folder / "whiteboard.jpg", ctx=ReadContext(ocr=lambda: ocr_engine))
    assert doc.kind == "image" and doc.meta["reading"] == "OCR"
    assert "Kiln repair" in doc.text and "Tobias Wren" in doc.text
    assert _accuracy(doc.text, "\n".join(WHITEBOARD)) >= 0.9


def test_a_mixed_pdf_reads_only_its_scanned_page_by_ocr(ocr_engine, tmp_path):
    from pypdf import PdfReader, PdfWriter

    from tests.ingest.hostile import FIXTURES

    writer = PdfWriter()
    for src in (FIXTURES / "mixed" / "report.pdf", io.BytesIO(scanned_pdf(CONTRACT_PAGES[1:]))):
        for page in PdfReader(src).pages:
            writer.add_page(page)
    writer.write(tmp_path / "mixed.pdf")
    n_text = len(PdfReader(FIXTURES / "mixed" / "report.pdf").pages)
    (doc,) = read_path(tmp_path / "mixed.pdf", ctx=ReadContext(ocr=lambda: ocr_engine))
    assert doc.meta["reading"] == "text layer + OCR" and doc.meta["ocr_pages"] == 1
    start = doc.text.index("Anders Vik")
    assert location(doc.meta, start, start + 10) == f"p. {n_text + 1}"


class Counting:
    def __init__(self, engine):
        self.engine, self.pages = engine, 0

    def read(self, image):
        self.pages += 1
        return self.engine.read(image)


def test_a_cancelled_read_resumes_at_the_page_it_stopped_and_an_unchanged_file_is_not_read_again(ocr_engine, tmp_path):
    (tmp_path / "scan.pdf").write_bytes(scanned_pdf([f"Page {n} of the minutes. Item {n} was agreed." for n in range(1, 5)]))
    cache, cancel, counting = OcrCache(tmp_path / "cache"), CancelToken(), Counting(ocr_engine)

    def stop_after_two(stage, done, total):
        if stage == "ocr" and done == 2:
            cancel.cancel()

    with pytest.raises(Cancelled):
        read_path(tmp_path / "scan.pdf", ctx=ReadContext(ocr=lambda: counting, cache=cache, progress=stop_after_two, cancel=cancel))
    assert counting.pages == 2
    (doc,) = read_path(tmp_path / "scan.pdf", ctx=ReadContext(ocr=lambda: counting, cache=cache))
    assert counting.pages == 4 and doc.meta["ocr_pages"] == 4 and doc.meta["ocr_pages_read"] == 2  # pages 3 and 4 only
    assert "Item 4 was agreed" in doc.text
    (again,) = read_path(tmp_path / "scan.pdf", ctx=ReadContext(ocr=lambda: pytest.fail("read again"), cache=cache))
    assert again.text == doc.text and again.meta["ocr_pages_read"] == 0


def test_a_torn_cache_line_is_ignored(tmp_path):
    from k2desk.ingest.ocr import OcrPage

    cache = OcrCache(tmp_path)
    cache.add("abc", 0, OcrPage("first", 0.9))
    with open(tmp_path / "abc.jsonl", "a", encoding="utf-8") as f:
        f.write('{"page": 1, "text": "sec')  # killed while writing
    assert cache.pages("abc") == {0: OcrPage("first", 0.9)}


def test_a_decompression_bomb_is_refused_before_it_is_decoded(tmp_path):
    (tmp_path / "bomb.png").write_bytes(_png_header(50_000, 50_000))
    with pytest.raises(IngestError, match=r"^bomb.png: image too large to read by OCR \(50,000 × 50,000 pixels"):
        read_path(tmp_path / "bomb.png", ctx=ReadContext(ocr=lambda: pytest.fail("decoded")))


def test_layout_orders_boxes_into_lines_and_paragraphs():
    def box(x, y, w=100, h=20):
        return [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]

    boxes = [box(300, 102), box(10, 100), box(10, 124), box(10, 200)]
    assert layout(boxes, ["right", "left", "next", "far below"]) == "left right\nnext\n\nfar below"
