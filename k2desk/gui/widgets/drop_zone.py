"""The drop zone: drop folders or files (or pick them) and they are indexed at once."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QFileDialog, QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from k2desk.ingest import SUPPORTED

_IDLE = "QFrame#dropZone { border: 2px dashed #8a99ad; border-radius: 10px; background: #f5f8fb; }"
_HOVER = "QFrame#dropZone { border: 2px dashed #2f6fdb; border-radius: 10px; background: #e6efff; }"


def local_paths(event: QDragEnterEvent | QDropEvent) -> list[str]:
    mime = event.mimeData()
    if mime is None or not mime.hasUrls():
        return []
    return [u.toLocalFile() for u in mime.urls() if u.isLocalFile() and u.toLocalFile()]


class DropZone(QFrame):
    """Emits ``paths_dropped`` with the local paths of what was dropped or chosen."""

    paths_dropped = Signal(list)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("dropZone")
        self.setAcceptDrops(True)
        self.setStyleSheet(_IDLE)
        self.setMinimumHeight(96)
        title = QLabel("<b>Drop a folder or files here</b> — indexing starts at once")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint = QLabel("documents, PDFs and scans · pictures (OCR) · slides · sheets · OpenDocument · RTF · e-mail")
        hint.setToolTip(" ".join(sorted(SUPPORTED)))
        hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint.setStyleSheet("color: #5b6775;")
        self.folder_button = QPushButton("Add folder…")
        self.files_button = QPushButton("Add files…")
        self.folder_button.clicked.connect(self.choose_folder)
        self.files_button.clicked.connect(self.choose_files)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.folder_button)
        buttons.addWidget(self.files_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(hint)
        layout.addLayout(buttons)

    # -- picking -----------------------------------------------------------------------
    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a folder to the collection")
        if folder:
            self.paths_dropped.emit([folder])

    def choose_files(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(
            self, "Add files to the collection", "",
            f"Documents ({' '.join('*' + ext for ext in sorted(SUPPORTED))});;All files (*)")
        if files:
            self.paths_dropped.emit(list(files))

    # -- drag and drop -----------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt API)
        if local_paths(event):
            self.setStyleSheet(_HOVER)
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event) -> None:  # noqa: N802
        event.acceptProposedAction()

    def dragLeaveEvent(self, event) -> None:  # noqa: N802
        self.setStyleSheet(_IDLE)
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        self.setStyleSheet(_IDLE)
        paths = local_paths(event)
        if not paths:
            event.ignore()
            return
        event.acceptProposedAction()
        self.paths_dropped.emit(paths)
