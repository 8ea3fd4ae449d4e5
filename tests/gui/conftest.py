"""The GUI tests' shared fixtures: settings with the tiny LLM, a copy of the mixed fixture folder,
an open main window (closed, with its workers joined, after the test)."""

import shutil
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from k2desk.config import Settings  # noqa: E402
from k2desk.gui.main_window import MainWindow  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def settings(tmp_path, models_dir):
    # one thread: llama.cpp's worker threads spin-wait, so 2 threads crawl when another LLM job shares the cores
    # naive profile: the raw-text index only (no LLM summaries/graph at indexing) keeps these tests short
    return Settings(home=tmp_path / "home", models_dir=models_dir, llm="smollm2-135m", threads=1, build_profile="naive")


@pytest.fixture
def folder(tmp_path):
    dst = tmp_path / "docs"
    shutil.copytree(FIXTURES / "mixed", dst)
    return dst


@pytest.fixture
def window(qtbot, settings):
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()  # cancels and joins any running worker
