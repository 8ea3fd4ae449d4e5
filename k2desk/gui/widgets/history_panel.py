"""The “History” tab: every question asked of the collection with its answer and sources, newest
first; ask one again, remove it, or export them all as Markdown."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Optional, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
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

from k2desk.gui.widgets.documents import scope_names
from k2desk.history_markdown import entry_markdown, history_markdown
from k2desk.store.history import HistoryEntry


class HistoryPanel(QWidget):
    ask_again = Signal(str, str, list)  # question, method, the documents it was asked about ([]: all)
    remove_requested = Signal(int)  # entry id
    clear_requested = Signal()
    message = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.collection = ""
        self.entries: list[HistoryEntry] = []
        self.list = QTreeWidget()
        self.list.setHeaderLabels(["Asked", "Method", "Question", "Answer"])
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        for col in (0, 1):
            self.list.header().setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.list.setColumnWidth(2, 420)
        self.list.currentItemChanged.connect(lambda item, _prev: self.show_entry(self.list.indexOfTopLevelItem(item)))
        self.list.itemDoubleClicked.connect(lambda *_: self.request_again())
        self.view = QTextBrowser()
        self.view.setOpenExternalLinks(False)
        self.again_button = QPushButton("Ask again")
        self.again_button.clicked.connect(self.request_again)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.request_remove)
        self.export_button = QPushButton("Export as Markdown…")
        self.export_button.clicked.connect(self.choose_export)
        self.clear_button = QPushButton("Clear history")
        self.clear_button.clicked.connect(self.clear_requested)
        self.count = QLabel("")
        row = QHBoxLayout()
        row.addWidget(self.count, 1)
        for b in (self.again_button, self.remove_button, self.export_button, self.clear_button):
            row.addWidget(b)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.list)
        split.addWidget(self.view)
        split.setSizes([260, 420])
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(split, 1)
        self.set_entries([], "")

    def set_entries(self, entries: Sequence[HistoryEntry], collection: str) -> None:
        """Newest first, as ``HistoryStore.list`` returns them."""
        self.collection = collection
        self.entries = list(entries)
        self.list.clear()
        self.view.clear()
        for e in self.entries:
            item = QTreeWidgetItem([time.strftime("%Y-%m-%d %H:%M", time.localtime(e.asked_at)), e.method,
                                    e.question, " ".join(e.answer.split())[:200]])
            if e.scope:
                item.setText(2, f"{e.question}  [{len(e.scope)} document{'s' if len(e.scope) != 1 else ''}]")
            item.setToolTip(2, e.question + (f"\nAsked about: {scope_names(e.scope)}" if e.scope else ""))
            self.list.addTopLevelItem(item)
        n = len(self.entries)
        self.count.setText(f"{n} question{'s' if n != 1 else ''} asked of “{collection}”" if collection else "")
        for b in (self.again_button, self.remove_button, self.export_button, self.clear_button):
            b.setEnabled(n > 0)
        if self.entries:
            self.list.setCurrentItem(self.list.topLevelItem(0))

    def current(self) -> Optional[HistoryEntry]:
        i = self.list.indexOfTopLevelItem(self.list.currentItem())
        return self.entries[i] if 0 <= i < len(self.entries) else None

    def show_entry(self, index: int) -> None:
        if 0 <= index < len(self.entries):
            self.view.setMarkdown(entry_markdown(self.entries[index], heading="###"))

    def request_again(self) -> None:
        e = self.current()
        if e is not None:
            self.ask_again.emit(e.question, e.method, list(e.scope))

    def request_remove(self) -> None:
        e = self.current()
        if e is not None:
            self.remove_requested.emit(e.id)

    def choose_export(self) -> None:
        name = f"k2desk-{self.collection or 'history'}.md"
        path, _ = QFileDialog.getSaveFileName(self, "Export the questions and answers as Markdown", name, "Markdown (*.md)")
        if path:
            self.export(path)

    def export(self, path: str | Path) -> int:
        """Write every entry (oldest first) with its sources; returns how many."""
        try:
            Path(path).write_text(history_markdown(self.entries, self.collection), encoding="utf-8")
        except OSError as exc:
            self.message.emit(f"cannot write {path}: {exc.strerror or exc}")
            return 0
        self.message.emit(f"exported {len(self.entries)} questions and answers to {path}")
        return len(self.entries)
