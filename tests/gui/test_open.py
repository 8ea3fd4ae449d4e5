"""`k2desk open PATH…` (a file manager's "Open with k2desk", the Linux package's desktop entry):
the window opens with the app's icon and indexes the paths as if they were dropped on it; a path
that does not exist is one line before any window."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QApplication  # noqa: E402

from k2desk.cli import main  # noqa: E402
from k2desk.gui import app as gui_app  # noqa: E402
from k2desk.gui.main_window import MainWindow  # noqa: E402

pytestmark = pytest.mark.gui


def test_open_indexes_the_paths_in_the_window(qtbot, settings, monkeypatch, tmp_path):
    sample_dir = tmp_path / "notes"
    sample_dir.mkdir()
    (sample_dir / "a.txt").write_text("The ferry crossing takes eleven minutes.\n")
    dropped = []
    monkeypatch.setattr(MainWindow, "index_paths", lambda self, paths: dropped.append(list(paths)))
    app = QApplication.instance()
    names = app.applicationName(), app.organizationName(), app.applicationDisplayName(), app.desktopFileName()
    window = gui_app.open_window(app, settings, open_paths=[sample_dir])
    qtbot.addWidget(window)
    try:
        assert window.isVisible() and dropped == []  # queued: indexed once the event loop runs
        qtbot.waitUntil(lambda: dropped == [[str(sample_dir.resolve())]], timeout=10_000)
        assert not app.windowIcon().isNull() and gui_app.ICON.is_file()
        assert app.desktopFileName() == "k2desk"
    finally:  # the tests after this one keep pytest-qt's application (its names decide where QSettings reads)
        window.close()
        app.setApplicationName(names[0])
        app.setOrganizationName(names[1])
        app.setApplicationDisplayName(names[2])
        app.setDesktopFileName(names[3])


def test_open_names_a_missing_path_in_one_line(tmp_path, capsys):
    assert main(["--home", str(tmp_path / "home"), "open", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err == f"k2desk: error: no such file or folder: {tmp_path / 'nowhere'}\n"
