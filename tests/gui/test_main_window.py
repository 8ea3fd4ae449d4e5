"""The desktop app driven for real, offscreen: simulated drops, the real Engine (SQLite, sqlite-vec,
ONNX embedder) and the tiny LLM; workers run on their QThreads exactly as in the app."""

import json
import threading
import warnings
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl  # noqa: E402
from PySide6.QtGui import QDragEnterEvent, QDropEvent  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402

from k2desk.config import Settings  # noqa: E402
from k2desk.engine import Engine  # noqa: E402
from k2desk.gui.main_window import MainWindow  # noqa: E402
from k2desk.progress import CancelToken  # noqa: E402
from k2desk.store.db import Database  # noqa: E402

pytestmark = pytest.mark.gui

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GOOD = {"lighthouse.txt", "recipes.md", "report.pdf", "minutes.docx", "garden.html", "chess_club.txt"}
BAD = {"corrupt.pdf", "binary.txt", "empty.txt"}
WAIT_MS = 120_000
WORDS = ("harbour ledger orchard violin granite meadow lantern falcon copper willow thunder saffron compass "
         "glacier pepper canyon ember juniper marble quartz").split()


def drop(widget, paths):
    """What a drag from a file manager delivers: DragEnter then Drop with file URLs."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    center = widget.rect().center()
    with warnings.catch_warnings():  # PySide6 6.12 marks the (only) QPoint constructor deprecated
        warnings.simplefilter("ignore", DeprecationWarning)
        enter = QDragEnterEvent(center, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                                Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, enter)
    assert enter.isAccepted()
    event = QDropEvent(QPointF(center), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, event)


def wait_index(qtbot, win):
    qtbot.waitUntil(lambda: win.index_job is None, timeout=WAIT_MS)


def visible_dialogs():
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]


def names(statuses, status):
    return {n for n, (s, _) in statuses.items() if s == status}


def test_drop_folder_indexes_to_100_percent_and_failed_files_show_without_dialogs(qtbot, window, folder):
    assert window.collection == "default"
    drop(window.index_panel.drop_zone, [folder])
    assert window.index_job is not None  # indexing started at once
    wait_index(qtbot, window)

    report = window.last_report
    assert report is not None and not report.cancelled
    percents = window.index_panel.progress.percents()
    assert {"read", "embed"} <= set(percents) and set(percents.values()) == {100}, percents
    statuses = window.index_panel.documents.statuses()
    assert names(statuses, "done") == GOOD
    assert names(statuses, "failed") == BAD
    assert names(statuses, "skipped") == {"photo.bin"}
    assert "cannot read PDF" in statuses["corrupt.pdf"][1]
    assert "binary" in statuses["binary.txt"][1] and "empty" in statuses["empty.txt"][1]
    assert visible_dialogs() == [] and window.errors.shown == 0  # no dialog storm
    assert "6 added" in window.index_panel.state.text() and "3 failed" in window.index_panel.state.text()


def test_the_index_is_read_in_the_background_once_indexing_has_ended(qtbot, window, folder, monkeypatch):
    """The first question of a session finds the vectors and statistics in memory: the window reads
    them (WarmWorker) when a collection opens, after an index run and when the method changes,
    never beside an indexing run."""
    import k2desk.gui.main_window as main_window

    started, read = [], []

    class Recorded(main_window.WarmWorker):
        def __init__(self, *args) -> None:
            super().__init__(*args)
            started.append((self.method, window.index_job is not None))
            self.finished.connect(lambda collection, items: read.append((collection, items)))

    monkeypatch.setattr(main_window, "WarmWorker", Recorded)

    def settled(runs: int) -> bool:
        return len(read) >= runs and window.warm_job is None and not window.warm_timer.isActive()

    drop(window.index_panel.drop_zone, [folder])
    wait_index(qtbot, window)
    qtbot.waitUntil(lambda: settled(1) and bool(read[-1][1]), timeout=WAIT_MS)
    assert read[-1] == ("default", ["chunks/text", "sparse/text"])
    assert not any(during_indexing for _, during_indexing in started)
    runs = len(read)
    panel = window.ask_panel
    panel.method.setCurrentIndex(panel.method.findData("keyword"))
    qtbot.waitUntil(lambda: settled(runs + 1), timeout=WAIT_MS)
    assert started[-1] == ("keyword", False) and read[-1] == ("default", ["chunks/text", "sparse/text"])


def test_every_row_of_the_document_list_is_one_document_in_any_sort_order(qtbot, window, folder, settings):
    drop(window.index_panel.drop_zone, [folder])
    wait_index(qtbot, window)
    report = window.last_report
    with Engine(settings, "default") as engine:
        stored = {d.key: d for d in engine.documents()}
    expected = {key: ("done" if d.status == "done" else d.status, d.error) for key, d in stored.items()}
    expected.update({path: ("skipped", reason) for path, reason in report.unsupported})
    assert {Path(k).name for k, (s, _) in expected.items() if s == "failed"} == BAD
    table = window.index_panel.documents
    for column in (0, 1, 2, 3, 0):  # the user clicks each header: rows move, cells stay together
        table.sortByColumn(column, Qt.SortOrder.DescendingOrder if column % 2 else Qt.SortOrder.AscendingOrder)
        rows = table.rows()
        assert len(rows) == len(expected) == len(GOOD | BAD) + 1
        for name, label, detail, key in rows:
            status, reason = expected[key]
            assert name == Path(key).name
            assert label.split(" ", 1)[1] == {"done": "done", "failed": "failed", "skipped": "skipped"}[status]
            if status == "done":
                assert detail == f"{stored[key].n_chunks} chunk" + ("s" if stored[key].n_chunks != 1 else "")
            else:
                assert detail == reason, (name, detail)
        names_in_order = [r[0] for r in rows]
        if column == 0:
            assert names_in_order == sorted(names_in_order, key=str.lower)
    assert window.status.text().startswith("default · 9 documents: 6 searchable, 6 fully indexed, 3 failed")


def test_cancel_mid_way_then_resume_indexes_every_document_once(qtbot, window, folder, monkeypatch):
    for i in range(24):
        words = [WORDS[(i * 7 + j * 3) % len(WORDS)] for j in range(500)]
        (folder / f"extra_{i:02d}.txt").write_text(f"Extra note {i}. " + " ".join(words), encoding="utf-8")
    good = GOOD | {f"extra_{i:02d}.txt" for i in range(24)}
    collection = window.settings.collection_path("default")

    class PausingToken(CancelToken):
        """The worker's token waits, at its first check after a document became searchable, until
        Cancel is clicked: the cancel lands mid-way on any machine, however fast or loaded."""

        paused = threading.Event()

        def check(self) -> None:
            if not self.cancelled and not self.paused.is_set():
                db = Database(collection)
                try:
                    searchable = db.one("SELECT count(*) FROM document_stages WHERE stage = 'text'")[0]
                finally:
                    db.close()
                if searchable:
                    self.paused.set()
                    self.wait(60)
            super().check()

    monkeypatch.setattr("k2desk.gui.workers.CancelToken", PausingToken)
    drop(window.index_panel.drop_zone, [folder])
    qtbot.waitUntil(PausingToken.paused.is_set, timeout=WAIT_MS)
    qtbot.mouseClick(window.index_panel.cancel_button, Qt.MouseButton.LeftButton)
    wait_index(qtbot, window)
    assert window.last_report.cancelled
    with Engine(window.settings, "default") as engine:
        done_before = {Path(d.key).name: d for d in engine.documents() if "text" in d.stages}
        stamps = dict(engine.db.all("SELECT document_id, done_at FROM document_stages"))
    assert 1 <= len(done_before) < len(good)  # cancelled mid-way
    assert window.index_panel.resume_button.isEnabled() and window.index_panel.banner.isVisible()

    qtbot.mouseClick(window.index_panel.resume_button, Qt.MouseButton.LeftButton)
    wait_index(qtbot, window)
    assert not window.last_report.cancelled
    with Engine(window.settings, "default") as engine:
        docs = {Path(d.key).name: d for d in engine.documents()}
        assert {n for n, d in docs.items() if d.status == "done"} == good
        q = lambda sql: engine.db.one(sql)[0]  # noqa: E731
        assert q("SELECT count(*) FROM chunks") == q("SELECT count(*) FROM vec_chunks") == q("SELECT count(*) FROM sparse_text")
        assert q("SELECT count(*) FROM chunks") == sum(d.n_chunks for d in docs.values())
        assert q("SELECT count(*) FROM document_stages") == len(good)
        after = dict(engine.db.all("SELECT document_id, done_at FROM document_stages"))
    for doc in done_before.values():  # what was indexed before the cancel was not redone
        assert after[doc.id] == stamps[doc.id]
    assert names(window.index_panel.documents.statuses(), "done") == good
    assert not window.index_panel.banner.isVisible() and visible_dialogs() == []


def test_resume_banner_after_the_app_was_killed(qtbot, settings, folder):
    token = CancelToken()
    with Engine(settings, "default") as engine:
        engine.index([folder], progress=lambda s, d, t: token.cancel() if s == "embed" else None, cancel=token)
        engine.db.execute("UPDATE documents SET status = 'processing' WHERE status = 'pending'")  # as a kill leaves it
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.show()
    try:
        assert win.index_panel.banner.isVisible()
        assert "6 documents" in win.index_panel.banner.text.text()
        qtbot.mouseClick(win.index_panel.banner.button, Qt.MouseButton.LeftButton)
        wait_index(qtbot, win)
        assert names(win.index_panel.documents.statuses(), "done") == GOOD
        assert not win.index_panel.banner.isVisible()
    finally:
        win.close()


def test_a_document_is_answerable_before_its_graph_and_the_answer_says_what_was_missing(qtbot, settings, folder):
    settings = replace(settings, build_profile="default", top_k=4, max_answer_tokens=32)
    token = CancelToken()
    with Engine(settings, "default") as engine:  # stopped after every text stage, before summaries and graph
        engine.index([folder], progress=lambda s, d, t: token.cancel() if s == "summarize" else None, cancel=token)
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.show()
    try:
        statuses = win.index_panel.documents.statuses()
        assert {statuses[k] for k in statuses if Path(k).name in GOOD} == {("pending", "searchable")}
        panel = win.ask_panel
        panel.method.setCurrentIndex(panel.method.findData("k2rag"))
        panel.question.setText("Who keeps the Harwick Point lighthouse?")
        qtbot.mouseClick(panel.ask_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: win.ask_job is None, timeout=WAIT_MS)
        assert win.last_answer is not None and panel.answer.toPlainText().strip()
        assert "Answered from what is indexed so far: the summaries cover 0 of 6 documents" in panel.meta.text()
    finally:
        win.close()


def test_question_gets_a_streamed_answer_with_sources_and_trace(qtbot, settings, folder, indexed_window):
    # a short prompt: the tiny LLM on shared cores
    win = indexed_window(replace(settings, top_k=4, max_answer_tokens=32), [folder])
    try:
        panel = win.ask_panel
        assert panel.current_method() == "k2rag"  # the default selection
        panel.method.setCurrentIndex(panel.method.findData("hybrid"))
        panel.question.setText("How many nautical miles is the Harwick Point lighthouse visible?")
        qtbot.mouseClick(panel.ask_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: win.ask_job is None, timeout=WAIT_MS)
        answer = win.last_answer
        assert answer is not None and answer.method == "hybrid"
        assert panel.answer.toPlainText().strip()
        assert panel.streamed.strip()  # tokens arrived while generating
        assert panel.sources.list.topLevelItemCount() >= 1
        assert Path(panel.sources.documents()[0]).name == "lighthouse.txt"
        panel.sources.show_source(0)
        html = panel.sources.viewer.toHtml()
        assert "Harwick" in html and "#fff2a8" in html.lower()  # the passage, highlighted in its document
        assert not panel.trace.is_empty() and "Time taken" in panel.trace.titles()
        assert visible_dialogs() == []
        panel.question.setText("Which submarine does the harbour master sail?")  # declined: why is shown
        qtbot.mouseClick(panel.ask_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: win.ask_job is None, timeout=WAIT_MS)
        assert win.last_answer.outcome == "declined" and win.last_answer.reason.startswith("the passages do not mention")
        assert f"Why: {win.last_answer.reason}." in panel.meta.text()
    finally:
        win.close()


def test_unavailable_method_is_a_readable_message_and_falls_back_to_hybrid(window):
    """A graph method on a collection without a graph: the engine's one-line error, the selector
    falls back to hybrid and marks the method for this collection only."""
    panel = window.ask_panel
    panel.method.setCurrentIndex(panel.method.findData("kg"))
    window._on_ask_failed("method 'kg' is not available on collection 'default': it has no knowledge graph "
                          "(indexed with build profile 'naive'); re-index it with build profile default, both or raw", "usage")
    assert "not available" in panel.answer.toPlainText()
    assert panel.current_method() == "hybrid"
    assert panel.method.itemText(panel.method.findData("kg")).endswith("(not available)")
    assert visible_dialogs() == []
    window.set_collection("another")
    assert panel.method.itemText(panel.method.findData("kg")) == "kg"


def test_settings_dialog_round_trip_saves_settings_json(qtbot, window, settings):
    dialog = window.open_settings()
    dialog.select_model("/nowhere/model.gguf")
    dialog.accept()
    assert dialog.isVisible() and "not found" in dialog.error.text()  # a readable error, the dialog stays
    dialog.select_model("smollm2-135m")
    dialog.gpu_layers.setValue(0)
    dialog.threads.setValue(2)
    dialog.summarizer.setCurrentText("extractive")
    dialog.graph_extractor.setCurrentText("llm")
    dialog.profile.setCurrentText("default")
    dialog.llm_url.setText("127.0.0.1:8080")
    dialog.accept()
    assert dialog.isVisible() and "http(s) address" in dialog.error.text()
    dialog.llm_url.setText(" http://127.0.0.1:8080 ")
    dialog.accept()
    assert not dialog.isVisible()
    stored = json.loads((settings.home / "settings.json").read_text(encoding="utf-8"))
    assert stored["llm"] == "smollm2-135m" and stored["gpu_layers"] == 0 and stored["threads"] == 2
    assert stored["summarizer"] == "extractive" and stored["build_profile"] == "default"
    assert stored["graph_extractor"] == "llm" and stored["llm_url"] == "http://127.0.0.1:8080"
    assert window.settings.summarizer == "extractive"
    assert Settings.load(home=settings.home).gpu_layers == 0


def test_collections_create_rename_delete(window, settings):
    window.collections.create("work notes")
    assert window.collection == "work notes" and settings.collection_path("work notes").is_file()
    window.collections.rename("work notes", "archive")
    assert window.collection == "archive" and not settings.collection_path("work notes").exists()
    window.collections.delete("archive")
    assert settings.list_collections() == ["default"] and window.collection == "default"


def test_a_background_read_of_the_index_is_stopped_for_a_rename_or_delete(qtbot, window, settings, monkeypatch):
    def slow_warm(engine, method, cancel):  # a read that lasts until it is cancelled
        cancel.wait(60)
        cancel.check()

    monkeypatch.setattr(Engine, "warm", slow_warm)
    window.collections.create("work notes")
    window._warm()
    job = window.warm_job
    assert job is not None and job.running and job.worker.collection == "work notes"
    window.collections.rename("work notes", "archive")  # not refused: the read is stopped first
    assert not job.running and window.collection == "archive" and window.errors.shown == 0
    qtbot.waitUntil(lambda: window.warm_job is None, timeout=WAIT_MS)


def test_graph_view_draws_entities_and_exports_graphml(window, tmp_path):
    import networkx as nx

    db = Database(window.settings.collection_path(window.collection))
    ents = [(1, "mirela varga", "Mirela Varga", "person"), (2, "harwick point", "Harwick Point", "place"),
            (3, "lighthouse", "Harwick lighthouse", "building"), (4, "rookhaven", "Rookhaven Chess Club", "org")]
    with db.transaction():
        for eid, name, display, etype in ents:
            db.execute("INSERT INTO entities(id, source, name, display, type, description) VALUES (?, 'text', ?, ?, ?, '')",
                       (eid, name, display, etype))
        for src, dst, desc in ((1, 3, "keeps"), (3, 2, "stands on")):
            db.execute("INSERT INTO relations(source, src_id, dst_id, description, keywords, strength) "
                       "VALUES ('text', ?, ?, ?, '', 2.0)", (src, dst, desc))
    db.close()
    window.graph_view.refresh_sources()
    assert window.graph_view.show_entities(["Mirela Varga"], hops=2) == 3
    assert len(window.graph_view.scene.items()) >= 3 * 2 + 2  # dots + labels + edges
    nodes, edges = window.graph_view.export(tmp_path / "g.graphml")
    assert (nodes, edges) == (4, 2)
    g = nx.read_graphml(tmp_path / "g.graphml")
    assert g.nodes["text:mirela varga"]["label"] == "Mirela Varga"
