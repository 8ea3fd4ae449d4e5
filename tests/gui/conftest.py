"""The GUI tests' shared fixtures: settings with the tiny LLM, an open main window (closed, with its
workers joined, after the test), a window opened on an indexed folder (``folder``: tests/conftest.py)."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from k2desk.config import Settings  # noqa: E402
from k2desk.engine import Engine  # noqa: E402
from k2desk.gui.main_window import MainWindow  # noqa: E402


@pytest.fixture
def settings(tmp_path, models_dir):
    # one thread: llama.cpp's worker threads spin-wait, so 2 threads crawl when another LLM job shares the cores
    # naive profile: the raw-text index only (no LLM summaries/graph at indexing) keeps these tests short
    return Settings(home=tmp_path / "home", models_dir=models_dir, llm="smollm2-135m", threads=1, build_profile="naive")


@pytest.fixture
def indexed_window(qtbot):
    """``open(settings, paths)``: index ``paths`` with the engine, then open the main window on them."""
    def open_window(settings: Settings, paths=()) -> MainWindow:
        if paths:
            with Engine(settings, "default") as engine:
                engine.index(list(paths))
        win = MainWindow(settings)
        qtbot.addWidget(win)
        win.show()
        return win
    return open_window


@pytest.fixture
def window(qtbot, settings):
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()  # cancels and joins any running worker
