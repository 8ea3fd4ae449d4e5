"""File → "Serve this collection on this computer": `k2desk serve` from the app, off by default.
On, the collection is served on loopback (the port 8484, or a free one when it is taken) with the
models the app already holds, through the OpenAI API and the Model Context Protocol (Streamable
HTTP); the status bar shows both addresses, the token when there is one, and the count of
requests served."""

from __future__ import annotations

from typing import Callable, Optional

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QWidget

from k2desk.config import Settings
from k2desk.errors import K2Error
from k2desk.serve import ServeOptions
from k2desk.serve.options import DEFAULT_PORT

REFRESH_MS = 1000  # the count of requests is read this often


class ServeSwitch(QObject):
    failed = Signal(str)  # a one-line reason the server could not start

    def __init__(self, settings: Callable[[], Settings], collection: Callable[[], Optional[str]],
                 parent: QWidget) -> None:
        super().__init__(parent)
        self.settings, self.collection = settings, collection
        self.server = None  # k2desk.serve.server.Server while on
        self.action = QAction("Ser&ve this collection on this computer (OpenAI API and MCP)", parent)
        self.action.setCheckable(True)
        self.action.setToolTip("Other programs on this computer can ask this collection: chat clients and scripts "
                               "through an OpenAI-compatible API (Open WebUI, Continue), assistants through the Model "
                               "Context Protocol (Claude Desktop, VS Code, LM Studio: see docs/mcp.md)")
        self.action.toggled.connect(self.set_on)
        self.label = QLabel("")
        self.label.setVisible(False)
        self.label.setTextInteractionFlags(self.label.textInteractionFlags() | self.label.textInteractionFlags().TextSelectableByMouse)
        self.timer = QTimer(self)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self.refresh)

    @property
    def on(self) -> bool:
        return self.server is not None

    def set_on(self, on: bool) -> None:
        if on and self.server is None:
            try:
                self.server = self._start()
            except K2Error as exc:
                self.action.setChecked(False)
                self.failed.emit(f"could not serve the collection: {exc}")
                return
            self.timer.start()
        elif not on and self.server is not None:
            server, self.server = self.server, None
            self.timer.stop()
            server.stop()
        self.refresh()

    def _start(self):
        from k2desk.serve.server import Server

        name = self.collection()
        if not name:
            raise K2Error("no collection is open")
        settings = self.settings()
        try:
            server = Server(settings, ServeOptions([name], port=DEFAULT_PORT))
        except K2Error as exc:  # the port is taken: any free one
            if "in use" not in str(exc):
                raise
            server = Server(settings, ServeOptions([name], port=0))
        server.start()
        return server

    def refresh(self) -> None:
        server = self.server
        self.label.setVisible(server is not None)
        if server is None:
            self.label.setText("")
            return
        options = server.options
        token = "token required" if options.token else "no token"
        served = server.served
        self.label.setText(f"Serving “{options.collections[0]}” at {options.root_url} (/v1: OpenAI API · /mcp: MCP) · "
                           f"{token} · {served} request{'s' if served != 1 else ''} served")
        self.label.setToolTip(f"OpenAI-compatible clients: base URL {options.base_url}, model “{options.collections[0]}”\n"
                              f"MCP clients that take an address (Streamable HTTP): {options.mcp_url}\n"
                              "MCP clients that start a program: the command `k2desk mcp` (docs/mcp.md)")

    def stop(self) -> None:
        self.set_on(False)
        self.action.setChecked(False)
