"""The collection's documents with their indexing status (done / failed with the reason / …).

A model/view pair: ``DocumentModel`` holds one row per document and sorts itself (a Python
sort on precomputed keys, one layout change; the views' persistent indexes follow their rows).
A status update changes the cells of the document's own row, whatever the sort order (a sorted
``QTreeWidget`` filled while it sorted could show one file's status on another's row). Measured
on 7,250 documents: a ``QSortFilterProxyModel`` asked Python for both cells of every comparison
and took 1.6 s to sort by status; the model sorts in milliseconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from PySide6.QtCore import (
    QAbstractTableModel,
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QMenu, QTreeView

COLORS = {"done": "#1d7a3a", "failed": "#b3261e", "skipped": "#8a6d00", "pending": "#5b6775", "processing": "#2f6fdb"}
LABELS = {"done": "✔ done", "failed": "✖ failed", "skipped": "– skipped", "pending": "… pending", "processing": "⟳ indexing"}
KEY_ROLE = Qt.ItemDataRole.UserRole  # column 0: the document's key; column 1: its status code
ASK_ABOUT = "Ask about the selected documents"
NOT_ASKABLE = ("failed", "skipped")  # rows that are no document one can ask about
SCOPE_NAMES = 8  # document names a scope line shows before "and N more"


_PART = re.compile(r"#(?:message/(\d+)|attachment/\d+/(.+))$")  # an e-mail's message or attachment (ingest/mail.py)


def display_name(key: str) -> str:
    """A document's name in the list: its file name; a message of an mbox "team.mbox › message 2",
    an attachment "complaint.eml › offer.pdf"; a corpus record its URL."""
    part = _PART.search(key)
    if part:
        return f"{Path(key[: part.start()]).name} › " + (f"message {part.group(1)}" if part.group(1) else part.group(2))
    if "#" in key and not Path(key).exists():  # a record of a corpus file: "<file>#<url>"
        return key.rsplit("#", 1)[1] or key
    return Path(key).name or key


def scope_names(keys: Sequence[str]) -> str:
    """The documents of a scope by name: "observatory.html, river-ferry.txt" (… and N more)."""
    names = [display_name(k) for k in keys]
    more = len(names) - SCOPE_NAMES
    return ", ".join(names[:SCOPE_NAMES]) + (f" and {more} more" if more > 0 else "")


def location(key: str) -> str:
    part = _PART.search(key)
    key = key[: part.start()] if part else key
    return str(Path(key).parent) if "/" in key else key


@dataclass
class DocumentEntry:
    key: str
    status: str
    detail: str


class DocumentModel(QAbstractTableModel):
    COLUMNS = ("Document", "Status", "Details", "Location")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.entries: list[DocumentEntry] = []
        self.row_of: dict[str, int] = {}
        self.sort_column = 0
        self.sort_order = Qt.SortOrder.AscendingOrder

    # -- Qt model ----------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.entries)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        e, col = self.entries[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (display_name(e.key), LABELS.get(e.status, e.status), e.detail, location(e.key))[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            return (e.key, None, e.detail, e.key)[col]
        if role == Qt.ItemDataRole.ForegroundRole and col == 1:
            return QColor(COLORS.get(e.status, "#000000"))
        if role == KEY_ROLE:
            return (e.key, e.status, None, None)[col]
        return None

    # -- order -------------------------------------------------------------------------
    @staticmethod
    def sort_key(e: DocumentEntry, column: int) -> tuple[str, str]:
        shown = (display_name(e.key), LABELS.get(e.status, e.status), e.detail, location(e.key))[column]
        return shown.casefold(), e.key

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.sort_column, self.sort_order = column, order
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        where = [(self.entries[i.row()].key, i.column()) for i in old]
        self.entries.sort(key=lambda e: self.sort_key(e, column), reverse=order == Qt.SortOrder.DescendingOrder)
        self.row_of = {e.key: i for i, e in enumerate(self.entries)}
        self.changePersistentIndexList(old, [self.index(self.row_of[k], c) for k, c in where])
        self.layoutChanged.emit()

    def _position(self, entry: DocumentEntry) -> int:
        """Where ``entry`` goes in the current order, after its equals: a binary search (a row
        arrives per document while a folder indexes; a scan computed every row's key each time)."""
        new = self.sort_key(entry, self.sort_column)
        descending = self.sort_order == Qt.SortOrder.DescendingOrder
        lo, hi = 0, len(self.entries)
        while lo < hi:
            mid = (lo + hi) // 2
            key = self.sort_key(self.entries[mid], self.sort_column)
            if (key >= new) if descending else (key <= new):
                lo = mid + 1
            else:
                hi = mid
        return lo

    # -- updates -----------------------------------------------------------------------
    def set_status(self, key: str, status: str, detail: str = "") -> None:
        row = self.row_of.get(key)
        if row is None:
            entry = DocumentEntry(key, status, detail)
            row = self._position(entry)
            self.beginInsertRows(QModelIndex(), row, row)
            self.entries.insert(row, entry)
            self.row_of = {e.key: i for i, e in enumerate(self.entries)}
            self.endInsertRows()
            return
        self.entries[row] = DocumentEntry(key, status, detail)
        self.dataChanged.emit(self.index(row, 1), self.index(row, 2))

    def reset(self, rows: list[tuple[str, str, str]]) -> None:
        """Every row at once, (key, status, detail) each, in the current order: one model reset."""
        self.beginResetModel()
        self.entries = sorted((DocumentEntry(key, status, detail) for key, status, detail in rows),
                              key=lambda e: self.sort_key(e, self.sort_column),
                              reverse=self.sort_order == Qt.SortOrder.DescendingOrder)
        self.row_of = {e.key: i for i, e in enumerate(self.entries)}
        self.endResetModel()

    def remove(self, key: str) -> None:
        row = self.row_of.get(key)
        if row is None:
            return
        self.beginRemoveRows(QModelIndex(), row, row)
        del self.entries[row]
        self.row_of = {e.key: i for i, e in enumerate(self.entries)}
        self.endRemoveRows()

    def clear(self) -> None:
        self.beginResetModel()
        self.entries.clear()
        self.row_of.clear()
        self.endResetModel()


class DocumentTable(QTreeView):
    remove_requested = Signal(str)
    ask_about_requested = Signal(list)  # the keys of the selected documents (Ask tab, scoped to them)
    selection_changed = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.documents = DocumentModel(self)
        self.setModel(self.documents)
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.setSortingEnabled(True)
        self.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)  # Ctrl/Shift-click: several
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.selectionModel().selectionChanged.connect(lambda *_: self.selection_changed.emit())
        self.documents.modelReset.connect(self.selection_changed)  # a reset drops the selection silently
        self.documents.rowsRemoved.connect(lambda *_: self.selection_changed.emit())
        header = self.header()
        header.setResizeContentsPrecision(200)  # rows measured to size a column, not all 8,000
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        self.setColumnWidth(2, 260)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)

    def clear_all(self) -> None:
        self.documents.clear()

    def set_status(self, key: str, status: str, detail: str = "") -> None:
        self.documents.set_status(key, status, detail)

    def set_all(self, rows: list[tuple[str, str, str]]) -> None:
        """Replace the list with ``rows`` (key, status, detail), in one go."""
        self.documents.reset(rows)

    def remove(self, key: str) -> None:
        self.documents.remove(key)

    def status_of(self, key: str) -> tuple[str, str]:
        e = self.documents.entries[self.documents.row_of[key]]
        return e.status, e.detail

    def rows(self) -> list[tuple[str, str, str, str]]:
        """What the view shows, row by row in its current order: (name, status label, details, key)."""
        m = self.documents
        return [(m.index(r, 0).data(), m.index(r, 1).data(), m.index(r, 2).data(), m.index(r, 0).data(KEY_ROLE))
                for r in range(m.rowCount())]

    def statuses(self) -> dict[str, tuple[str, str]]:
        """display name -> (status, detail), read from the view's rows."""
        m = self.documents
        return {m.index(r, 0).data(): (m.index(r, 1).data(KEY_ROLE), m.index(r, 2).data()) for r in range(m.rowCount())}

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for e in self.documents.entries:
            out[e.status] = out.get(e.status, 0) + 1
        return out

    def searchable(self) -> int:
        """Documents done, or still indexing but already searchable (their text stage is built)."""
        return sum(1 for e in self.documents.entries
                   if e.status == "done" or (e.status in ("pending", "processing") and "searchable" in e.detail))

    def key_at(self, row: int) -> Optional[str]:
        return self.documents.index(row, 0).data(KEY_ROLE)

    def selected_keys(self) -> list[str]:
        """The selected documents one can ask about (not failed or skipped files), in the view's order."""
        rows = sorted(i.row() for i in self.selectionModel().selectedRows(0))
        m = self.documents
        return [m.index(r, 0).data(KEY_ROLE) for r in rows if m.index(r, 1).data(KEY_ROLE) not in NOT_ASKABLE]

    def select_keys(self, keys: list[str]) -> None:
        """Select the rows of ``keys`` (and only them)."""
        selection = QItemSelection()
        for key in keys:
            row = self.documents.row_of.get(key)
            if row is not None:
                selection.select(self.documents.index(row, 0), self.documents.index(row, len(DocumentModel.COLUMNS) - 1))
        self.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)

    def ask_about_selected(self) -> None:
        keys = self.selected_keys()
        if keys:
            self.ask_about_requested.emit(keys)

    def context_menu(self, row: int) -> Optional[QMenu]:
        """The menu of the document at ``row``: ask about the selection (this row if it is not
        selected), remove this document."""
        index = self.documents.index(row, 0)
        if not index.isValid() or self.documents.index(row, 1).data(KEY_ROLE) == "skipped":
            return None
        key = index.data(KEY_ROLE)
        if not self.selectionModel().isRowSelected(row, QModelIndex()):
            self.select_keys([key])
        menu = QMenu(self)
        n = len(self.selected_keys())
        ask = menu.addAction(ASK_ABOUT, self.ask_about_selected)
        ask.setEnabled(n > 0)
        menu.addSeparator()
        menu.addAction("Remove from the collection", lambda: self.remove_requested.emit(key))
        return menu

    def _menu(self, pos) -> None:
        index = self.indexAt(pos)
        menu = self.context_menu(index.row()) if index.isValid() else None
        if menu is not None:
            menu.exec(self.viewport().mapToGlobal(pos))
