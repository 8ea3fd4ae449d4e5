"""Help → About: the version, and what runs where (``k2desk doctor``'s report, the same text)."""

from __future__ import annotations

from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from k2desk import __version__

CHECKING = "Checking what runs where…"


class AboutDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About k2desk")
        self.resize(1120, 480)
        title = QLabel(f"<b>k2desk {__version__}</b><br>Offline answers about your own documents (K²RAG). "
                       "Nothing leaves this machine.")
        self.summary = QLabel(CHECKING)
        self.summary.setWordWrap(True)
        self.report = QPlainTextEdit()
        self.report.setReadOnly(True)
        self.report.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.report.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.report.setPlaceholderText(CHECKING)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.copy = buttons.addButton("Copy report", QDialogButtonBox.ButtonRole.ActionRole)
        self.copy.setEnabled(False)
        self.copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.report.toPlainText()))
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(self.summary)
        layout.addWidget(self.report, 1)
        layout.addWidget(buttons)

    def show_report(self, report) -> None:
        """A ``doctor.Report``: its text as ``k2desk doctor`` prints it, its verdict above."""
        self.report.setPlainText(report.text())
        self.summary.setText("Ready: indexing and asking can run here." if report.ok else f"Not ready: {report.reason}")
        self.copy.setEnabled(True)

    def show_failure(self, message: str) -> None:
        self.summary.setText(f"The check failed: {message}")
        self.report.setPlainText(message)
