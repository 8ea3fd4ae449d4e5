"""Workers on their QThreads: a stopped job ends without the GUI's event loop turning."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from k2desk.engine import Engine  # noqa: E402
from k2desk.gui.workers import Job, WarmWorker  # noqa: E402

pytestmark = pytest.mark.gui


def test_stop_ends_a_running_job_while_the_gui_thread_waits(qtbot, settings, monkeypatch):
    started = []

    def slow_warm(engine, method, cancel):  # runs until it is cancelled
        started.append(method)
        cancel.wait(60)
        cancel.check()

    monkeypatch.setattr(Engine, "warm", slow_warm)
    job = Job(WarmWorker(settings, "default", "hybrid")).start()
    qtbot.waitUntil(lambda: started == ["hybrid"], timeout=10_000)
    # the GUI thread blocks in stop(): the worker's thread must end its own event loop
    assert job.stop(wait_ms=10_000) and not job.running


def test_a_documents_row_says_how_it_was_read():
    from k2desk.gui.workers import document_detail

    scan = {"reading": "OCR", "ocr_pages": 2, "ocr_confidence": 0.991}
    assert document_detail("done", ["text"], 3, meta=scan) == "3 chunks · OCR, 2 pages, confidence 0.99"
    mixed = {"reading": "text layer + OCR", "pages": 6, "ocr_pages": 1, "ocr_confidence": 0.97}
    assert document_detail("done", ["text"], 9, meta=mixed) == "9 chunks · text layer + OCR (1 of 6 pages, confidence 0.97)"
    assert document_detail("done", ["text"], 1, meta={"reading": "text layer"}) == "1 chunk"
    assert document_detail("failed", [], 0, "scan.pdf: no extractable text", meta=scan) == "scan.pdf: no extractable text"


def test_a_message_and_an_attachment_are_named_by_their_file():
    from k2desk.gui.widgets.documents import display_name, location

    assert display_name("/home/ann/mail/team.mbox#message/2") == "team.mbox › message 2"
    assert display_name("/home/ann/mail/complaint.eml#attachment/1/repair-quote.txt") == "complaint.eml › repair-quote.txt"
    assert location("/home/ann/mail/team.mbox#message/2") == "/home/ann/mail"
    assert display_name("/home/ann/notes.txt") == "notes.txt"


def test_the_apps_model_load_on_a_broken_backend_folder_is_one_line_not_a_crash(qtbot, settings, tmp_path, monkeypatch):
    """A backend folder whose CPU levels cannot run here: the answer's worker reports the one
    line the model load raises (runtime/cpu_dispatch.py) instead of the app dying in llama.cpp."""
    from dataclasses import replace
    from pathlib import Path

    from k2desk.gui.workers import AskWorker
    from k2desk.runtime import cpu_dispatch

    sample = Path(__file__).resolve().parents[2] / "resources" / "sample"
    with Engine(settings, "default") as engine:
        engine.index([sample])
    broken = tmp_path / "broken-backends"
    broken.mkdir()
    (broken / "libggml-cpu-x64.so").write_bytes(b"\x7fELF not a library")
    monkeypatch.setattr(cpu_dispatch, "_loaded", None)
    monkeypatch.setattr(cpu_dispatch, "variant_dir", lambda: broken)
    worker = AskWorker(replace(settings, n_ctx=1536), "default", "Who leads the Lindenfeld Solar Cooperative?", "hybrid")
    failures = []
    worker.failed.connect(lambda message, kind: failures.append((message, kind)))
    job = Job(worker).start()
    qtbot.waitUntil(lambda: bool(failures), timeout=120_000)
    job.stop(wait_ms=10_000)
    (message, kind), = failures
    assert kind == "error" and message.startswith("no CPU level of llama.cpp") and "\n" not in message
