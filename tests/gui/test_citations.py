"""Page citations: a PDF passage is cited with its page, and a click opens the page in the app with
the passage marked (the real engine, offscreen)."""

from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from k2desk.gui.widgets.page_view import PageView  # noqa: E402
from tests.fixtures.make_fixtures import pdf_bytes  # noqa: E402
from tests.gui.test_main_window import WAIT_MS  # noqa: E402

pytestmark = pytest.mark.gui

FILLER = ("harbour ledger orchard violin granite meadow lantern falcon copper willow thunder saffron compass "
          "glacier pepper canyon ember juniper marble quartz").split()
FACT = "The Vellmoor observatory was rebuilt in 1987 by the engineer Ottilie Brandt."


def page_lines(page: int, fact: bool = False) -> list[str]:
    lines = [" ".join(FILLER[(page * 5 + line + j) % len(FILLER)] for j in range(12)) + "." for line in range(40)]
    if fact:
        lines[20] = FACT
    return lines


@pytest.fixture
def pdf(tmp_path) -> Path:
    folder = tmp_path / "papers"
    folder.mkdir()
    path = folder / "survey.pdf"
    path.write_bytes(pdf_bytes([page_lines(1), page_lines(2), page_lines(3, fact=True), page_lines(4)]))
    return path


def test_a_pdf_passage_is_cited_with_its_page_and_opens_there_marked(qtbot, settings, pdf, indexed_window):
    import pypdfium2 as pdfium

    win = indexed_window(replace(settings, top_k=3, max_answer_tokens=16), [pdf.parent])
    try:
        panel = win.ask_panel
        panel.method.setCurrentIndex(panel.method.findData("keyword"))
        panel.question.setText("Who rebuilt the Vellmoor observatory?")
        qtbot.mouseClick(panel.ask_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: win.ask_job is None, timeout=WAIT_MS)
        top = win.last_answer.sources[0]
        assert "Vellmoor" in top.text and top.page == 3
        assert win.last_answer.to_json()["sources"][0]["page"] == 3
        doc = pdfium.PdfDocument(str(pdf))  # the page really holds the passage's first words
        assert " ".join(top.text.split()[:6]) in " ".join(doc[2].get_textpage().get_text_range().split())
        doc.close()
        assert panel.sources.list.topLevelItem(0).text(1) == "survey, p. 3"  # the title, then the page
        assert "· p. 3 ·" in panel.sources.title.text()
        assert panel.sources.open_button.text() == "Open at page 3"
        qtbot.mouseClick(panel.sources.open_button, Qt.MouseButton.LeftButton)
        view = panel.sources.page_view
        assert isinstance(view, PageView) and view.isVisible()
        assert view.page == 3 and view.windowTitle() == "survey.pdf — page 3 of 4"
        assert view.marked >= 1 and "the cited passage is marked" in view.caption.text()
        assert not view.image.pixmap().isNull() and view.image.pixmap().width() > 800
        qtbot.mouseClick(view.next, Qt.MouseButton.LeftButton)
        assert view.page == 4 and view.marked == 0 and not view.next.isEnabled()
        view.close()
    finally:
        win.close()


def test_a_passage_over_a_page_break_is_cited_with_both_pages_and_opens_where_its_terms_are(qtbot, tmp_path):
    from k2desk.ingest.readers import read_path
    from k2desk.methods.base import Source

    path = tmp_path / "survey.pdf"
    path.write_bytes(pdf_bytes([page_lines(1), page_lines(2), [FACT] + page_lines(3)[1:]]))
    doc = read_path(path)[0]
    offsets = doc.meta["page_offsets"]
    start = doc.text.index("compass", offsets[1] + 1500)  # near the end of page 2
    end = doc.text.index("Brandt.") + len("Brandt.")  # the fact opens page 3
    source = Source(str(path), 1, 1.0, doc.text[start:end], "survey", start, end, page=2, last_page=3)
    assert source.pages() == "pp. 2–3" and source.to_json()["last_page"] == 3
    assert PageView.first_page(source, ["vellmoor", "observatory"], offsets) == 3
    assert PageView.first_page(source, ["harbour"], offsets) == 2  # the terms decide; a tie: the first page
    view = PageView(source, offsets, ["vellmoor", "observatory"])
    qtbot.addWidget(view)
    assert view.page == 3 and view.marked >= 1
    qtbot.mouseClick(view.previous, Qt.MouseButton.LeftButton)
    assert view.page == 2 and view.marked >= 1  # the passage's start, marked on its own page
    qtbot.mouseClick(view.previous, Qt.MouseButton.LeftButton)
    assert view.page == 1 and view.marked == 0
