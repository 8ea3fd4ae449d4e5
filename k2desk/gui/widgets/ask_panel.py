"""The “Ask” tab: a conversation — earlier turns above, the question, method, the answer streamed
as it is generated, what a follow-up was understood as, sources and trace; the conversations
listed beside it."""

from __future__ import annotations

import html
from typing import Callable, Optional, Sequence

from PySide6.QtCore import QEvent, QObject, Qt, Signal, Slot
from PySide6.QtGui import QFont, QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from k2desk.gui.widgets.conversations import ConversationList
from k2desk.gui.widgets.documents import scope_names
from k2desk.gui.widgets.sources import SourcesPanel, answer_summary, not_in_documents, sources_heading
from k2desk.gui.widgets.trace import TracePanel
from k2desk.methods.registry import describe
from k2desk.store.history import HistoryEntry
from k2desk.types import Answer

UNAVAILABLE = " (not available)"
WHOLE = "Ask a question about this collection's documents…"


def answer_html(text: str, muted: bool = False) -> str:
    """The answer as paragraphs: a multi-line answer (a collection overview, one line per part of a
    question) keeps its lines, long ones wrap, and a "•" line wraps under its own text; ``muted``
    (a "not in your documents") in a quieter colour."""
    out = ["<div style='color:#7a4f00'>"] if muted else []
    for line in text.split("\n"):
        body = html.escape(line.strip())
        if not body:
            continue
        if body.startswith("•"):
            out.append(f"<p style='margin-top:3px; margin-bottom:3px; margin-left:16px; text-indent:-12px'>{body}</p>")
        else:
            out.append(f"<p style='margin-top:3px; margin-bottom:3px'>{body}</p>")
    return "".join(out + (["</div>"] if muted else []))


class ScopeBar(QFrame):
    """"Asking about: a, b  [Whole collection]" above the question box while a scope is set."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("scopeBar")
        self.setStyleSheet("QFrame#scopeBar { background: #e8f0fe; border: 1px solid #9db8ec; border-radius: 6px; }")
        self.label = QLabel("")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.clear_button = QPushButton("Whole collection")
        self.clear_button.setToolTip("Ask about every document of the collection again")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.clear_button)
        self.hide()


def turn_html(asked: str, understood: str, answer: str, muted: bool = False) -> str:
    """One earlier turn of the conversation: what was typed, what it was understood as, the answer."""
    out = [f"<p style='margin-top:8px; margin-bottom:2px'><b>You:</b> {html.escape(asked)}</p>"]
    if understood:
        out.append(f"<p style='margin:0; color:#5b6775'><i>Understood as: {html.escape(understood)}</i></p>")
    out.append(answer_html(answer.strip() or "(no answer)", muted=muted))
    return "".join(out)


def _boxed(title: str, widget: QWidget) -> QGroupBox:
    box = QGroupBox(title)
    layout = QVBoxLayout(box)
    layout.setContentsMargins(6, 6, 6, 6)
    layout.addWidget(widget)
    return box


class AskPanel(QWidget):
    ask_requested = Signal(str, str)  # question, method (asked about ``scope``)
    stop_requested = Signal()
    scope_changed = Signal(list)  # the document keys asked about ([]: the whole collection)

    def __init__(self, methods: Sequence[str], default: str, text_of: Callable[[str], Optional[str]],
                 meta_of: Callable[[str], Optional[dict]] = lambda key: None, parent=None) -> None:
        super().__init__(parent)
        self.scope: list[str] = []  # the documents questions are asked about ([]: the whole collection)
        self.scope_bar = ScopeBar()
        self.scope_bar.clear_button.clicked.connect(lambda: self.set_scope([]))
        self.question = QLineEdit()
        self.question.setPlaceholderText(WHOLE)
        self.question.returnPressed.connect(self.request)
        self.method = QComboBox()
        for name in methods:
            self.method.addItem(name, name)
            self.method.setItemData(self.method.count() - 1, describe(name), Qt.ItemDataRole.ToolTipRole)
        self.method.setCurrentIndex(max(0, self.method.findData(default)))
        self.method.setToolTip("Retrieval method (K²RAG by default); a conversation keeps the one it is asked with")
        self.ask_button = QPushButton("Ask")
        self.ask_button.setDefault(True)
        self.ask_button.clicked.connect(self.request)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop_requested)
        row = QHBoxLayout()
        row.addWidget(self.question, 1)
        row.addWidget(QLabel("Method"))
        row.addWidget(self.method)
        row.addWidget(self.ask_button)
        row.addWidget(self.stop_button)

        self.transcript = QTextBrowser()  # the conversation's earlier turns
        self.transcript.setPlaceholderText("The conversation's earlier questions and answers appear here.")
        self.understood = QLabel("")  # what a follow-up was understood as
        self.understood.setTextFormat(Qt.TextFormat.PlainText)
        self.understood.setWordWrap(True)
        self.understood.setStyleSheet("color: #5b6775; font-style: italic;")
        self.understood.hide()
        self.answer = QTextBrowser()
        font = QFont(self.answer.font())
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.answer.setFont(font)
        self.answer.setPlaceholderText("The answer appears here as it is generated.")
        self.meta = QLabel("")
        self.meta.setStyleSheet("color: #5b6775;")
        self.asked_about = QLabel("")  # the documents this answer was asked about (hidden: the collection)
        self.asked_about.setTextFormat(Qt.TextFormat.PlainText)
        self.asked_about.setWordWrap(True)
        self.asked_about.setStyleSheet("color: #1f4e9c;")
        self.asked_about.hide()
        answer_box = QWidget()
        al = QVBoxLayout(answer_box)
        al.setContentsMargins(0, 0, 0, 0)
        al.addWidget(self.asked_about)
        al.addWidget(self.understood)
        al.addWidget(self.answer, 1)
        al.addWidget(self.meta)

        self.sources = SourcesPanel(text_of, meta_of)
        self.trace = TracePanel()
        bottom = QSplitter(Qt.Orientation.Horizontal)
        self.sources_box = _boxed("Sources", self.sources)  # "Closest passages" for a "not in your documents"
        bottom.addWidget(self.sources_box)
        bottom.addWidget(_boxed("How this answer was found", self.trace))
        bottom.setSizes([520, 480])
        split = QSplitter(Qt.Orientation.Vertical)
        self.transcript_box = _boxed("Conversation", self.transcript)
        self.transcript_box.hide()
        split.addWidget(self.transcript_box)
        split.addWidget(_boxed("Answer", answer_box))
        split.addWidget(bottom)
        split.setSizes([150, 170, 380])
        main = QWidget()
        layout = QVBoxLayout(main)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.scope_bar)
        layout.addLayout(row)
        layout.addWidget(split, 1)
        self.conversations = ConversationList()
        self.conversations.new_requested.connect(self.new_conversation)
        sides = QSplitter(Qt.Orientation.Horizontal)
        sides.addWidget(self.conversations)
        sides.addWidget(main)
        sides.setStretchFactor(1, 1)
        sides.setSizes([210, 900])
        outer = QVBoxLayout(self)
        outer.addWidget(sides)
        self.streamed = ""
        self.thread: Optional[int] = None  # the conversation asked in (None: the next question starts one)
        self.turns: list[tuple[str, str, str, bool]] = []  # earlier turns: asked, understood as, answer, declined
        self.current: Optional[tuple[str, str, str, bool]] = None  # the turn shown in the answer box
        self.asked: list[str] = []  # what was typed, for Up
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, activated=self._escape)
        QShortcut(QKeySequence("Ctrl+N"), self, activated=self.new_conversation)
        self.question.installEventFilter(self)

    # -- scope -------------------------------------------------------------------------
    def set_scope(self, keys: Sequence[str]) -> None:
        """Ask about the documents ``keys`` from now on ([]: the whole collection again)."""
        keys = list(dict.fromkeys(keys))
        changed = keys != self.scope
        self.scope = keys
        self.scope_bar.label.setText(f"Asking about: {scope_names(keys)}" if keys else "")
        self.scope_bar.label.setToolTip("\n".join(keys))
        self.scope_bar.setVisible(bool(keys))
        n = len(keys)
        self.question.setPlaceholderText(WHOLE if not keys else
                                         f"Ask a question about the {'document' if n == 1 else f'{n} documents'} above…")
        if changed:
            self.scope_changed.emit(list(keys))

    def keep_scope(self, present: set[str]) -> None:
        """Only the documents of the scope still in ``present`` (the others were removed)."""
        if self.scope and not set(self.scope) <= present:
            self.set_scope([k for k in self.scope if k in present])

    def _show_asked_about(self, keys: Sequence[str]) -> None:
        self.asked_about.setText(f"Asked about: {scope_names(keys)}" if keys else "")
        self.asked_about.setToolTip("\n".join(keys))
        self.asked_about.setVisible(bool(keys))

    # -- the conversation -------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        """Up in the question box recalls the last question typed (again: the one before); Esc
        there stops the answer being written."""
        if watched is self.question and event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Escape \
                and self.stop_button.isEnabled():
            self.stop_requested.emit()
            return True
        if watched is self.question and event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Up and self.asked:
            text = self.question.text()
            earlier = [q for q in self.asked if q != text]
            if text in self.asked:
                i = self.asked.index(text)
                earlier = self.asked[:i] or self.asked[:1]
            self.question.setText(earlier[-1] if earlier else self.asked[-1])
            return True
        return super().eventFilter(watched, event)

    def _escape(self) -> None:
        if self.stop_button.isEnabled():
            self.stop_requested.emit()

    def _show_transcript(self) -> None:
        self.transcript.setHtml("".join(turn_html(*t) for t in self.turns))
        self.transcript.moveCursor(QTextCursor.MoveOperation.End)
        self.transcript_box.setVisible(bool(self.turns))

    def new_conversation(self) -> None:
        """The next question starts a conversation of its own."""
        self.thread, self.turns, self.current = None, [], None
        self._show_transcript()
        self.answer.clear()
        self.understood.hide()
        self.sources.clear()
        self.trace.clear()
        self.meta.setText("")
        self.conversations.list.clearSelection()
        self.question.clear()
        self.question.setFocus()

    def load_conversation(self, thread_id: int, entries: Sequence[HistoryEntry]) -> None:
        """A stored conversation reopened: its turns above, the next question continues it."""
        self.thread, self.current = thread_id, None
        self.turns = [(e.asked, e.question if e.message else "", e.answer, e.verdict.declined) for e in entries]
        self._show_transcript()
        self.answer.clear()
        self.answer.setPlaceholderText("Continue the conversation: ask a follow-up.")
        self.understood.hide()
        self.sources.clear()
        self.trace.clear()
        self.meta.setText(f"conversation of {len(entries)} turn{'s' if len(entries) != 1 else ''}" if entries else "")

    # -- requests ----------------------------------------------------------------------
    def current_method(self) -> str:
        return str(self.method.currentData())

    def request(self) -> None:
        text = self.question.text().strip()
        if text and self.ask_button.isEnabled():
            self.ask_requested.emit(text, self.current_method())

    def mark_unavailable(self, method: str, fallback: str = "hybrid") -> None:
        i = self.method.findData(method)
        if i >= 0 and not self.method.itemText(i).endswith(UNAVAILABLE):
            self.method.setItemText(i, method + UNAVAILABLE)
        if self.current_method() == method and self.method.findData(fallback) >= 0:
            self.method.setCurrentIndex(self.method.findData(fallback))

    def reset_availability(self) -> None:
        """Another collection: every method may work again."""
        for i in range(self.method.count()):
            self.method.setItemText(i, str(self.method.itemData(i)))

    # -- states ------------------------------------------------------------------------
    def set_busy(self, busy: bool) -> None:
        self.ask_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)

    def begin(self, question: str, method: str, scope: Sequence[str] = ()) -> None:
        if self.current is not None:  # the turn shown becomes an earlier one
            self.turns.append(self.current)
            self.current = None
            self._show_transcript()
        if not self.asked or self.asked[-1] != question:
            self.asked.append(question)
        self.understood.hide()
        self.streamed = ""
        self.answer.clear()
        self.sources.clear()
        self.sources_box.setTitle("Sources")
        self.trace.clear()
        self._show_asked_about(scope)
        self.meta.setText(f"{method}: retrieving and generating…")
        self.set_busy(True)

    @Slot(str)
    def append_token(self, token: str) -> None:
        self.streamed += token
        cursor = self.answer.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(token)
        self.answer.setTextCursor(cursor)

    @Slot(str, int, int)
    def show_progress(self, stage: str, done: int, total: int) -> None:
        if not self.streamed:
            self.meta.setText(f"{self.current_method()}: {stage} ({done}/{total})…")

    def show_answer(self, answer: Answer) -> None:
        self.set_busy(False)
        self.answer.setHtml(answer_html(answer.answer.strip() or "(the model gave an empty answer)",
                                        muted=not_in_documents(answer)))
        self._show_asked_about(answer.scope)
        self.sources_box.setTitle(sources_heading(answer))
        self.sources.set_sources(answer.sources, answer.question)
        conv = answer.conversation
        self.thread = conv.get("thread", self.thread)
        notes = ([f"Understood as: {answer.understood_as}"] if answer.understood_as else []) + \
            ([answer.cited_note] if answer.cited_note else []) + \
            ([f"Step by step{answer.read_once_note}:\n{answer.steps()}"] if answer.hops else [])
        self.understood.setText("\n".join(notes))
        self.understood.setVisible(bool(notes))
        self.current = (str(conv.get("message") or answer.question), answer.understood_as, answer.answer,
                        not_in_documents(answer))
        self.question.clear()
        self.trace.set_answer(answer)
        self.meta.setText(f"{answer.method} · {answer_summary(answer)}")

    def show_error(self, message: str) -> None:
        self.set_busy(False)
        self.answer.setHtml(f"<p style='color:#b3261e'>⚠ {html.escape(message)}</p>")
        self.sources_box.setTitle("Sources")
        self.meta.setText("")
