"""``k2desk`` with no command: the desktop app.

``K2DESK_GUI_SELFTEST="question"`` (with optional ``K2DESK_GUI_SELFTEST_METHOD``, default hybrid,
and ``K2DESK_GUI_SELFTEST_COLLECTION``) opens the window, asks the question through it, prints
the answer as one JSON line and exits: the packaged build's headless smoke test.
``K2DESK_GUI_SELFTEST_SHOWN=1`` prints one JSON line once the window is shown and exits
(benchmarks/bench_start.py times a start to the window by it).
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path
from typing import Optional

from k2desk.config import Settings, default_home
from k2desk.errors import K2Error

SELFTEST_TIMEOUT_MS = 600_000


def _remembered_home(settings: Settings) -> Settings:
    """A data folder chosen in the settings dialog applies when no --home / K2DESK_HOME says otherwise."""
    from PySide6.QtCore import QSettings

    if os.environ.get("K2DESK_HOME") or settings.home != default_home():
        return settings
    home = QSettings().value("home")
    if home and Path(str(home)).is_dir() and Path(str(home)) != settings.home:
        try:
            return Settings.load(home=Path(str(home)))
        except K2Error:
            return settings
    return settings


def _remember_home(home: Path) -> None:
    from PySide6.QtCore import QSettings

    QSettings().setValue("home", str(home))


def _install_excepthook(window) -> None:
    """An exception escaping a slot becomes a readable dialog, never a crash."""

    def hook(exc_type, exc, tb) -> None:
        traceback.print_exception(exc_type, exc, tb, file=sys.stderr)
        message = str(exc) if isinstance(exc, K2Error) else f"unexpected error ({exc_type.__name__}): {exc}"
        try:
            window.errors.show("k2desk", message)
        except Exception:  # noqa: BLE001 - the window may be gone
            pass

    sys.excepthook = hook


def _selftest(app, window, question: str) -> None:
    from PySide6.QtCore import QTimer

    method = os.environ.get("K2DESK_GUI_SELFTEST_METHOD", "hybrid")
    collection = os.environ.get("K2DESK_GUI_SELFTEST_COLLECTION")

    def finish() -> None:
        answer = window.last_answer
        if answer is None:
            print(json.dumps({"ok": False, "error": window.ask_panel.answer.toPlainText()}), flush=True)
            app.exit(1)
            return
        print(json.dumps({"ok": True, "collection": window.collection, "platform": app.platformName(),
                          **answer.to_json()}, ensure_ascii=False), flush=True)
        app.exit(0)

    def start() -> None:
        if collection:
            window.collections.reload(select=collection)
        window.ask(question, method)
        if window.ask_job is None:
            print(json.dumps({"ok": False, "error": f"no collection to ask (current: {window.collection})"}), flush=True)
            app.exit(1)
            return
        window.ask_job.thread.finished.connect(finish)

    def timeout() -> None:
        print(json.dumps({"ok": False, "error": "timed out"}), flush=True)
        app.exit(3)

    QTimer.singleShot(0, start)
    QTimer.singleShot(SELFTEST_TIMEOUT_MS, timeout)


ICON = Path(__file__).with_name("k2desk.svg")  # the window's and the Linux package's icon


def open_window(app, settings: Settings, open_paths: Optional[list[Path]] = None):
    """The application named and given its icon, the main window shown, and ``open_paths`` queued
    for indexing as if dropped on it (once the event loop runs)."""
    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QIcon

    from k2desk.gui.main_window import MainWindow

    app.setApplicationName("k2desk")
    app.setOrganizationName("k2desk")
    app.setApplicationDisplayName("k2desk")
    app.setDesktopFileName("k2desk")  # the desktop entry a window manager matches the window to
    app.setWindowIcon(QIcon(str(ICON)))
    window = MainWindow(_remembered_home(settings), remember_home=_remember_home)
    window.show()
    if open_paths:
        paths = [str(p.resolve()) for p in open_paths]
        QTimer.singleShot(0, lambda: window.index_paths(paths))
    return window


def run_app(settings: Settings, argv: Optional[list[str]] = None, open_paths: Optional[list[Path]] = None) -> int:
    """The window; ``open_paths`` (``k2desk open PATH…``, a file manager's "Open with k2desk") are
    indexed into the current collection as if dropped on it."""
    missing = [p for p in open_paths or [] if not p.exists()]
    if missing:
        print(f"k2desk: error: no such file or folder: {missing[0]}", file=sys.stderr)
        return 2
    try:
        from PySide6.QtWidgets import QApplication
    except ImportError as exc:
        print(f"k2desk: error: the desktop app needs PySide6 ({exc}); install it with `pip install -e .[gui]` "
              "or use the command line (`k2desk --help`)", file=sys.stderr)
        return 1
    from k2desk.runtime.qt_platform import problem

    why_not = problem() if QApplication.instance() is None else None
    if why_not:  # Qt's own answer would be a paragraph and abort()
        print(f"k2desk: error: {why_not}", file=sys.stderr)
        return 1
    from PySide6.QtCore import QTimer

    app = QApplication.instance() or QApplication(list(argv) if argv is not None else sys.argv[:1])
    window = open_window(app, settings, open_paths)
    _install_excepthook(window)
    question = os.environ.get("K2DESK_GUI_SELFTEST")
    if os.environ.get("K2DESK_GUI_SELFTEST_SHOWN") == "1":
        def shown() -> None:
            print(json.dumps({"ok": True, "shown": window.isVisible(), "collection": window.collection}), flush=True)
            app.exit(0)

        QTimer.singleShot(0, shown)
    elif question:
        _selftest(app, window, question)
    code = app.exec()
    window.close()
    return int(code)
