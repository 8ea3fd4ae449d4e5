"""Workers: QObjects moved onto QThreads so indexing and answering never block the window.

Each worker opens its OWN ``Engine`` (hence its own SQLite connection) inside its thread and
closes it before it reports ``done``; the models are shared per process by the engine. Cancel
sets a ``CancelToken`` the engine checks between units of work (one document, one embedding
batch, one generated token), so a cancel takes effect within a second or two and leaves the
index consistent (each document's stage is written in one transaction or not at all).

Signals cross threads as queued connections, so the receiving widgets run in the GUI thread.
"""

from __future__ import annotations

import sys
import time
import traceback
from pathlib import Path
from typing import Optional, Sequence

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot

from k2desk.config import Settings
from k2desk.errors import Cancelled, K2Error, UsageError
from k2desk.ingest.document import reading_note
from k2desk.progress import CancelToken

STATUS_POLL_S = 0.3  # how often the index worker re-reads per-document status while it runs


def _unexpected(exc: BaseException) -> str:
    traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    return f"unexpected error ({type(exc).__name__}): {exc}"


class Worker(QObject):
    """What every worker has: the settings, its collection, and a cancel token its ``run`` checks
    between units of work."""

    done = Signal()  # always last: the thread may stop

    def __init__(self, settings: Settings, collection: str) -> None:
        super().__init__()
        self.settings = settings
        self.collection = collection
        self.cancel_token = CancelToken()

    def cancel(self) -> None:  # thread-safe: called from the GUI thread
        self.cancel_token.cancel()


class IndexWorker(Worker):
    """Index ``paths`` into ``collection`` (no paths: resume what a previous run left unfinished)."""

    progress = Signal(str, int, int)  # stage, done, total
    document_status = Signal(str, str, str)  # document key, status, detail (reason, chunk count)
    document_removed = Signal(str)  # document key (its file or folder was deleted)
    finished = Signal(object)  # IndexReport (report.cancelled tells a cancelled run)
    failed = Signal(str)  # one readable line

    def __init__(self, settings: Settings, collection: str, paths: Sequence[str | Path] = (),
                 removed: Sequence[str | Path] = ()) -> None:
        super().__init__(settings, collection)
        self.paths = [Path(p) for p in paths]
        self.removed = [str(p) for p in removed]  # deleted files or folders: their documents go
        self._known: dict[str, tuple[str, str]] = {}
        self._last_poll = 0.0

    @Slot()
    def run(self) -> None:
        from k2desk.engine import Engine

        try:
            with Engine(self.settings, self.collection) as engine:
                gone = [key for path in self.removed for key in engine.remove(path)]
                for key in gone:
                    self._known.pop(key, None)
                    self.document_removed.emit(key)
                self._poll(engine, force=True)

                def on_progress(stage: str, done: int, total: int) -> None:
                    self.progress.emit(stage, done, total)
                    self._poll(engine)

                if self.paths or self.removed:
                    report = engine.index(self.paths, progress=on_progress, cancel=self.cancel_token)
                    report.removed.extend(gone)
                else:
                    report = engine.resume(progress=on_progress, cancel=self.cancel_token)
                self._poll(engine, force=True)
                known = set(self._known)
                for key, reason in report.failed:  # e.g. bad lines of a corpus file: not documents
                    if key not in known:
                        self.document_status.emit(key, "failed", reason)
                for path, reason in report.unsupported:
                    self.document_status.emit(path, "skipped", reason)
            self.finished.emit(report)
        except Cancelled:
            self.failed.emit("cancelled")
        except K2Error as exc:
            self.failed.emit(str(exc))
        except Exception as exc:  # noqa: BLE001 - a worker must never take the app down
            self.failed.emit(_unexpected(exc))
        finally:
            self.done.emit()

    def _poll(self, engine, force: bool = False) -> None:
        """Emit the documents whose status changed since the last poll (throttled)."""
        now = time.monotonic()
        if not force and now - self._last_poll < STATUS_POLL_S:
            return
        self._last_poll = now
        for d in engine.documents():
            detail = document_detail(d.status, d.stages, d.n_chunks, d.error, d.meta)
            state = (d.status, detail)
            if self._known.get(d.key) != state:
                self._known[d.key] = state
                self.document_status.emit(d.key, d.status, detail)


class AskWorker(Worker):
    """Answer one question, about ``documents`` alone when given (document keys; none: the whole
    collection); the answer's tokens are streamed through ``token``."""

    token = Signal(str)
    progress = Signal(str, int, int)
    finished = Signal(object)  # Answer
    failed = Signal(str, str)  # message, kind: "usage" | "cancelled" | "error"

    def __init__(self, settings: Settings, collection: str, question: str, method: str,
                 documents: Sequence[str] = (), conversation: bool = False, thread: Optional[int] = None) -> None:
        super().__init__(settings, collection)
        self.question = question
        self.method = method
        self.documents = list(documents)
        self.conversation = conversation  # a message of a conversation (``thread``; None: a new one)
        self.thread = thread

    @Slot()
    def run(self) -> None:
        from k2desk.engine import Engine

        try:
            t0 = time.perf_counter()
            with Engine(self.settings, self.collection) as engine:
                if self.conversation:
                    answer = engine.converse(self.question, thread=self.thread, method=self.method,
                                             documents=self.documents, cancel=self.cancel_token,
                                             progress=lambda s, d, t: self.progress.emit(s, d, t),
                                             on_token=self.token.emit)
                else:
                    answer = engine.ask(self.question, method=self.method, cancel=self.cancel_token, remember=True,
                                        progress=lambda s, d, t: self.progress.emit(s, d, t), on_token=self.token.emit,
                                        documents=self.documents)
                answer.timings.setdefault("wall", time.perf_counter() - t0)
                self.finished.emit(answer)
                if self.conversation and answer.conversation.get("thread") is not None:
                    self._read_ahead(engine, answer.conversation["thread"])
        except Cancelled:
            self.failed.emit("cancelled", "cancelled")
        except UsageError as exc:
            self.failed.emit(str(exc), "usage")
        except K2Error as exc:
            self.failed.emit(str(exc), "error")
        except Exception as exc:  # noqa: BLE001
            self.failed.emit(_unexpected(exc), "error")
        finally:
            self.done.emit()

    def _read_ahead(self, engine, thread: int) -> None:
        """While the next message is typed (~0.5 s of a 1.5B on 2 cores), what its rewrite reads
        first (Engine.read_ahead; Stop ends it). Only a head start: a failure here is the next
        message's to report."""
        try:
            engine.read_ahead(thread, cancel=self.cancel_token)
        except Exception:  # noqa: BLE001 - the answer is shown; nothing here may turn it into an error
            pass


class CompareWorker(Worker):
    """Answer one question with each of ``methods`` in turn, on one engine (one LLM job at a time)."""

    started_method = Signal(int, str)  # position, method
    answered = Signal(int, object)  # position, Answer
    method_failed = Signal(int, str)  # position, one readable line
    finished = Signal(str)  # a one-line summary

    def __init__(self, settings: Settings, collection: str, question: str, methods: Sequence[str]) -> None:
        super().__init__(settings, collection)
        self.question = question
        self.methods = list(methods)

    @Slot()
    def run(self) -> None:
        from k2desk.engine import Engine

        times: list[str] = []
        try:
            with Engine(self.settings, self.collection) as engine:
                for i, method in enumerate(self.methods):
                    self.cancel_token.check()
                    self.started_method.emit(i, method)
                    t0 = time.perf_counter()
                    try:
                        answer = engine.ask(self.question, method=method, cancel=self.cancel_token, remember=True)
                    except Cancelled:
                        raise
                    except K2Error as exc:
                        self.method_failed.emit(i, str(exc))
                        continue
                    answer.timings.setdefault("wall", time.perf_counter() - t0)
                    times.append(f"{method} {answer.timings.get('total', answer.timings['wall']):.1f} s")
                    self.answered.emit(i, answer)
            self.finished.emit("Answered: " + ", ".join(times) + "." if times else "No method could answer.")
        except Cancelled:
            self.finished.emit("Stopped.")
        except K2Error as exc:
            self.finished.emit(str(exc))
        except Exception as exc:  # noqa: BLE001
            self.finished.emit(_unexpected(exc))
        finally:
            self.done.emit()


class WarmWorker(Worker):
    """Read in the background what ``method``'s first question would read before it could answer
    (``Engine.warm``: the embedder, the vectors' in-process copies, the sparse statistics), so
    the first question of a session is as quick as the next. Quiet: a failure here is the
    question's to report."""

    finished = Signal(str, list)  # collection, what was read ("chunks/text", ...)

    def __init__(self, settings: Settings, collection: str, method: str) -> None:
        super().__init__(settings, collection)
        self.method = method

    @Slot()
    def run(self) -> None:
        from k2desk.engine import Engine

        try:
            with Engine(self.settings, self.collection) as engine:
                read = engine.warm(self.method, self.cancel_token)
            self.finished.emit(self.collection, read)
        except (Cancelled, K2Error):
            pass
        except Exception as exc:  # noqa: BLE001 - a worker must never take the app down
            _unexpected(exc)
        finally:
            self.done.emit()


class DoctorWorker(Worker):
    """``k2desk doctor``'s report for the About box (a second or two: model files are checked,
    the embedder's session opened), off the window's thread."""

    finished = Signal(object)  # doctor.Report
    failed = Signal(str)  # one readable line

    @Slot()
    def run(self) -> None:
        from k2desk.doctor import run

        try:
            self.finished.emit(run(self.settings, self.collection))
        except K2Error as exc:
            self.failed.emit(str(exc))
        except Exception as exc:  # noqa: BLE001 - a worker must never take the app down
            self.failed.emit(_unexpected(exc))
        finally:
            self.done.emit()


class CalibrateWorker(Worker):
    """``k2desk models calibrate MODEL`` in the background (k2desk.eval.calibrate): its answers kept
    by question id as it goes, so a cancelled run resumes where it stopped the next time."""

    progress = Signal(str, int, int)  # stage, done, total
    finished = Signal(object)  # calibrate.Run
    failed = Signal(str)  # one readable line ("cancelled" when stopped)

    def __init__(self, settings: Settings, model: str) -> None:
        super().__init__(settings, "")
        self.model = model

    @Slot()
    def run(self) -> None:
        from k2desk.eval.calibrate import calibrate_model

        try:
            self.finished.emit(calibrate_model(self.settings, self.model, progress=self.progress.emit,
                                               cancel=self.cancel_token))
        except Cancelled:
            self.failed.emit("cancelled")
        except (K2Error, ValueError) as exc:
            self.failed.emit(str(exc))
        except Exception as exc:  # noqa: BLE001 - a worker must never take the app down
            self.failed.emit(_unexpected(exc))
        finally:
            self.done.emit()


class Job:
    """A worker running on its own QThread; keep the Job referenced until ``finished`` fires."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.thread = QThread()
        self.thread.setObjectName(type(worker).__name__)
        worker.moveToThread(self.thread)
        self.thread.started.connect(worker.run)
        # Direct: the worker's thread ends its own event loop (QThread.quit is thread-safe). Queued to
        # the QThread object's (GUI) thread, the quit waited for the GUI's event loop, so ``stop``,
        # which blocks that loop, always ran out its time and the window's close then hung.
        worker.done.connect(self.thread.quit, Qt.ConnectionType.DirectConnection)

    def start(self) -> "Job":
        self.thread.start()
        return self

    @property
    def running(self) -> bool:
        return self.thread.isRunning()

    def cancel(self) -> None:
        self.worker.cancel()

    def stop(self, wait_ms: int = 10_000) -> bool:
        """Cancel and wait for the thread to end (used when the window closes)."""
        self.worker.cancel()
        return self.thread.wait(wait_ms)


def chunks_label(n: int) -> str:
    return f"{n} chunk{'s' if n != 1 else ''}"


_STAGE_LABELS = (("text", "searchable"), ("summary", "summarized"), ("graph_summary", "in the graph"),
                 ("graph_text", "in the graph"))


def document_detail(status: str, stages: Sequence[str], n_chunks: int, error: Optional[str] = None,
                    meta: Optional[dict] = None) -> str:
    """A document row's detail: its reason (failed), its chunks (done) and how it was read (OCR, its
    pages and confidence), else what is built so far ("searchable, summarized"), so a person sees
    a document answerable before its graph."""
    if status == "failed":
        return error or "failed"
    if status == "done":
        note = reading_note(meta or {})
        return chunks_label(n_chunks) + (f" · {note}" if note else "")
    built = list(dict.fromkeys(label for stage, label in _STAGE_LABELS if stage in stages))
    return ", ".join(built) if built else "waiting"


def first_line(message: Optional[str]) -> str:
    return (message or "").strip().splitlines()[0] if (message or "").strip() else ""
