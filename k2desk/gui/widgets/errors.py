"""Errors as readable, non-blocking dialogs — at most one on screen, later ones added to it."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget


class ErrorReporter:
    def __init__(self, parent: QWidget) -> None:
        self.parent = parent
        self.box: QMessageBox | None = None
        self.messages: list[str] = []
        self.shown = 0  # dialogs opened (tests check there is no storm)

    def show(self, title: str, message: str) -> None:
        message = message.strip() or "unknown error"
        if self.box is not None and self.box.isVisible():
            self.messages.append(message)
            more = len(self.messages) - 1
            self.box.setInformativeText(f"…and {more} more: " + "\n".join(self.messages[1:][-5:]))
            return
        self.messages = [message]
        self.box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, self.parent)
        self.box.setModal(False)
        self.box.open()  # never exec(): the window keeps running
        self.shown += 1
