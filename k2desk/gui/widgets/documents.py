"""The collection's documents with their indexing status (done / failed with the reason / …)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHeaderView, QMenu, QTreeWidget, QTreeWidgetItem

COLORS = {"done": "#1d7a3a", "failed": "#b3261e", "skipped": "#8a6d00", "pending": "#5b6775", "processing": "#2f6fdb"}
LABELS = {"done": "✔ done", "failed": "✖ failed", "skipped": "– skipped", "pending": "… pending", "processing": "⟳ indexing"}


def display_name(key: str) -> str:
    if "#" in key and not Path(key).exists():  # a record of a corpus file: "<file>#<url>"
        return key.rsplit("#", 1)[1] or key
    return Path(key).name or key


class DocumentTable(QTreeWidget):
    COLUMNS = ("Document", "Status", "Details", "Location")
    remove_requested = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setHeaderLabels(self.COLUMNS)
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.setSortingEnabled(True)
        self.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        header = self.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        self.setColumnWidth(2, 260)
        self.items: dict[str, QTreeWidgetItem] = {}
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)

    def clear_all(self) -> None:
        self.clear()
        self.items.clear()

    def set_status(self, key: str, status: str, detail: str = "") -> None:
        item = self.items.get(key)
        if item is None:
            item = QTreeWidgetItem([display_name(key), "", "", str(Path(key).parent) if "/" in key else key])
            item.setData(0, Qt.ItemDataRole.UserRole, key)
            item.setToolTip(0, key)
            self.items[key] = item
            self.addTopLevelItem(item)
        item.setText(1, LABELS.get(status, status))
        item.setData(1, Qt.ItemDataRole.UserRole, status)
        item.setText(2, detail)
        item.setToolTip(2, detail)
        item.setForeground(1, QBrush(QColor(COLORS.get(status, "#000000"))))

    def status_of(self, key: str) -> tuple[str, str]:
        item = self.items[key]
        return item.data(1, Qt.ItemDataRole.UserRole), item.text(2)

    def statuses(self) -> dict[str, tuple[str, str]]:
        """display name -> (status, detail), for tests and summaries."""
        return {item.text(0): (item.data(1, Qt.ItemDataRole.UserRole), item.text(2)) for item in self.items.values()}

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for item in self.items.values():
            status = item.data(1, Qt.ItemDataRole.UserRole)
            out[status] = out.get(status, 0) + 1
        return out

    def _menu(self, pos) -> None:
        item = self.itemAt(pos)
        if item is None:
            return
        key = item.data(0, Qt.ItemDataRole.UserRole)
        if item.data(1, Qt.ItemDataRole.UserRole) == "skipped":
            return
        menu = QMenu(self)
        menu.addAction("Remove from the collection", lambda: self.remove_requested.emit(key))
        menu.exec(self.viewport().mapToGlobal(pos))
