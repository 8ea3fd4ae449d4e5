"""The “Ask” tab: question, method, the answer streamed as it is generated, sources and trace."""

from __future__ import annotations

import html
from typing import Callable, Optional, Sequence

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QFont, QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
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

from k2desk.gui.widgets.sources import SourcesPanel, answer_summary
from k2desk.gui.widgets.trace import TracePanel
from k2desk.methods.registry import describe
from k2desk.types import Answer

UNAVAILABLE = " (not available)"


def _boxed(title: str, widget: QWidget) -> QGroupBox:
    box = QGroupBox(title)
    layout = QVBoxLayout(box)
    layout.setContentsMargins(6, 6, 6, 6)
    layout.addWidget(widget)
    return box


class AskPanel(QWidget):
    ask_requested = Signal(str, str)  # question, method
    stop_requested = Signal()

    def __init__(self, methods: Sequence[str], default: str, text_of: Callable[[str], Optional[str]],
                 meta_of: Callable[[str], Optional[dict]] = lambda key: None, parent=None) -> None:
        super().__init__(parent)
        self.question = QLineEdit()
        self.question.setPlaceholderText("Ask a question about this collection's documents…")
        self.question.returnPressed.connect(self.request)
        self.method = QComboBox()
        for name in methods:
            self.method.addItem(name, name)
            self.method.setItemData(self.method.count() - 1, describe(name), Qt.ItemDataRole.ToolTipRole)
        self.method.setCurrentIndex(max(0, self.method.findData(default)))
        self.method.setToolTip("Retrieval method (K²RAG by default)")
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

        self.answer = QTextBrowser()
        font = QFont(self.answer.font())
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.answer.setFont(font)
        self.answer.setPlaceholderText("The answer appears here as it is generated.")
        self.meta = QLabel("")
        self.meta.setStyleSheet("color: #5b6775;")
        answer_box = QWidget()
        al = QVBoxLayout(answer_box)
        al.setContentsMargins(0, 0, 0, 0)
        al.addWidget(self.answer, 1)
        al.addWidget(self.meta)

        self.sources = SourcesPanel(text_of, meta_of)
        self.trace = TracePanel()
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(_boxed("Sources", self.sources))
        bottom.addWidget(_boxed("How this answer was found", self.trace))
        bottom.setSizes([520, 480])
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(_boxed("Answer", answer_box))
        split.addWidget(bottom)
        split.setSizes([170, 430])
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(split, 1)
        self.streamed = ""

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

    def begin(self, question: str, method: str) -> None:
        self.streamed = ""
        self.answer.clear()
        self.sources.clear()
        self.trace.clear()
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
        self.answer.setPlainText(answer.answer.strip() or "(the model gave an empty answer)")
        self.sources.set_sources(answer.sources, answer.question)
        self.trace.set_answer(answer)
        self.meta.setText(f"{answer.method} · {answer_summary(answer)}")

    def show_error(self, message: str) -> None:
        self.set_busy(False)
        self.answer.setHtml(f"<p style='color:#b3261e'>⚠ {html.escape(message)}</p>")
        self.meta.setText("")
