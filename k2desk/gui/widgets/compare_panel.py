"""The “Compare” tab: one question, two or three methods side by side on the same index, each with
its answer, time, LLM calls and sources."""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from k2desk.gui.widgets.sources import answer_summary, source_label, sources_heading
from k2desk.methods.registry import describe
from k2desk.types import Answer

NONE = "—"
DEFAULT_METHODS = ("k2rag", "evidence", "hybrid")


class MethodColumn(QGroupBox):
    def __init__(self, methods: Sequence[str], default: str, optional: bool, parent=None) -> None:
        super().__init__(parent)
        self.method = QComboBox()
        if optional:
            self.method.addItem(NONE, "")
        for name in methods:
            self.method.addItem(name, name)
            self.method.setItemData(self.method.count() - 1, describe(name), Qt.ItemDataRole.ToolTipRole)
        self.method.setCurrentIndex(max(0, self.method.findData(default)))
        self.answer = QTextBrowser()
        self.answer.setPlaceholderText("The answer appears here.")
        self.meta = QLabel("")
        self.meta.setStyleSheet("color: #5b6775;")
        self.meta.setWordWrap(True)
        self.sources = QTreeWidget()
        self.sources.setHeaderLabels(["#", "Source", "Score"])
        self.sources.setRootIsDecorated(False)
        self.sources.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.sources.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        layout = QVBoxLayout(self)
        layout.addWidget(self.method)
        layout.addWidget(self.answer, 2)
        layout.addWidget(self.meta)
        layout.addWidget(self.sources, 1)

    def chosen(self) -> str:
        return str(self.method.currentData() or "")

    def reset(self, waiting: bool) -> None:
        self.answer.clear()
        self.sources.clear()
        self.sources.setHeaderLabels(["#", "Source", "Score"])
        self.meta.setText("waiting…" if waiting else "")

    def show_answer(self, answer: Answer) -> None:
        self.answer.setPlainText(answer.answer.strip() or "(the model gave an empty answer)")
        self.meta.setText(answer_summary(answer))
        closest = sources_heading(answer) == "Closest passages"  # "not in your documents": the nearest ones
        self.sources.setHeaderLabels(["#", "Closest passage" if closest else "Source", "Score"])
        for i, s in enumerate(answer.sources, 1):
            item = QTreeWidgetItem([str(i), source_label(s), f"{s.score:.3f}"])
            item.setToolTip(1, f"{s.document}\n\n{s.text[:800]}")
            self.sources.addTopLevelItem(item)

    def show_error(self, message: str) -> None:
        self.answer.setPlainText(f"⚠ {message}")
        self.meta.setText("")


class ComparePanel(QWidget):
    compare_requested = Signal(str, list)  # question, methods
    stop_requested = Signal()

    def __init__(self, methods: Sequence[str], parent=None) -> None:
        super().__init__(parent)
        self.question = QLineEdit()
        self.question.setPlaceholderText("One question, answered by each method on the same index…")
        self.question.returnPressed.connect(self.request)
        self.compare_button = QPushButton("Compare")
        self.compare_button.clicked.connect(self.request)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop_requested)
        self.state = QLabel("Methods run one after another (one LLM job at a time is fastest on a CPU).")
        self.state.setStyleSheet("color: #5b6775;")
        row = QHBoxLayout()
        row.addWidget(self.question, 1)
        row.addWidget(self.compare_button)
        row.addWidget(self.stop_button)
        self.columns = [MethodColumn(methods, d, optional=i == 2) for i, d in enumerate(DEFAULT_METHODS)]
        cols = QHBoxLayout()
        for c in self.columns:
            cols.addWidget(c, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.state)
        layout.addLayout(cols, 1)
        self.running: list[int] = []  # column of each method being compared, in order

    def chosen(self) -> list[str]:
        return [c.chosen() for c in self.columns if c.chosen()]

    def request(self) -> None:
        text = self.question.text().strip()
        methods = self.chosen()
        if not text or not self.compare_button.isEnabled():
            return
        if len(set(methods)) < 2:
            self.state.setText("Choose two or three different methods.")
            return
        self.compare_requested.emit(text, methods)

    def begin(self, methods: Sequence[str]) -> None:
        self.running = [i for i, c in enumerate(self.columns) if c.chosen()][:len(methods)]
        for i, c in enumerate(self.columns):
            c.reset(waiting=i in self.running)
        self.state.setText(f"Answering with {', '.join(methods)}…")
        self.set_busy(True)

    def set_busy(self, busy: bool) -> None:
        self.compare_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)
        for c in self.columns:
            c.method.setEnabled(not busy)

    @Slot(int, str)
    def show_running(self, index: int, method: str) -> None:
        if 0 <= index < len(self.running):
            self.columns[self.running[index]].meta.setText(f"{method}: answering…")

    @Slot(int, object)
    def show_answer(self, index: int, answer: Answer) -> None:
        if 0 <= index < len(self.running):
            self.columns[self.running[index]].show_answer(answer)

    @Slot(int, str)
    def show_error(self, index: int, message: str) -> None:
        if 0 <= index < len(self.running):
            self.columns[self.running[index]].show_error(message)

    def finish(self, message: str) -> None:
        self.set_busy(False)
        self.state.setText(message)
