"""The sources of an answer: document, score, and the passage highlighted in its document."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Callable, Optional, Sequence

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from k2desk.gui.widgets.page_view import PageView
from k2desk.types import Answer, Source

STOPWORDS = set("a an and are as at be by did do does for from has have how in is it of on or the to was were what "
                "when where which who whom whose why with".split())
CONTEXT_CHARS = 1500  # document text shown around a passage


def terms_of(question: str) -> list[str]:
    return sorted({w for w in re.findall(r"\w+", question.lower()) if len(w) > 2 and w not in STOPWORDS}, key=len, reverse=True)


def mark_terms(text: str, terms: Sequence[str]) -> str:
    """HTML-escape ``text`` and bold the question's terms in it."""
    if not terms:
        return html.escape(text)
    pattern = re.compile(r"\b(" + "|".join(re.escape(t) for t in terms) + r")\w*", re.IGNORECASE)
    out, last = [], 0
    for m in pattern.finditer(text):
        out.append(html.escape(text[last:m.start()]))
        out.append(f"<b style='color:#0b4bb3'>{html.escape(m.group(0))}</b>")
        last = m.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def locate(document_text: str, source: Source) -> Optional[tuple[int, int]]:
    """Where the passage is in the document's text (offsets, else a search), or None."""
    start, end = source.start_char, source.end_char
    if 0 <= start < end <= len(document_text) and document_text[start:end].strip()[:40] == source.text.strip()[:40]:
        return start, end
    probe = source.text.strip()[:80]
    found = document_text.find(probe) if probe else -1
    return (found, found + len(source.text.strip())) if found >= 0 else None


def passage_html(document_text: Optional[str], source: Source, terms: Sequence[str]) -> str:
    """The passage highlighted within its surroundings in the document (or alone)."""
    span = locate(document_text, source) if document_text else None
    if span is None:
        body = f"<span id='passage' style='background:#fff2a8'>{mark_terms(source.text, terms)}</span>"
        return f"<pre style='white-space:pre-wrap; font-family:sans-serif'>{body}</pre>"
    start, end = span
    lo, hi = max(0, start - CONTEXT_CHARS), min(len(document_text), end + CONTEXT_CHARS)
    before = ("… " if lo else "") + html.escape(document_text[lo:start])
    after = html.escape(document_text[end:hi]) + (" …" if hi < len(document_text) else "")
    passage = f"<a name='passage'></a><span style='background:#fff2a8'>{mark_terms(document_text[start:end], terms)}</span>"
    return (f"<pre style='white-space:pre-wrap; font-family:sans-serif; color:#555'>{before}"
            f"<span style='color:#000'>{passage}</span>{after}</pre>")


def source_label(source: Source) -> str:
    """How a source is named in a list: its title (else its file name), then its pages."""
    name = source.title or Path(source.document).name or source.document
    return f"{name}, {source.where()}" if source.where() else name


def not_in_documents(answer: Answer) -> bool:
    """Whether the answer says the documents do not hold one (its sources are then the closest passages)."""
    return answer.verdict.declined


def sources_heading(answer: Answer) -> str:
    """"Sources", or "Closest passages" when the documents did not support an answer."""
    return "Closest passages" if not_in_documents(answer) and answer.sources else "Sources"


def answer_summary(answer: Answer) -> str:
    """Time, LLM work and sources of an answer (after its caution, when the check was unsure of it,
    and why it was declined or cautioned), and, while indexing runs, what it could not read yet."""
    seconds = answer.timings.get("total", answer.timings.get("wall", 0.0))
    calls = answer.llm.calls
    n = len(answer.sources)
    sources = (f"{n} closest passage{'s' if n != 1 else ''}" if sources_heading(answer) == "Closest passages"
               else f"{n} source{'s' if n != 1 else ''}")
    line = (f"{seconds:.1f} s · {calls} LLM call{'s' if calls != 1 else ''} · "
            f"{answer.llm.prompt_tokens:,} + {answer.llm.completion_tokens:,} tokens · {sources}")
    line = f"Why: {answer.reason}.\n{line}" if answer.reason else line
    line = f"{answer.caution}\n{line}" if answer.caution else line
    return f"{line}\n{answer.coverage_note}" if answer.coverage_note else line


class SourcesPanel(QWidget):
    """``set_sources(sources, question)``; clicking a source shows it in its document."""

    def __init__(self, text_of: Callable[[str], Optional[str]],
                 meta_of: Callable[[str], Optional[dict]] = lambda key: None, parent=None) -> None:
        super().__init__(parent)
        self.text_of = text_of  # document key -> its extracted text (None if unknown)
        self.meta_of = meta_of  # document key -> its metadata (a PDF's page offsets)
        self.page_view: Optional[PageView] = None
        self.sources: list[Source] = []
        self.terms: list[str] = []
        self.list = QTreeWidget()
        self.list.setHeaderLabels(["#", "Document", "Score", "Passage"])
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        for col in (0, 1, 2):
            self.list.header().setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.list.currentItemChanged.connect(lambda item, _prev: self.show_source(self.list.indexOfTopLevelItem(item)))
        self.title = QLabel("")
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QPushButton("Open document")
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(self.open_current)
        self.viewer = QTextBrowser()
        self.viewer.setOpenLinks(False)
        viewer_box = QWidget()
        vl = QVBoxLayout(viewer_box)
        vl.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.open_button)
        vl.addLayout(head)
        vl.addWidget(self.viewer)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.list)
        split.addWidget(viewer_box)
        split.setSizes([140, 220])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)

    def clear(self) -> None:
        self.sources = []
        self.list.clear()
        self.viewer.clear()
        self.title.setText("")
        self.open_button.setEnabled(False)

    def set_sources(self, sources: Sequence[Source], question: str = "") -> None:
        self.clear()
        self.sources = list(sources)
        self.terms = terms_of(question)
        for i, s in enumerate(self.sources, 1):
            name = source_label(s)
            snippet = " ".join(s.text.split())[:140]
            item = QTreeWidgetItem([str(i), name, f"{s.score:.3f}", snippet])
            item.setToolTip(1, s.document)
            item.setToolTip(3, s.text[:1000])
            self.list.addTopLevelItem(item)
        if self.sources:
            self.list.setCurrentItem(self.list.topLevelItem(0))

    def show_source(self, index: int) -> None:
        if not 0 <= index < len(self.sources):
            return
        s = self.sources[index]
        try:
            text = self.text_of(s.document)
        except Exception:  # noqa: BLE001 - the passage alone is still worth showing
            text = None
        page = f"{html.escape(s.where())} · " if s.where() else ""
        self.title.setText(f"<b>{html.escape(Path(s.document).name or s.document)}</b> · {page}chunk {s.chunk_id} · "
                           f"score {s.score:.3f}")
        self.title.setToolTip(s.document)
        self.open_button.setEnabled(Path(s.document).is_file())
        self.open_button.setText(f"Open at page {PageView.first_page(s, self.terms, self.page_offsets(s))}" if s.page
                                 else "Open document")
        self.viewer.setHtml(passage_html(text, s, self.terms))
        self.viewer.scrollToAnchor("passage")

    def open_current(self) -> None:
        """A PDF passage opens in the app at its page, marked; anything else in the system viewer."""
        index = self.list.indexOfTopLevelItem(self.list.currentItem())
        if not (0 <= index < len(self.sources) and Path(self.sources[index].document).is_file()):
            return
        s = self.sources[index]
        if s.page:
            if self.page_view is not None:
                self.page_view.close()
            self.page_view = PageView(s, self.page_offsets(s), self.terms, self)
            self.page_view.show()
            return
        QDesktopServices.openUrl(QUrl.fromLocalFile(s.document))

    def page_offsets(self, source: Source) -> list[int]:
        try:
            return list((self.meta_of(source.document) or {}).get("page_offsets") or [])
        except Exception:  # noqa: BLE001 - without offsets the passage is searched on the page
            return []

    def documents(self) -> list[str]:
        return [s.document for s in self.sources]
