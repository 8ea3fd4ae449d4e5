"""Watched folders: the app indexes a watched folder, re-indexes a file once its changes settle
(debounced), drops a deleted file's document, ignores editors' temporary files, keeps watching after
a restart (catching up with what changed while it was closed), and stops when asked."""

import time

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from k2desk.engine import Engine  # noqa: E402
from k2desk.gui.main_window import MainWindow  # noqa: E402
from tests.gui.test_main_window import WAIT_MS  # noqa: E402

pytestmark = pytest.mark.gui

DEBOUNCE_MS = 300


def open_window(qtbot, settings) -> tuple[MainWindow, list]:
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.watcher.debounce_ms = DEBOUNCE_MS
    starts: list = []  # every indexing run the window starts: (collection, paths, removed)
    start = win._start_index
    win._start_index = lambda collection, paths, removed=(): (starts.append((collection, paths, list(removed))),
                                                               start(collection, paths, removed))
    win.show()
    return win, starts


def texts(settings) -> dict[str, str]:
    with Engine(settings, "default") as engine:
        return {d.key.rsplit("/", 1)[1]: engine.docs.text(d.id) for d in engine.documents() if d.status == "done"}


def settle(qtbot, win, starts, runs: int) -> None:
    """Wait until ``runs`` indexing runs started and the last one ended."""
    qtbot.waitUntil(lambda: len(starts) >= runs and win.index_job is None and not win.queue, timeout=WAIT_MS)


def test_a_watched_folder_stays_indexed_as_its_files_change(qtbot, settings, tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "garden.txt").write_text("The quince tree in the garden was planted by Ilse Maren in 1998.")
    win, starts = open_window(qtbot, settings)
    try:
        win.watch_folder(str(notes))
        settle(qtbot, win, starts, 1)
        assert starts[0] == ("default", [str(notes.resolve())], [])
        assert set(texts(settings)) == {"garden.txt"}
        assert "notes" in win.index_panel.watch_label.text()

        for i in range(5):  # an editor saving in bursts: one re-index once the changes settle
            (notes / "pond.txt").write_text(f"The pond was dug in {1990 + i} and holds golden orfe.")
            time.sleep(0.02)
        (notes / ".pond.txt.swp").write_bytes(b"\0swap")  # editor's temporary file: ignored
        settle(qtbot, win, starts, 2)
        qtbot.wait(3 * DEBOUNCE_MS)
        assert len(starts) == 2 and starts[1][1] == [str(notes / "pond.txt")]
        assert "1994" in texts(settings)["pond.txt"]
        rows = {name for name, *_ in win.index_panel.documents.rows()}
        assert rows == {"garden.txt", "pond.txt"}

        (notes / "garden.txt").write_text("The quince tree in the garden was planted by Tomas Reyes in 2003.")
        (notes / "pond.txt").unlink()
        settle(qtbot, win, starts, 3)
        assert starts[2][1:] == ([str(notes / "garden.txt")], [str(notes / "pond.txt")])
        assert texts(settings) == {"garden.txt": "The quince tree in the garden was planted by Tomas Reyes in 2003."}
        assert {name for name, *_ in win.index_panel.documents.rows()} == {"garden.txt"}
        assert "1 removed" in win.index_panel.state.text()
    finally:
        win.close()

    (notes / "shed.txt").write_text("The shed stores the lawnmower and two bicycles.")  # while the app is closed
    win, starts = open_window(qtbot, settings)  # the watch is kept in the collection
    try:
        # catching up as the window opens (unchanged files skipped, the new one indexed)
        qtbot.waitUntil(lambda: win.index_job is None and win.last_report is not None, timeout=WAIT_MS)
        assert win.watcher.watched("default") == [str(notes.resolve())]
        assert set(texts(settings)) == {"garden.txt", "shed.txt"}
        assert win.last_report.added == [str(notes / "shed.txt")] and len(win.last_report.skipped) == 1

        win.unwatch_folder(str(notes))
        (notes / "fence.txt").write_text("The fence was painted green.")
        qtbot.wait(4 * DEBOUNCE_MS)
        assert starts == [] and "fence.txt" not in texts(settings)
        with Engine(settings, "default") as engine:
            assert engine.watched_folders() == []
    finally:
        win.close()
