"""The Ask tab's list of conversations: the one last continued first; open, rename, export, delete."""

from __future__ import annotations

import time
from typing import Optional, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QInputDialog, QListWidget, QListWidgetItem, QMenu, QPushButton, QVBoxLayout, QWidget

from k2desk.store.threads import Thread


class ConversationList(QWidget):
    open_requested = Signal(int)
    new_requested = Signal()
    rename_requested = Signal(int, str)
    delete_requested = Signal(int)
    export_requested = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.new_button = QPushButton("New conversation")
        self.new_button.setToolTip("Start a conversation of its own (Ctrl+N); follow-ups are read against it")
        self.new_button.clicked.connect(self.new_requested)
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.itemActivated.connect(self._activated)
        self.list.itemClicked.connect(self._activated)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.new_button)
        layout.addWidget(self.list, 1)
        self.threads: list[Thread] = []

    def set_threads(self, threads: Sequence[Thread], current: Optional[int] = None) -> None:
        self.threads = list(threads)
        self.list.clear()
        for t in self.threads:
            when = time.strftime("%d %b %H:%M", time.localtime(t.updated_at))
            item = QListWidgetItem(f"{t.title}\n{t.turns} turn{'s' if t.turns != 1 else ''} · {when}")
            item.setData(Qt.ItemDataRole.UserRole, t.id)
            item.setToolTip(t.title)
            self.list.addItem(item)
            if t.id == current:
                self.list.setCurrentItem(item)

    def _activated(self, item: QListWidgetItem) -> None:
        self.open_requested.emit(int(item.data(Qt.ItemDataRole.UserRole)))

    def _menu(self, pos) -> None:
        item = self.list.itemAt(pos)
        if item is None:
            return
        thread_id = int(item.data(Qt.ItemDataRole.UserRole))
        menu = QMenu(self)
        for text, slot in (("Open", lambda: self.open_requested.emit(thread_id)),
                           ("Rename…", lambda: self.rename(thread_id)),
                           ("Export as Markdown…", lambda: self.export_requested.emit(thread_id)),
                           ("Delete", lambda: self.delete_requested.emit(thread_id))):
            action = QAction(text, menu)
            action.triggered.connect(slot)
            menu.addAction(action)
        menu.exec(self.list.mapToGlobal(pos))

    def rename(self, thread_id: int) -> None:
        old = next((t.title for t in self.threads if t.id == thread_id), "")
        title, ok = QInputDialog.getText(self, "Rename conversation", "Name:", text=old)
        if ok and title.strip():
            self.rename_requested.emit(thread_id, title.strip())
