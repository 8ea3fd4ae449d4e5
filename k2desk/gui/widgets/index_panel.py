"""The “Documents” tab: resume banner, drop zone, stage progress, Cancel / Resume, document list."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFileDialog, QFrame, QHBoxLayout, QInputDialog, QLabel, QPushButton, QVBoxLayout, QWidget

from k2desk.gui.widgets.documents import ASK_ABOUT, DocumentTable
from k2desk.gui.widgets.drop_zone import DropZone
from k2desk.gui.widgets.progress_panel import StageProgressPanel


class ResumeBanner(QFrame):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("resumeBanner")
        self.setStyleSheet("QFrame#resumeBanner { background: #fff4d6; border: 1px solid #e0b84c; border-radius: 6px; }")
        self.text = QLabel("")
        self.button = QPushButton("Resume indexing")
        layout = QHBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.button)
        self.hide()

    def show_pending(self, count: int) -> None:
        self.text.setText(f"<b>{count} document{'s' if count != 1 else ''}</b> of this collection "
                          f"{'were' if count != 1 else 'was'} not finished indexing (the app was closed or the run cancelled).")
        self.setVisible(count > 0)


class IndexPanel(QWidget):
    paths_dropped = Signal(list)
    cancel_requested = Signal()
    resume_requested = Signal()
    watch_requested = Signal(str)  # a folder to index now and re-index on every change
    unwatch_requested = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.banner = ResumeBanner()
        self.banner.button.clicked.connect(self.resume_requested)
        self.drop_zone = DropZone()
        self.drop_zone.paths_dropped.connect(self.paths_dropped)
        self.progress = StageProgressPanel()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.resume_button = QPushButton("Resume")
        self.resume_button.setEnabled(False)
        self.resume_button.clicked.connect(self.resume_requested)
        self.state = QLabel("Drop documents to build this collection's index.")
        self.state.setWordWrap(True)
        controls = QHBoxLayout()
        controls.addWidget(self.state, 1)
        controls.addWidget(self.cancel_button)
        controls.addWidget(self.resume_button)
        self.watched: list[str] = []
        self.watch_label = QLabel("")
        self.watch_label.setWordWrap(True)
        self.watch_button = QPushButton("Watch a folder…")
        self.watch_button.setToolTip("Index a folder now and re-index its files whenever they change")
        self.watch_button.clicked.connect(self.choose_watch)
        self.unwatch_button = QPushButton("Stop watching…")
        self.unwatch_button.clicked.connect(self.choose_unwatch)
        watch_row = QHBoxLayout()
        watch_row.addWidget(self.watch_label, 1)
        watch_row.addWidget(self.watch_button)
        watch_row.addWidget(self.unwatch_button)
        self.set_watched([])
        self.documents = DocumentTable()
        self.ask_about_button = QPushButton(ASK_ABOUT)
        self.ask_about_button.setToolTip("Ask questions about these documents only (select several with Ctrl- or "
                                         "Shift-click; also in the list's right-click menu)")
        self.ask_about_button.clicked.connect(self.documents.ask_about_selected)
        self.documents.selection_changed.connect(self._selection_changed)
        self.selection_label = QLabel("")
        self.selection_label.setStyleSheet("color: #5b6775;")
        selection_row = QHBoxLayout()
        selection_row.addWidget(self.selection_label, 1)
        selection_row.addWidget(self.ask_about_button)
        self._selection_changed()
        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addWidget(self.drop_zone)
        layout.addLayout(controls)
        layout.addLayout(watch_row)
        layout.addWidget(self.progress)
        layout.addLayout(selection_row)
        layout.addWidget(self.documents, 1)

    def _selection_changed(self) -> None:
        n = len(self.documents.selected_keys())
        self.ask_about_button.setEnabled(n > 0)
        self.selection_label.setText(f"{n} document{'s' if n != 1 else ''} selected" if n else
                                     "Select documents (Ctrl- or Shift-click) to ask about them alone.")

    def set_running(self, running: bool, pending: int = 0) -> None:
        self.cancel_button.setEnabled(running)
        self.resume_button.setEnabled(not running and pending > 0)
        self.banner.show_pending(0 if running else pending)

    def set_state(self, text: str) -> None:
        self.state.setText(text)

    def set_watched(self, folders: list[str]) -> None:
        self.watched = list(folders)
        names = ", ".join(f"<b>{Path(f).name or f}</b>" for f in folders)
        self.watch_label.setText(f"Watching {names}: changed files are re-indexed" if folders
                                 else "No watched folder: drop documents, or watch a folder to keep it indexed.")
        self.watch_label.setToolTip("\n".join(folders))
        self.unwatch_button.setEnabled(bool(folders))

    def choose_watch(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Watch a folder: index it and keep it indexed")
        if folder:
            self.watch_requested.emit(folder)

    def choose_unwatch(self) -> None:
        if len(self.watched) == 1:
            self.unwatch_requested.emit(self.watched[0])
            return
        folder, ok = QInputDialog.getItem(self, "Stop watching", "Folder:", self.watched, 0, False)
        if ok and folder:
            self.unwatch_requested.emit(folder)
