"""A cited PDF page, rendered in the app with the passage marked (pypdfium2, already the PDF reader).

The passage's place on the page comes from the chunk's character offsets: the PDF reader stored
where each page's text starts (``page_offsets``), and the page's text is PDFium's, so the chunk's
first characters index PDFium's characters directly; where they do not match (the pypdf fallback
read the file), the passage's first words are searched on the page instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from PySide6.QtCore import QRectF, Qt, QUrl
from PySide6.QtGui import QColor, QDesktopServices, QImage, QPainter, QPixmap
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QScrollArea, QVBoxLayout

from k2desk.types import Source

SCALE = 1.5  # pixels per PDF point: a page of 595 × 842 points renders 893 × 1263


def passage_rects(textpage, page_text: str, offset: int, passage: str) -> list[tuple[float, float, float, float]]:
    """(left, bottom, right, top) boxes in PDF points of the passage on this page."""
    probe = " ".join(passage.split())[:60]
    start = offset if 0 <= offset < len(page_text) and " ".join(page_text[offset:].split())[:20] == probe[:20] else -1
    count = len(passage) + passage.count("\n")  # PDFium ends lines with "\r\n"; the stored text with "\n"
    if start < 0:  # search the first words (PDFium normalizes spaces, not line breaks)
        searcher = textpage.search(" ".join(probe.split()[:6]), match_case=False)
        found = searcher.get_next()
        if not found:
            return []
        start = found[0]
    count = max(1, min(count, len(page_text) - start))
    return [textpage.get_rect(i) for i in range(textpage.count_rects(start, count))]


def render_page(path: str | Path, page: int, passage: str = "", offset: int = -1) -> tuple[QImage, int]:
    """The page (1-based) as an image with the passage's lines marked; returns (image, boxes marked)."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    try:
        pg = pdf[page - 1]
        width, height = pg.get_size()
        pixels = pg.render(scale=SCALE, rev_byteorder=True).to_numpy()  # RGB rows
        image = QImage(pixels.data, pixels.shape[1], pixels.shape[0], pixels.strides[0], QImage.Format.Format_RGB888).copy()
        rects: list[tuple[float, float, float, float]] = []
        if passage:
            textpage = pg.get_textpage()
            rects = passage_rects(textpage, textpage.get_text_range(), offset, passage)
            textpage.close()
        pg.close()
    finally:
        pdf.close()
    painter = QPainter(image)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(255, 214, 0, 90))
    for left, bottom, right, top in rects:
        painter.drawRect(QRectF(left * SCALE, (height - top) * SCALE, (right - left) * SCALE, (top - bottom) * SCALE))
    painter.end()
    return image, len(rects)


def portions(source: Source, offsets: Sequence[int]) -> dict[int, tuple[int, str]]:
    """page -> (where the passage's part on that page starts in the page's text, or -1 when
    unknown; that part's text), for each page the passage covers."""
    out: dict[int, tuple[int, str]] = {}
    for page in range(source.page, max(source.page, source.last_page) + 1):
        if len(offsets) >= page:
            begin = offsets[page - 1]
            end = offsets[page] if len(offsets) > page else source.end_char
            lo, hi = max(source.start_char, begin), min(source.end_char, max(end, begin))
            part = source.text[lo - source.start_char:hi - source.start_char]
            out[page] = (lo - begin, part or source.text)
        else:
            out[page] = (-1, source.text)
    return out


class PageView(QDialog):
    """One PDF at a cited page; Previous / Next page, and the system viewer for the whole file."""

    def __init__(self, source: Source, offsets: Sequence[int] = (), terms: Sequence[str] = (), parent=None) -> None:
        super().__init__(parent)
        self.source = source
        self.path = Path(source.document)
        self.parts = portions(source, offsets)  # the passage's part on each page it covers
        self.page = self.first_page(source, terms, offsets)
        self.marked = 0
        import pypdfium2 as pdfium

        pdf = pdfium.PdfDocument(str(self.path))
        self.pages = len(pdf)
        pdf.close()
        self.image = QLabel()
        self.image.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        scroll = QScrollArea()
        scroll.setWidget(self.image)
        scroll.setWidgetResizable(True)
        self.caption = QLabel()
        self.previous = QPushButton("◀ Previous page")
        self.previous.clicked.connect(lambda: self.show_page(self.page - 1))
        self.next = QPushButton("Next page ▶")
        self.next.clicked.connect(lambda: self.show_page(self.page + 1))
        system = QPushButton("Open in the system viewer")
        system.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.path))))
        row = QHBoxLayout()
        row.addWidget(self.caption, 1)
        row.addWidget(self.previous)
        row.addWidget(self.next)
        row.addWidget(system)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(scroll, 1)
        self.resize(980, 900)
        self.show_page(self.page)

    @staticmethod
    def first_page(source: Source, terms: Sequence[str], offsets: Sequence[int] = ()) -> int:
        """Of the pages a passage covers, the one where the question's terms are (the first on a tie)."""
        parts = portions(source, offsets)
        if len(parts) < 2 or not terms:
            return source.page

        def hits(text: str) -> int:
            low = text.lower()
            return sum(low.count(t.lower()) for t in terms)
        return max(parts, key=lambda page: (hits(parts[page][1]), -page))

    def show_page(self, page: int) -> None:
        self.page = max(1, min(self.pages, page))
        offset, part = self.parts.get(self.page, (-1, ""))
        image, self.marked = render_page(self.path, self.page, part, offset)
        self.image.setPixmap(QPixmap.fromImage(image))
        self.setWindowTitle(f"{self.path.name} — page {self.page} of {self.pages}")
        self.caption.setText(f"<b>{self.path.name}</b> · page {self.page} of {self.pages}"
                             + (" · the cited passage is marked" if self.marked else ""))
        self.previous.setEnabled(self.page > 1)
        self.next.setEnabled(self.page < self.pages)
