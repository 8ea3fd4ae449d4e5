"""The indexing runner: register documents (read + hash), then build each derived store.

Work is stage-major: every pending document is read first, then each build stage runs over the
documents that still need it (the raw-text index first, so the naive methods are usable early).
A stage computes outside any transaction (embedding, LLM calls) and writes one document's rows
in ONE transaction, recording itself in ``document_stages`` with the content hash it was built
from. A crash or a cancel therefore leaves every document either fully indexed by a stage or
not at all, and the next run resumes with what is missing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Protocol, Sequence

from k2desk.errors import Cancelled, IngestError, K2Error
from k2desk.ingest import SUPPORTED, CorpusReport, file_hash, read_path, scan
from k2desk.ingest.document import ReadContext
from k2desk.ingest.ocr import OcrCache
from k2desk.progress import CancelToken, Progress, progress_or_noop
from k2desk.store.db import Database
from k2desk.store.documents import DocumentRow, DocumentStore
from k2desk.types import LLMUsage


@dataclass
class IndexReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    resumed: list[str] = field(default_factory=list)  # unchanged, left unfinished by an earlier run
    skipped: list[str] = field(default_factory=list)  # unchanged since the last run
    failed: list[tuple[str, str]] = field(default_factory=list)  # (document, reason)
    unsupported: list[tuple[str, str]] = field(default_factory=list)  # (path, reason): not documents
    removed: list[str] = field(default_factory=list)
    processed: int = 0  # documents that went through at least one build stage
    chunks: int = 0
    seconds: float = 0.0
    stage_seconds: dict[str, float] = field(default_factory=dict)
    built: dict[str, int] = field(default_factory=dict)  # document-stages this run wrote, per stage name
    llm: LLMUsage = field(default_factory=LLMUsage)  # LLM calls and tokens of every stage
    stage_llm: dict[str, LLMUsage] = field(default_factory=dict)  # the same per stage label
    cancelled: bool = False

    def summary(self) -> str:
        """One line: what happened to each document, and the chunks written."""
        resumed = f", {len(self.resumed)} resumed" if self.resumed else ""
        resumed += f", {len(self.removed)} removed" if self.removed else ""
        return (f"{len(self.added)} added, {len(self.updated)} updated{resumed}, {len(self.skipped)} unchanged, "
                f"{len(self.failed)} failed, {len(self.unsupported)} not supported; "
                f"{self.chunks} chunks in {self.seconds:.1f} s" + (f", {self.llm.calls} LLM calls" if self.llm.calls else ""))


# Every stage's progress label, in the order the stages run, with the title the app shows.
CLAIM_POLL = 0.2  # seconds between tries of a stage another process is building

STAGE_TITLES = {"read": "Read", "ocr": "Read by OCR (pages)", "embed": "Embed", "summarize": "Summarize",
                "embed summaries": "Embed summaries", "graph of summaries": "Graph of the summaries", "graph": "Graph",
                "hypernodes": "Triple hypernodes"}


class Stage(Protocol):
    """One derived store of a document. A stage may also have ``finish(progress, cancel)``,
    called at the end of every run (even one with nothing pending) for collection-wide catch-up."""

    name: str  # recorded in document_stages
    label: str  # progress stage shown to the user (a key of STAGE_TITLES)

    def build(self, doc: DocumentRow, cancel: CancelToken, usage: LLMUsage) -> Callable[[], int]:
        """Do the slow work (cancellable; LLM calls counted in ``usage``); return a writer that
        stores the result (called in a transaction) and returns how many chunks it wrote."""
        ...

    def clear(self, doc_id: int) -> None:
        """Delete every row this stage derived from the document (called in a transaction)."""
        ...


# kinds whose file is one document keyed by its path: an unchanged, finished one is not read again
_ONE_DOCUMENT_KINDS = frozenset(SUPPORTED.values()) - {"jsonl", "eml", "mbox"}


class Indexer:
    def __init__(self, db: Database, stages: Sequence[Stage], ocr: Optional[Callable[[], Any]] = None,
                 ocr_cache: Optional[OcrCache] = None) -> None:
        self.db = db
        self.docs = DocumentStore(db)
        self.stages = list(stages)
        self.ocr, self.ocr_cache = ocr, ocr_cache  # OCR for scans and pictures: a factory (models load when first needed)

    # -- reading -----------------------------------------------------------------------
    def register(self, paths: Sequence[str | Path], report: IndexReport, progress: Progress, cancel: CancelToken) -> None:
        """Read every file under ``paths``; new or changed documents become 'pending'."""
        items = scan(paths)
        for i, item in enumerate(items):
            cancel.check()
            progress("read", i, len(items))
            if item.kind is None:
                report.unsupported.append((str(item.path), item.reason or "unsupported"))
                continue
            if self._unchanged(item.path, item.kind):
                report.skipped.append(str(item.path))
                continue
            corpus = CorpusReport(path=str(item.path))
            try:
                raws = read_path(item.path, corpus, ReadContext(self.ocr, self.ocr_cache, progress, cancel))
            except IngestError as exc:
                key = str(item.path.resolve())
                with self.db.transaction():
                    self._clear_derived(key)
                    self.docs.upsert(key, item.path.name, item.kind, {"path": key}, "", None, status="failed", error=str(exc))
                report.failed.append((key, str(exc)))
                continue
            for line, reason in corpus.skipped:
                report.failed.append((f"{item.path}:{line}", reason))
            for raw in raws:
                old = self.docs.get(raw.key)
                unchanged = old is not None and old.content_hash == raw.content_hash
                if unchanged and old.status == "done" and self._all_stages_done(old):
                    report.skipped.append(raw.key)
                    continue
                with self.db.transaction():
                    if old and not unchanged:
                        self._clear_derived(raw.key)
                    # unchanged but unfinished (a crash, a cancel, a failed stage, a build profile
                    # with more stages): its finished stages stay, recorded with their content hash
                    self.docs.upsert(raw.key, raw.title, raw.kind, raw.meta, raw.content_hash, raw.text)
                if unchanged:
                    report.resumed.append(raw.key)
                else:
                    (report.updated if old else report.added).append(raw.key)
        progress("read", len(items), len(items))

    def _unchanged(self, path: Path, kind: str) -> bool:
        """A file that is one document, indexed by every stage from these very bytes: not read again
        (a scan is not OCR'd again, a workbook not parsed again)."""
        if kind not in _ONE_DOCUMENT_KINDS:
            return False
        old = self.docs.get(str(path))
        if old is None or old.status != "done" or not self._all_stages_done(old):
            return False
        try:
            return file_hash(path) == old.content_hash
        except OSError:
            return False

    def _clear_derived(self, key: str) -> None:
        old = self.docs.get(key)
        if old is None:
            return
        for stage in self.stages:
            stage.clear(old.id)
        self.docs.clear_stages(old.id)

    # -- building ----------------------------------------------------------------------
    def process(self, report: IndexReport, progress: Progress, cancel: CancelToken) -> None:
        """Run every stage over the documents that need it (pending ones, and ones a previous
        run left unfinished)."""
        pending = [d for d in (self.docs.by_id(i) for i in self.docs.ids_to_process()) if d is not None]
        if pending:
            self._build(pending, report, progress, cancel)
        for stage in self.stages:
            finish = getattr(stage, "finish", None)
            if finish is not None:
                finish(progress, cancel)

    def _build(self, pending: list[DocumentRow], report: IndexReport, progress: Progress, cancel: CancelToken) -> None:
        with self.db.transaction():
            for d in pending:
                self.docs.set_status(d.id, "processing")
        failed: set[int] = set()
        elsewhere: set[int] = set()  # documents whose stage another process was building: left to the end
        for stage in self.stages:
            todo = [d for d in pending if d.id not in failed | elsewhere
                    and not self.docs.stage_done(d.id, stage.name, d.content_hash)]
            t0 = time.perf_counter()
            for i, doc in enumerate(todo):
                progress(stage.label, i, len(todo))
                if not self._build_one(stage, doc, report, cancel, pending, failed):
                    elsewhere.add(doc.id)
            progress(stage.label, len(todo), len(todo))
            report.stage_seconds[stage.label] = report.stage_seconds.get(stage.label, 0.0) + time.perf_counter() - t0
        # what another process was building: wait for its claim (or its end: a killed process's
        # claim goes with it), then build each stage it did not finish, in order
        for doc in (d for d in pending if d.id in elsewhere):
            for stage in self.stages:
                while doc.id not in failed and not self._build_one(stage, doc, report, cancel, pending, failed):
                    time.sleep(CLAIM_POLL)
        with self.db.transaction():
            for d in pending:  # a document every stage had already built when this run began
                if d.id not in failed and self._all_stages_done(d):
                    self.docs.set_status(d.id, "done")
        report.processed += len(pending)

    def _build_one(self, stage: Stage, doc: DocumentRow, report: IndexReport, cancel: CancelToken,
                   pending: list[DocumentRow], failed: set[int]) -> bool:
        """Build one document's stage unless it is built; False (nothing done) when another process
        holds its claim. Several processes may index one collection: each claims a document's stage
        before building it, and re-checks it under the claim and again under the write lock."""
        try:
            cancel.check()
            if not self.db.try_claim(stage.name, doc.id):
                return False
            try:
                if self.docs.stage_done(doc.id, stage.name, doc.content_hash):  # built by another meanwhile
                    return True
                spent = LLMUsage()
                try:
                    writer = stage.build(doc, cancel, spent)
                finally:  # a cancelled or failed build spent its calls too
                    report.llm.add(spent)
                    report.stage_llm.setdefault(stage.label, LLMUsage()).add(spent)
                with self.db.transaction():
                    self.db.write_lock()
                    if not self.docs.stage_done(doc.id, stage.name, doc.content_hash):  # (a writer in this process)
                        report.chunks += writer()
                        self.docs.mark_stage(doc.id, stage.name, doc.content_hash)
                        report.built[stage.name] = report.built.get(stage.name, 0) + 1
                    if self._all_stages_done(doc):  # done when its own stages are, not the batch
                        self.docs.set_status(doc.id, "done")
            finally:
                self.db.release(stage.name, doc.id)
        except Cancelled:
            self._leave_pending(pending, failed)
            raise
        except K2Error as exc:
            failed.add(doc.id)
            with self.db.transaction():
                self.docs.set_status(doc.id, "failed", f"{stage.label}: {exc}")
            report.failed.append((doc.key, f"{stage.label}: {exc}"))
        return True

    def _all_stages_done(self, doc: DocumentRow) -> bool:
        return all(self.docs.stage_done(doc.id, s.name, doc.content_hash) for s in self.stages)

    def _leave_pending(self, docs: list[DocumentRow], failed: set[int]) -> None:
        with self.db.transaction():
            for d in docs:
                if d.id not in failed:
                    self.docs.set_status(d.id, "pending")

    # -- removal -----------------------------------------------------------------------
    def remove(self, key: str) -> bool:
        doc = self.docs.get(key)
        if doc is None:
            return False
        with self.db.transaction():
            for stage in self.stages:
                stage.clear(doc.id)
            self.docs.delete(doc.id)
        return True


def run(indexer: Indexer, paths: Sequence[str | Path], progress: Optional[Progress] = None,
        cancel: Optional[CancelToken] = None) -> IndexReport:
    """Register ``paths`` (may be empty: resume only) then build what is pending."""
    progress = progress_or_noop(progress)
    cancel = cancel or CancelToken()
    report = IndexReport()
    t0 = time.perf_counter()
    try:
        if paths:
            indexer.register(paths, report, progress, cancel)
        indexer.process(report, progress, cancel)
    except Cancelled:
        report.cancelled = True
    report.seconds = time.perf_counter() - t0
    return report
