"""The main window: collections on the left; Documents (drop to index), Ask and Graph tabs.

All engine work happens in workers (``workers.py``); this class wires their signals to the widgets
and keeps at most one indexing job (further drops are queued) and one question at a time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional, Sequence

from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QWidget,
)

from k2desk.config import DEFAULT_COLLECTION, Settings, bundle_info
from k2desk.engine import Engine, calibration_note, reader_llm_name, role_calibration
from k2desk.errors import K2Error
from k2desk.gui.watcher import FolderWatcher
from k2desk.gui.widgets.about import AboutDialog
from k2desk.gui.widgets.ask_panel import AskPanel
from k2desk.gui.widgets.collections import CollectionsPanel
from k2desk.gui.widgets.compare_panel import ComparePanel
from k2desk.gui.widgets.drop_zone import local_paths
from k2desk.gui.widgets.errors import ErrorReporter
from k2desk.gui.widgets.graph_view import GraphView
from k2desk.gui.widgets.history_panel import HistoryPanel
from k2desk.gui.widgets.index_panel import IndexPanel
from k2desk.gui.widgets.serve_switch import ServeSwitch
from k2desk.gui.widgets.settings_dialog import SettingsDialog
from k2desk.gui.workers import (
    AskWorker,
    CalibrateWorker,
    CompareWorker,
    DoctorWorker,
    IndexWorker,
    Job,
    WarmWorker,
    document_detail,
    first_line,
)
from k2desk.indexing import IndexReport
from k2desk.methods.registry import METHOD_NAMES
from k2desk.store.address import shown_address
from k2desk.store.history import HistoryStore
from k2desk.types import Answer

DEFAULT_METHOD = "k2rag"
FALLBACK_METHOD = "hybrid"
WARM_DELAY_MS = 400  # the window paints and lists its documents before the index is read in the background


class MainWindow(QMainWindow):
    def __init__(self, settings: Settings, remember_home: Optional[Callable[[Path], None]] = None) -> None:
        super().__init__()
        self.settings = settings
        self.remember_home = remember_home  # persists a data folder chosen in the settings dialog
        self.collection: Optional[str] = None
        self.index_job: Optional[Job] = None
        self.index_collection: Optional[str] = None
        self.ask_job: Optional[Job] = None
        self.warm_job: Optional[Job] = None  # reads what the first question would (WarmWorker)
        self.about_job: Optional[Job] = None  # the About box's report (DoctorWorker)
        self.about_dialog: Optional[AboutDialog] = None
        self.warm_timer = QTimer(self)
        self.warm_timer.setSingleShot(True)
        self.warm_timer.setInterval(WARM_DELAY_MS)
        self.warm_timer.timeout.connect(self._warm)
        self.queue: list[tuple[str, list[str], list[str]]] = []  # (collection, paths, removed paths)
        self.retired: list[Job] = []  # ended jobs, kept until their queued signals are delivered
        self.extra_rows: dict[str, dict[str, tuple[str, str]]] = {}  # per collection: rows not in the DB (skipped files)
        self.last_report: Optional[IndexReport] = None
        self.last_answer: Optional[Answer] = None
        self.errors = ErrorReporter(self)
        self._update_title()
        self.resize(1280, 820)
        self.setAcceptDrops(True)

        self.watcher = FolderWatcher(ignore=[settings.home])
        self.watcher.changed.connect(self.on_watched_change)
        self.collections = CollectionsPanel(settings, busy=self._in_use)
        self.collections.selected.connect(self.set_collection)
        self.collections.changed.connect(self._refresh_collection)
        self.collections.changed.connect(self.sync_watches)
        self.collections.failed.connect(lambda m: self.errors.show("Collections", m))
        self.index_panel = IndexPanel()
        self.index_panel.paths_dropped.connect(self.index_paths)
        self.index_panel.cancel_requested.connect(self.cancel_indexing)
        self.index_panel.resume_requested.connect(self.resume_indexing)
        self.index_panel.documents.remove_requested.connect(self.remove_document)
        self.index_panel.documents.ask_about_requested.connect(self.ask_about)
        self.index_panel.watch_requested.connect(self.watch_folder)
        self.index_panel.unwatch_requested.connect(self.unwatch_folder)
        self.ask_panel = AskPanel(METHOD_NAMES, DEFAULT_METHOD, self.document_text, self.document_meta)
        self.ask_panel.ask_requested.connect(self.ask)
        self.ask_panel.stop_requested.connect(self.stop_asking)
        self.ask_panel.method.currentIndexChanged.connect(lambda _i: self.warm_timer.start())
        conversations = self.ask_panel.conversations
        conversations.open_requested.connect(self.open_thread)
        conversations.rename_requested.connect(self.rename_thread)
        conversations.delete_requested.connect(self.delete_thread)
        conversations.export_requested.connect(self.export_thread)
        self.compare_panel = ComparePanel(METHOD_NAMES)
        self.compare_panel.compare_requested.connect(self.compare)
        self.compare_panel.stop_requested.connect(self.stop_asking)
        self.history_panel = HistoryPanel()
        self.history_panel.ask_again.connect(self.ask_again)
        self.history_panel.remove_requested.connect(self.remove_history_entry)
        self.history_panel.clear_requested.connect(self.clear_history)
        self.history_panel.message.connect(lambda m: self.statusBar().showMessage(m, 8000))
        self.graph_view = GraphView(self.open_engine)
        self.graph_view.message.connect(lambda m: self.statusBar().showMessage(m, 8000))
        self.tabs = QTabWidget()
        self.tabs.addTab(self.index_panel, "Documents")
        self.tabs.addTab(self.ask_panel, "Ask")
        self.tabs.addTab(self.compare_panel, "Compare")
        self.tabs.addTab(self.graph_view, "Graph")
        self.tabs.addTab(self.history_panel, "History")
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.collections)
        split.addWidget(self.tabs)
        split.setStretchFactor(1, 1)
        split.setSizes([220, 1060])
        self.setCentralWidget(split)
        self.status = QLabel("")
        self.statusBar().addPermanentWidget(self.status)
        self.calibration = QLabel("")  # the reading model and whose thresholds decide its verdicts
        self.statusBar().addPermanentWidget(self.calibration)
        self.calibrating = QProgressBar()  # a calibration running in the background, with its Cancel
        self.calibrating.setMinimumWidth(280)
        self.calibrating.setFormat("calibrating %v/%m")
        self.calibrate_cancel = QPushButton("Cancel")
        self.calibrate_cancel.clicked.connect(lambda: self.calibrate_job.cancel() if self.calibrate_job else None)
        for widget in (self.calibrating, self.calibrate_cancel):
            widget.hide()
            self.statusBar().addPermanentWidget(widget)
        self.calibrate_job: Optional[Job] = None
        self.last_calibration = None  # the last calibration.Run
        self._show_calibration()
        self.serve_switch = ServeSwitch(lambda: self.settings, lambda: self.collection, self)
        self.serve_switch.failed.connect(lambda m: self.errors.show("Serve", m))
        self.statusBar().addPermanentWidget(self.serve_switch.label)
        self._menus()
        self._open_collections()
        if self.collection and self.index_panel.documents.counts().get("done"):
            self.tabs.setCurrentWidget(self.ask_panel)
        self.sync_watches()

    def _menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        for text, slot, key in (("Add &folder…", self.index_panel.drop_zone.choose_folder, "Ctrl+O"),
                                ("Add f&iles…", self.index_panel.drop_zone.choose_files, None),
                                ("&Export graph as GraphML…", self.graph_view.choose_export, None),
                                ("&Settings…", self.open_settings, "Ctrl+,"),
                                ("&Quit", self.close, QKeySequence.StandardKey.Quit)):
            action = QAction(text, self)
            action.triggered.connect(slot)
            if key is not None:
                action.setShortcut(QKeySequence(key))
            file_menu.addAction(action)
        file_menu.insertAction(file_menu.actions()[-1], self.serve_switch.action)
        about = QAction("&About k2desk", self)
        about.triggered.connect(self.show_about)
        self.menuBar().addMenu("&Help").addAction(about)

    def show_about(self) -> None:
        """Help → About: the version and ``k2desk doctor``'s report, made again in the background
        each time the box opens."""
        if self.about_dialog is None:
            self.about_dialog = AboutDialog(self)
        dialog = self.about_dialog
        if self.about_job is None or not self.about_job.running:
            dialog.summary.setText("Checking what runs where…")
            if self.about_job is not None:  # ended: kept until its queued signals are delivered
                self.retired = (self.retired + [self.about_job])[-4:]
            job = Job(DoctorWorker(self.settings, self.collection or DEFAULT_COLLECTION))
            job.worker.finished.connect(dialog.show_report)
            job.worker.failed.connect(dialog.show_failure)
            self.about_job = job.start()
        dialog.show()
        dialog.raise_()

    def _guard(self, title: str, action: Callable[[], object]) -> object:
        """Run a GUI-thread action; an expected failure becomes one readable dialog."""
        try:
            return action()
        except K2Error as exc:
            self.errors.show(title, str(exc))
        except OSError as exc:
            self.errors.show(title, f"{exc.strerror or exc}: {exc.filename or ''}".strip())
        return None

    # -- collection --------------------------------------------------------------------
    def _open_collections(self) -> None:
        """List the collections where the settings keep them; a first start there makes the default
        one (not when the list could not be read: its one-line reason is already shown)."""
        if self.collections.reload() and not self.collections.names():
            self._guard("Collections", lambda: self.collections.create(DEFAULT_COLLECTION))

    def _update_title(self) -> None:
        """The collection's name, and the team server it is on (never its password)."""
        title = f"k2desk — {self.collection}" if self.collection else "k2desk"
        if self.settings.store:
            title += f" on {shown_address(self.settings.store)}"
        self.setWindowTitle(title)

    def open_engine(self) -> Optional[Engine]:
        """An engine on the current collection (its own connection), for short reads in the GUI
        thread; the models load only if used, and these reads use none."""
        if self.collection is None:
            return None
        return Engine(self.settings, self.collection)

    def _read(self, read: Callable[[Engine], object], title: str = "Collection") -> object:
        """``read(engine)`` on the current collection; None without one, or after a readable error."""
        engine = self._guard(title, self.open_engine)
        if engine is None:
            return None
        with engine:
            return self._guard(title, lambda: read(engine))

    def document_text(self, key: str) -> Optional[str]:
        return self._read(lambda e: e.document_text(key))  # type: ignore[return-value]

    def document_meta(self, key: str) -> Optional[dict]:
        doc = self._read(lambda e: e.document(key))
        return doc.meta if doc else None  # type: ignore[attr-defined]

    @Slot(str)
    def set_collection(self, name: str) -> None:
        if name != self.collection:
            self.ask_panel.set_scope([])  # a scope names documents of one collection
            self.ask_panel.new_conversation()  # and so does a conversation
        self.collection = name
        self.ask_panel.reset_availability()
        self.index_panel.set_watched(self.watcher.watched(name))
        self._refresh_collection()
        self.warm_timer.start()

    def _refresh_collection(self) -> None:
        if self.collection not in self.collections.names():
            self.collection = self.collections.current()
        self._update_title()
        table = self.index_panel.documents
        table.clear_all()
        if self.collection is None:
            self.ask_panel.set_scope([])
            return
        docs = self._read(lambda e: e.documents())
        if docs is None:
            return
        self.ask_panel.keep_scope({d.key for d in docs})  # a removed document leaves the scope
        rows = [(d.key, d.status, document_detail(d.status, d.stages, d.n_chunks, d.error, d.meta)) for d in docs]
        stored = {d.key for d in docs}
        rows += [(key, status, detail) for key, (status, detail) in self.extra_rows.get(self.collection, {}).items()
                 if key not in stored]
        table.set_all(rows)
        running_here = self.index_job is not None and self.index_collection == self.collection
        self.index_panel.set_running(running_here, self.pending_count())
        self.graph_view.refresh_sources()
        self.refresh_history()
        self.refresh_threads()
        self._update_status()

    def pending_count(self) -> int:
        counts = self.index_panel.documents.counts()
        return counts.get("pending", 0) + counts.get("processing", 0)

    def _update_status(self) -> None:
        table = self.index_panel.documents
        c = table.counts()
        docs = sum(c.values()) - c.get("skipped", 0)
        self.status.setText(f"{self.collection or 'no collection'} · {docs} document{'s' if docs != 1 else ''}: "
                            f"{table.searchable()} searchable, {c.get('done', 0)} fully indexed, {c.get('failed', 0)} failed"
                            f" · answers with {Path(str(reader_llm_name(self.settings))).name}"
                            + (" (lite download)" if bundle_info().get("lite") else ""))

    def _in_use(self, name: str) -> bool:
        """Whether a rename or delete of collection ``name`` must wait: it is indexed or queried.
        A background read of its index (WarmWorker) only fills caches: it is stopped instead."""
        if self.warm_job is not None and self.warm_job.worker.collection == name:
            self.warm_job.stop()
        return self._busy(name)

    def _busy(self, name: str) -> bool:
        return (self.index_job is not None and self.index_collection == name) or \
            (self.ask_job is not None and self.collection == name)

    # -- indexing ----------------------------------------------------------------------
    @Slot(list)
    def index_paths(self, paths: list) -> None:
        if self.collection is None:
            self._guard("Collections", lambda: self.collections.create(DEFAULT_COLLECTION))
        if self.collection is None:
            return
        self.tabs.setCurrentWidget(self.index_panel)
        self._enqueue(self.collection, list(paths))

    def _enqueue(self, collection: str, paths: list[str], removed: Sequence[str] = ()) -> None:
        if self.index_job is not None:
            self.queue.append((collection, paths, list(removed)))
            self.statusBar().showMessage(f"queued {len(paths) + len(removed)} item(s); they are indexed after the "
                                         "current run", 8000)
            return
        self._start_index(collection, paths, removed)

    @Slot()
    def resume_indexing(self) -> None:
        if self.index_job is None and self.collection is not None:
            self._start_index(self.collection, [])

    @Slot()
    def cancel_indexing(self) -> None:
        if self.index_job is not None:
            self.queue.clear()
            self.index_job.cancel()
            self.index_panel.set_state("Cancelling… (the current document is finished or rolled back)")

    def _start_index(self, collection: str, paths: list[str], removed: Sequence[str] = ()) -> None:
        worker = IndexWorker(self.settings, collection, paths, removed)
        worker.progress.connect(self._on_index_progress)
        worker.document_status.connect(self._on_document_status)
        worker.document_removed.connect(self._on_document_removed)
        worker.finished.connect(self._on_index_finished)
        worker.failed.connect(self._on_index_failed)
        self.index_job = Job(worker)
        self.index_collection = collection
        self.index_job.thread.finished.connect(self._on_index_thread_done)
        self.index_panel.progress.reset()
        named = [*paths, *removed]
        what = ", ".join(Path(p).name for p in named[:3]) + (" …" if len(named) > 3 else "") if named else "unfinished documents"
        self.index_panel.set_state(f"Indexing {what} into “{collection}”…")
        self.index_panel.set_running(True)
        self.index_job.start()

    @Slot(str, int, int)
    def _on_index_progress(self, stage: str, done: int, total: int) -> None:
        self.index_panel.progress.update(stage, done, total)

    @Slot(str, str, str)
    def _on_document_status(self, key: str, status: str, detail: str) -> None:
        if self.index_collection is not None:
            self.extra_rows.setdefault(self.index_collection, {})[key] = (status, detail)
        if self.index_collection == self.collection:
            self.index_panel.documents.set_status(key, status, detail)
            self._update_status()

    @Slot(str)
    def _on_document_removed(self, key: str) -> None:
        self.extra_rows.get(self.index_collection or "", {}).pop(key, None)
        if self.index_collection == self.collection:
            self.index_panel.documents.remove(key)
            self.ask_panel.keep_scope(set(self.ask_panel.scope) - {key})
            self._update_status()

    @Slot(object)
    def _on_index_finished(self, report: IndexReport) -> None:
        self.last_report = report
        summary = report.summary()
        if report.cancelled:
            self.index_panel.set_state(f"Cancelled. {summary}. Resume continues where it stopped.")
        else:
            self.index_panel.set_state(f"Done. {summary}.")
        self.index_panel.progress.set_state("")

    @Slot(str)
    def _on_index_failed(self, message: str) -> None:
        self.index_panel.set_state(f"Indexing stopped: {first_line(message)}")
        if message != "cancelled":
            self.errors.show("Indexing failed", message)

    def _retire(self, job: Optional[Job]) -> None:
        """Dropping the last reference to a QThread deletes it, and with it the signals still queued
        to other receivers of its ``finished``: keep ended jobs a while."""
        if job is not None:
            self.retired = (self.retired + [job])[-4:]

    @Slot()
    def _on_index_thread_done(self) -> None:
        self._retire(self.index_job)
        self.index_job = None
        self.index_collection = None
        if self.collection is not None:
            self._refresh_collection()
        if self.queue:
            self._start_index(*self.queue.pop(0))
        else:
            self.warm_timer.start()

    @Slot()
    def _warm(self) -> None:
        """Read in the background what the Ask tab's method reads before it can answer (at
        100,000 chunks ~2 s the first question would otherwise pay), while no indexing or
        question runs on the collection; one such job at a time."""
        if self.collection is None or self._busy(self.collection):
            return
        if self.warm_job is not None:
            self.warm_timer.start()  # again once this one has ended (another collection or method)
            return
        self.warm_job = Job(WarmWorker(self.settings, self.collection, self.ask_panel.current_method()))
        self.warm_job.thread.finished.connect(self._on_warm_thread_done)
        self.warm_job.start()

    @Slot()
    def _on_warm_thread_done(self) -> None:
        self._retire(self.warm_job)
        self.warm_job = None

    def remove_document(self, key: str) -> None:
        if self._busy(self.collection or ""):
            self.errors.show("Remove document", "wait until indexing has finished (or cancel it) to remove documents")
            return
        from k2desk.engine import Engine

        def remove() -> None:
            with Engine(self.settings, self.collection) as engine:
                engine.remove(key)

        self._guard("Remove document", remove)
        self.extra_rows.get(self.collection or "", {}).pop(key, None)
        self._refresh_collection()

    # -- watched folders ---------------------------------------------------------------
    def sync_watches(self) -> None:
        """Watch every collection's watched folders (after a start, a rename, a delete, another data folder)."""
        from k2desk.engine import Engine

        wanted: dict[str, list[str]] = {}
        for name in self.collections.names():
            def read(name: str = name) -> list[str]:
                with Engine(self.settings, name) as engine:
                    return engine.watched_folders()
            wanted[name] = self._guard("Watched folders", read) or []
        for name in list(self.watcher.folders):
            for folder in self.watcher.watched(name):
                if folder not in wanted.get(name, []):
                    self.watcher.unwatch(name, folder)
        for name, folders in wanted.items():
            for folder in folders:
                if Path(folder).is_dir() and folder not in self.watcher.watched(name):
                    if self._guard("Watched folders", lambda n=name, f=folder: self.watcher.watch(n, f)) is None:
                        continue  # e.g. the system's limit of watches reached: said in a dialog
                    self.on_watched_change(name, [folder], [])  # catch up with changes made while not watching
        self.index_panel.set_watched(self.watcher.watched(self.collection or ""))

    def _store_watched(self, collection: str) -> None:
        from k2desk.engine import Engine

        def store() -> None:
            with Engine(self.settings, collection) as engine:
                engine.set_watched_folders(self.watcher.watched(collection))
        self._guard("Watched folders", store)
        self.index_panel.set_watched(self.watcher.watched(self.collection or ""))

    @Slot(str)
    def watch_folder(self, folder: str) -> None:
        """Index ``folder`` into the current collection now, and again whenever its files change."""
        if self.collection is None or not Path(folder).is_dir():
            return
        collection = self.collection
        path = self._guard("Watch folder", lambda: self.watcher.watch(collection, folder))
        if path is None:
            return
        self._store_watched(collection)
        self.statusBar().showMessage(f"watching {path}: changed files are re-indexed into “{collection}”", 8000)
        self._enqueue(collection, [str(path)])

    @Slot(str)
    def unwatch_folder(self, folder: str) -> None:
        if self.collection is not None:
            self.watcher.unwatch(self.collection, folder)
            self._store_watched(self.collection)
            self.statusBar().showMessage(f"stopped watching {folder} (its documents stay in the collection)", 8000)

    @Slot(str, list, list)
    def on_watched_change(self, collection: str, changed: list, removed: list) -> None:
        if collection in self.collections.names():
            self._enqueue(collection, list(changed), list(removed))

    # -- asking ------------------------------------------------------------------------
    @Slot(list)
    def ask_about(self, keys: list) -> None:
        """"Ask about the selected documents": the Ask tab, its questions about ``keys`` alone
        (until the scope is cleared, another collection is opened, or they are removed)."""
        if not keys:
            return
        self.ask_panel.set_scope(list(keys))
        self.tabs.setCurrentWidget(self.ask_panel)
        self.ask_panel.question.setFocus()

    @Slot(str, str)
    def ask(self, question: str, method: str) -> None:
        if self.ask_job is not None or self.collection is None:
            return
        scope = list(self.ask_panel.scope)
        worker = AskWorker(self.settings, self.collection, question, method, documents=scope, conversation=True,
                           thread=self.ask_panel.thread)
        worker.token.connect(self.ask_panel.append_token)
        worker.progress.connect(self.ask_panel.show_progress)
        worker.finished.connect(self._on_answer)
        worker.failed.connect(self._on_ask_failed)
        self.ask_panel.question.setText(question)
        self.ask_panel.begin(question, method, scope)
        self._start_question(worker, self.ask_panel)

    @Slot(str, list)
    def compare(self, question: str, methods: list) -> None:
        """The same question with two or three methods, side by side (shares the one-question-at-a-time slot)."""
        if self.ask_job is not None or self.collection is None:
            return
        worker = CompareWorker(self.settings, self.collection, question, methods)
        panel = self.compare_panel
        worker.started_method.connect(panel.show_running)
        worker.answered.connect(panel.show_answer)
        worker.method_failed.connect(panel.show_error)
        worker.finished.connect(panel.finish)
        worker.finished.connect(lambda _message: self.refresh_history())
        panel.question.setText(question)
        panel.begin(methods)
        self._start_question(worker, panel)

    def _start_question(self, worker: AskWorker | CompareWorker, shown: QWidget) -> None:
        """One question at a time, from the Ask tab or the Compare tab: both wait while it runs."""
        self.ask_job = Job(worker)
        self.ask_job.thread.finished.connect(self._on_ask_thread_done)
        self.ask_panel.set_busy(True)
        self.compare_panel.set_busy(True)
        self.tabs.setCurrentWidget(shown)
        self.ask_job.start()

    @Slot()
    def stop_asking(self) -> None:
        if self.ask_job is not None:
            self.ask_job.cancel()

    @Slot(object)
    def _on_answer(self, answer: Answer) -> None:
        self.last_answer = answer
        self.ask_panel.show_answer(answer)
        self.refresh_history()
        self.refresh_threads()
        trace = answer.trace
        if trace.get("entities"):
            self.graph_view.refresh_sources()
            self._guard("Graph", lambda: self.graph_view.show_entities(trace["entities"], source=trace.get("graph_source")))

    @Slot(str, str)
    def _on_ask_failed(self, message: str, kind: str) -> None:
        method = self.ask_panel.current_method()
        if kind == "usage" and "not available" in message and method != FALLBACK_METHOD:
            self.ask_panel.mark_unavailable(method, FALLBACK_METHOD)
            message += f" — the method selector now uses {FALLBACK_METHOD}; ask again."
        if kind == "cancelled":
            message = "stopped."
        self.ask_panel.show_error(message)
        if kind == "error":
            self.errors.show("Could not answer", message)

    @Slot()
    def _on_ask_thread_done(self) -> None:
        self._retire(self.ask_job)
        self.ask_job = None
        self.ask_panel.set_busy(False)
        self.compare_panel.set_busy(False)

    @Slot(str, str, list)
    def ask_again(self, question: str, method: str, scope: Sequence[str] = ()) -> None:
        """A question of the history asked again, about the same documents (those still in the collection)."""
        panel = self.ask_panel
        if panel.method.findData(method) >= 0:
            panel.method.setCurrentIndex(panel.method.findData(method))
        if self.ask_job is not None:
            return
        present = {row[3] for row in self.index_panel.documents.rows()}
        kept = [k for k in scope if k in present]
        if len(kept) < len(scope):
            gone = len(scope) - len(kept)
            self.statusBar().showMessage(f"{gone} of the documents it was asked about {'is' if gone == 1 else 'are'} no "
                                         "longer in the collection" + ("" if kept else ": asked about every document"),
                                         8000)
        panel.set_scope(kept)
        panel.new_conversation()  # asked again on its own, not as a follow-up of the conversation shown
        self.ask(question, method)

    # -- conversations -----------------------------------------------------------------
    def refresh_threads(self) -> None:
        threads = self._read(lambda e: e.threads.list(), "Conversations") or []
        self.ask_panel.conversations.set_threads(threads, self.ask_panel.thread)

    @Slot(int)
    def open_thread(self, thread_id: int) -> None:
        """A conversation reopened: its turns shown, its method and documents chosen again."""
        if self.ask_job is not None:
            return
        found = self._read(lambda e: (e.threads.get(thread_id), e.history.turns(thread_id)), "Conversations")
        if not found or found[0] is None:
            self.refresh_threads()
            return
        thread, turns = found
        panel = self.ask_panel
        if panel.method.findData(thread.method) >= 0:
            panel.method.setCurrentIndex(panel.method.findData(thread.method))
        present = {row[3] for row in self.index_panel.documents.rows()}
        kept = [k for k in thread.scope if k in present]
        if len(kept) < len(thread.scope):
            self.statusBar().showMessage("some documents this conversation asked about are no longer in the collection"
                                         + ("" if kept else ": it asks about every document now"), 8000)
        panel.set_scope(kept)
        panel.load_conversation(thread_id, turns)
        self.tabs.setCurrentWidget(panel)
        panel.question.setFocus()

    @Slot(int, str)
    def rename_thread(self, thread_id: int, title: str) -> None:
        self._read(lambda e: e.threads.update(thread_id, title=title), "Conversations")
        self.refresh_threads()

    @Slot(int)
    def delete_thread(self, thread_id: int) -> None:
        answer = QMessageBox.question(self, "Delete conversation", "Delete this conversation and its questions and answers?")
        if answer != QMessageBox.StandardButton.Yes:
            return
        self._read(lambda e: e.threads.remove(thread_id), "Conversations")
        if self.ask_panel.thread == thread_id:
            self.ask_panel.new_conversation()
        self.refresh_threads()
        self.refresh_history()

    @Slot(int)
    def export_thread(self, thread_id: int, path: Optional[str] = None) -> None:
        from k2desk.history_markdown import thread_markdown

        found = self._read(lambda e: (e.threads.get(thread_id), e.history.turns(thread_id)), "Conversations")
        if not found or found[0] is None:
            return
        thread, turns = found
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export conversation", f"{thread.title[:40]}.md", "Markdown (*.md)")
        if not path:
            return
        try:
            Path(path).write_text(thread_markdown(thread.title, turns, self.collection or ""), encoding="utf-8")
        except OSError as exc:
            self.errors.show("Could not export the conversation", f"{path}: {exc.strerror or exc}")
            return
        self.statusBar().showMessage(f"conversation exported to {path}", 8000)

    # -- history -----------------------------------------------------------------------
    def _history(self, action: Callable[[HistoryStore], object]) -> object:
        return self._read(lambda e: action(e.history), "History")

    def refresh_history(self) -> None:
        entries = self._history(lambda h: h.list()) or []
        self.history_panel.set_entries(entries, self.collection or "")

    def remove_history_entry(self, entry_id: int) -> None:
        self._history(lambda h: h.remove(entry_id))
        self.refresh_history()

    def clear_history(self) -> None:
        n = len(self.history_panel.entries)
        answer = QMessageBox.question(self, "Clear history",
                                      f"Remove all {n} questions and answers of “{self.collection}” from its history?")
        if answer == QMessageBox.StandardButton.Yes:
            self._history(lambda h: h.clear())
            self.refresh_history()

    # -- settings ----------------------------------------------------------------------
    def open_settings(self) -> SettingsDialog:
        dialog = SettingsDialog(self.settings, self)
        dialog.accepted.connect(lambda: self.apply_settings(dialog.result_settings))
        dialog.calibrate.connect(self.start_calibration)
        dialog.open()
        return dialog

    def apply_settings(self, new: Optional[Settings]) -> None:
        if new is None:
            return
        home_changed = new.home != self.settings.home
        store_changed = new.store != self.settings.store
        self.settings = new
        self.collections.settings = new
        if home_changed:
            if self.remember_home is not None:
                self.remember_home(new.home)
            self.watcher.ignore = [new.home.resolve()]
        if home_changed or store_changed:
            self._open_collections()
            self.sync_watches()
        self._refresh_collection()
        self._show_calibration()
        self.statusBar().showMessage(f"settings saved to {new.settings_file}", 8000)

    def start_calibration(self, model: str) -> None:
        """Calibrate ``model`` in the background (CalibrateWorker): progress and Cancel in the status
        bar, the result there and beside the model's name in Settings."""
        if self.calibrate_job is not None:
            self.statusBar().showMessage("a calibration is already running", 8000)
            return
        worker = CalibrateWorker(self.settings, model)
        self.calibrating.setFormat(f"calibrating {Path(model).stem[:18]} %v/%m")
        worker.progress.connect(self._calibration_progress)
        worker.finished.connect(self._calibration_done)
        worker.failed.connect(self._calibration_failed)
        self.calibrating.setRange(0, 0)
        self.calibrating.show()
        self.calibrate_cancel.show()
        self.calibrate_job = Job(worker)
        self.calibrate_job.thread.finished.connect(self._calibration_ended)
        self.calibrate_job.start()

    @Slot(str, int, int)
    def _calibration_progress(self, stage: str, done: int, total: int) -> None:
        name = Path(self.calibrate_job.worker.model).stem[:18] if self.calibrate_job else ""
        self.calibrating.setFormat(f"{'calibrating' if stage == 'calibrate' else stage} {name} %v/%m")
        self.calibrating.setRange(0, max(total, 1))
        self.calibrating.setValue(done)

    @Slot(object)
    def _calibration_done(self, run) -> None:
        from k2desk.eval.calibrate import summary

        self.last_calibration = run
        self._show_calibration()
        self.statusBar().showMessage(f"{run.name} calibrated: {summary(run.report)}", 30_000)

    @Slot(str)
    def _calibration_failed(self, message: str) -> None:
        self.statusBar().showMessage("calibration stopped; its answers are kept and it resumes from there"
                                     if message == "cancelled" else f"calibration failed: {first_line(message)}", 15_000)

    @Slot()
    def _calibration_ended(self) -> None:
        self._retire(self.calibrate_job)
        self.calibrating.hide()
        self.calibrate_cancel.hide()
        self.calibrate_job = None

    def _show_calibration(self) -> None:
        """The status bar's model line: "qwen2.5-coder-1.5b · calibrated", or "… · uncalibrated"
        (conservative defaults), the whole note as its tooltip."""
        try:
            calibrated, note = role_calibration(self.settings, "reader").calibrated, calibration_note(self.settings)
        except (K2Error, OSError) as exc:
            self.calibration.setText("")
            self.calibration.setToolTip(first_line(str(exc)))
            return
        # the status line before it names the model ("… · answers with qwen2.5-coder-1.5b")
        self.calibration.setText(f"· {'calibrated' if calibrated else 'uncalibrated: conservative defaults'}")
        self.calibration.setToolTip(note)

    # -- window ------------------------------------------------------------------------
    def dragEnterEvent(self, event) -> None:  # noqa: N802 - drops anywhere on the window index too
        if local_paths(event):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802
        paths = local_paths(event)
        if paths:
            event.acceptProposedAction()
            self.index_paths(paths)

    def busy(self) -> bool:
        return self.index_job is not None or self.ask_job is not None

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        self.queue.clear()
        self.serve_switch.stop()
        self.watcher.stop()
        self.warm_timer.stop()
        for job in (self.warm_job, self.ask_job, self.index_job, self.about_job, self.calibrate_job, *self.retired):
            if job is not None and not job.stop(15_000):  # cancel acts between units of work
                self.statusBar().showMessage("waiting for the current step to finish…")
                job.thread.wait()  # a QThread destroyed while running aborts the process
        super().closeEvent(event)
