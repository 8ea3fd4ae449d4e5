"""The engine: one collection, its index, and every method that answers from it.

``Engine.index(paths, progress, cancel)`` and ``Engine.ask(question, method)`` are what the CLI,
the desktop app and the evaluation harness use. Models load lazily and are shared by every
engine of the process (switching collections does not reload a 500 MB LLM).
"""

from __future__ import annotations

import atexit
import json
import os
import threading
from pathlib import Path, PurePath
from typing import Callable, Optional, Sequence

from k2desk.config import CHECK_LLM, DEFAULT_LLM, Settings
from k2desk.conversation import Turn, read_ahead, turns_from_history, understand
from k2desk.conversation.understand import MESSAGE_MAX
from k2desk.errors import ModelError, UsageError
from k2desk.graph.extract import Extractor, LLMExtractor
from k2desk.hops import answer_by_hops, answer_once_then_hops
from k2desk.hops.find import clause_description
from k2desk.indexing import ChunkIndexStage, GraphStage, Indexer, IndexReport, Stage, SummaryStage, run
from k2desk.ingest.ocr import OcrCache, OcrEngine
from k2desk.methods.base import Answer, Method
from k2desk.methods.context import MethodContext, graph_source
from k2desk.methods.registry import GRAPH, SUMMARIES, SUMMARY_GRAPH, TEXT, method_spec
from k2desk.methods.retrieval import Retriever
from k2desk.progress import CancelToken, Progress, progress_or_noop
from k2desk.runtime import calibration
from k2desk.runtime.device import graph_extractor, summarizer_backend
from k2desk.runtime.discover import check_memory
from k2desk.runtime.embedder import Embedder
from k2desk.runtime.llm import LLM
from k2desk.runtime.models import ModelStore
from k2desk.runtime.summarizer import Summarizer, make_summarizer
from k2desk.store.address import open_database, shown_address
from k2desk.store.documents import DocumentRow, DocumentStore
from k2desk.store.graph import GraphSource, GraphStore
from k2desk.store.history import HistoryStore
from k2desk.store.sparse import SparseIndex
from k2desk.store.threads import ThreadStore
from k2desk.store.vectors import VectorIndex
from k2desk.types import Source
from k2desk.verdict import DEFAULTS, Calibration

LAST_SOURCES = 2  # of the last answer's sources, the documents a follow-up still pointing at "it" is asked of
CITED_MAX = 3  # documents sharing the title an earlier answer cited, asked about together (more: the whole collection)
HOPS_METHOD = "k2rag"  # the method that answers bridge questions hop by hop (settings.hops); the paper's stay exact
STAGE_WORDS = {"text": "the passages cover", "summary_index": "the summaries cover", "graph_summary": "the graph covers",
               "graph_text": "the graph covers"}
_shared_lock = threading.Lock()
_shared_models: dict[tuple, object] = {}
_shared_roles: dict[str, tuple] = {}  # role -> key of the model it uses


def _larger_llm(settings: Settings, choice: str) -> str:
    """A role's model (Settings.check_llm, Settings.reader_llm): "auto" is CHECK_LLM when it is
    prepared and the answering model is the default one, "" is ``llm``, else the name or path given."""
    if choice == "auto":
        store = ModelStore(settings.models_dir)
        prepared = CHECK_LLM in {e.name for e in store.entries} and store.path_of(store.entry(CHECK_LLM)).is_file()
        return CHECK_LLM if prepared and settings.llm == DEFAULT_LLM else settings.llm
    return choice or settings.llm


def check_llm_name(settings: Settings) -> str:
    """The model that checks yes/no claims (Settings.check_llm)."""
    return _larger_llm(settings, settings.check_llm)


def reader_llm_name(settings: Settings) -> str:
    """The model that writes a final open answer (Settings.reader_llm)."""
    return _larger_llm(settings, settings.reader_llm)


def role_calibration(settings: Settings, role: str = "reader") -> Calibration:
    """The calibration of the model of ``role`` ("reader": writes and checks a final open answer;
    "check": scores yes/no claims): its record (runtime/calibration.py), else the conservative
    defaults (a server's model, a model with no record, a file that cannot be resolved)."""
    if settings.llm_url:
        return DEFAULTS
    name = check_llm_name(settings) if role == "check" else reader_llm_name(settings)
    store = ModelStore(settings.models_dir)
    try:
        path = store.resolve_llm(name)
    except ModelError:
        return DEFAULTS  # the model's own error comes when it is loaded, in its own words
    # read again when the model file or the home folder's records change (a calibration just fitted)
    key = ("calibration", str(path.resolve()), path.stat().st_mtime_ns, str(settings.home), calibration.stamp(settings.home))
    with _shared_lock:
        if key not in _shared_models:
            _shared_models[key] = calibration.find(path, settings.home, store)
        return _shared_models[key]  # type: ignore[return-value]


def calibration_note(settings: Settings) -> str:
    """One line on the reading model's calibration: whose thresholds decide whether an answer is
    given, cautioned or declined ("" never: a server's model and an uncalibrated one say so)."""
    cal = role_calibration(settings, "reader")
    name = settings.llm_url or reader_llm_name(settings)
    if cal.calibrated:
        return f"{Path(name).name}: calibrated ({cal.fitted_on.split(' (')[0][:60]}, {cal.date})"
    return (f"{Path(name).name}: no calibration, conservative defaults (its own check unused; "
            f"`k2desk models calibrate` fits one)")


def verify_answers(settings: Settings) -> bool:
    """Whether a short answer is checked by its model (Settings.verify_answers): "auto" where the
    reader's calibration was fitted with its check."""
    if settings.verify_answers != "auto":
        return settings.verify_answers == "on"
    return role_calibration(settings, "reader").check


def prompt_states_dir() -> Path:
    """Where the models' states after fixed prompt beginnings are kept (runtime.prefix_state):
    the person's cache folder. They hold k2desk's own instructions, never a document or a
    question."""
    import platformdirs

    return Path(os.environ.get("K2DESK_STATES") or Path(platformdirs.user_cache_dir("k2desk", appauthor=False)) / "prompt-states")


def shared_llm(settings: Settings, role: str = "llm") -> LLM:
    """The answering model (role "llm"), the claim checker (role "check") or the final open
    answer's reader (role "reader"); one model per role in memory, the same one when roles name it."""
    if settings.llm_url:  # a server answers and checks
        key: tuple = ("llm", settings.llm_url, settings.n_ctx)
    else:
        name = (check_llm_name(settings) if role == "check" else
                reader_llm_name(settings) if role == "reader" else settings.llm)
        path = ModelStore(settings.models_dir).resolve_llm(name)
        key = ("llm", str(path), settings.n_ctx, settings.gpu_layers, settings.effective_threads(), settings.seed)
    with _shared_lock:
        if key not in _shared_models:
            keep = {_shared_roles.get(r) for r in ("llm", "check", "reader") if r != role}
            for old in [k for k in _shared_models if k[0] == "llm" and k not in keep]:
                _shared_models.pop(old).close()  # type: ignore[attr-defined]
            if settings.llm_url:
                from k2desk.runtime.remote import RemoteLLM

                _shared_models[key] = RemoteLLM(settings.llm_url, n_ctx=settings.n_ctx)
            else:
                check_memory(path, settings.n_ctx, settings.gpu_layers)  # one line, before a load that cannot fit
                _shared_models[key] = LLM(path, n_ctx=settings.n_ctx, gpu_layers=settings.gpu_layers,
                                          threads=settings.effective_threads(), seed=settings.seed,
                                          state_dir=prompt_states_dir())
        _shared_roles[role] = key
        return _shared_models[key]  # type: ignore[return-value]


@atexit.register
def close_shared_models() -> None:
    """Free the LLMs while the interpreter is whole: llama-cpp-python's own finalizer, left to the
    interpreter's teardown, can find its C functions already gone (seen in the frozen bundle)."""
    with _shared_lock:
        for key in [k for k in _shared_models if k[0] == "llm"]:
            _shared_models.pop(key).close()  # type: ignore[attr-defined]
        _shared_roles.clear()


def shared_embedder(settings: Settings) -> Embedder:
    path = ModelStore(settings.models_dir).resolve_embedder(settings.embedder)
    key = ("embedder", str(path), settings.effective_threads())
    with _shared_lock:
        if key not in _shared_models:
            _shared_models[key] = Embedder(path, threads=settings.effective_threads())
        return _shared_models[key]  # type: ignore[return-value]


def shared_ocr(settings: Settings) -> OcrEngine:
    """The OCR engine (its models sha256-checked), loaded at the first page that needs it, once per process."""
    models = ModelStore(settings.models_dir).resolve_ocr()
    key = ("ocr", str(models.get("rec", "")), settings.effective_threads())
    with _shared_lock:
        if key not in _shared_models:
            _shared_models[key] = OcrEngine(models, threads=settings.effective_threads())
        return _shared_models[key]  # type: ignore[return-value]


class Engine:
    def __init__(self, settings: Settings, collection: str = "default") -> None:
        self.settings = settings
        self.collection = collection
        self.address = settings.collection_address(collection)  # a file, or a collection on a server (Settings.store)
        self.db = open_database(self.address)
        self.docs = DocumentStore(self.db)
        self.history = HistoryStore(self.db)
        self.threads = ThreadStore(self.db)
        self.indexer = Indexer(self.db, self._stages(), ocr=lambda: shared_ocr(settings),
                               ocr_cache=OcrCache(settings.home / "cache" / "ocr"))

    @property
    def where(self) -> str:
        """Where the collection is, as it may be shown (a server's address without its password)."""
        return shown_address(self.address)

    # -- models ------------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        return shared_embedder(self.settings)

    @property
    def llm(self) -> LLM:
        return shared_llm(self.settings)

    def _stages(self) -> list[Stage]:
        embedder: Callable[[], Embedder] = lambda: self.embedder  # noqa: E731
        extractor = self._extractor
        profile = self.settings.build_profile
        stages: list[Stage] = []
        if profile in ("default", "both", "raw", "naive"):
            stages.append(ChunkIndexStage(self.db, embedder, "text"))
        if profile in ("default", "both", "summary"):
            stages.append(SummaryStage(self.db, self._summarizer, embedder))
            stages.append(ChunkIndexStage(self.db, embedder, "summary"))
            stages.append(GraphStage(self.db, embedder, extractor, "summary"))
        if profile in ("both", "raw"):
            stages.append(GraphStage(self.db, embedder, extractor, "text"))  # naive `kg` baseline, LightRAG
        return stages

    def _summarizer(self) -> Summarizer:
        backend = summarizer_backend(self.settings)
        llm = self.llm if backend == "llm" else None
        return make_summarizer(backend, self.settings.models_dir, llm=llm, threads=self.settings.effective_threads())

    def _extractor(self) -> Extractor:
        if graph_extractor(self.settings) == "fast":
            from k2desk.graph.nlp import NlpExtractor

            return NlpExtractor()
        return LLMExtractor(self.llm)

    # -- indexing ----------------------------------------------------------------------
    def index(self, paths: Sequence[str | Path], progress: Optional[Progress] = None,
              cancel: Optional[CancelToken] = None) -> IndexReport:
        """Index files, folders or corpus .jsonl files; unchanged documents are skipped, and
        documents a previous run left unfinished are completed too."""
        return run(self.indexer, list(paths), progress, cancel)

    def resume(self, progress: Optional[Progress] = None, cancel: Optional[CancelToken] = None) -> IndexReport:
        return run(self.indexer, [], progress, cancel)

    def document(self, key: str) -> Optional[DocumentRow]:
        return self.docs.get(key)

    def document_text(self, key: str) -> Optional[str]:
        """The extracted text of the document ``key`` (None: no such document)."""
        doc = self.docs.get(key)
        return self.docs.text(doc.id) if doc else None

    def graph_source(self) -> GraphSource:
        """The collection's graph as the app's Graph tab reads it."""
        return GraphSource(self.db)

    def watched_folders(self) -> list[str]:
        """Folders the app re-indexes into this collection when their files change."""
        return list(json.loads(self.db.get_meta("watched_folders") or "[]"))

    def set_watched_folders(self, folders: Sequence[str]) -> None:
        with self.db.transaction():
            self.db.set_meta("watched_folders", json.dumps(sorted(set(map(str, folders)))))

    def documents(self) -> list[DocumentRow]:
        return self.docs.list()

    def keys_for(self, path: str | Path) -> list[str]:
        """The documents a path names: the document itself (by path or key), or every document
        under a folder or from a corpus file; [] when none."""
        text = str(path)
        candidates = [text]
        p = Path(text).expanduser()
        if p.exists():
            candidates.insert(0, str(p.resolve()))
        for key in candidates:
            if self.docs.get(key):
                return [key]
        resolved = candidates[0]
        return [k for prefix in (resolved.rstrip("/") + "/", resolved + "#") for k in self.docs.keys_with_prefix(prefix)]

    def remove(self, path: str | Path) -> list[str]:
        """Remove a document (by path or key), or every document under a folder / corpus file."""
        return [key for key in self.keys_for(path) if self.indexer.remove(key)]

    def scope(self, paths: Sequence[str | Path]) -> dict[int, str]:
        """Document id -> key of the documents ``paths`` name ("Ask about these documents"); a
        path that names none is a UsageError."""
        out: dict[int, str] = {}
        for path in paths:
            keys = self.keys_for(path)
            if not keys:
                raise UsageError(f"no document of collection {self.collection!r} is {str(path)!r} or under it; "
                                 "see `k2desk docs list`")
            for key in keys:
                doc = self.docs.get(key)
                if doc is not None:
                    out[doc.id] = key
        return out

    # -- answering ---------------------------------------------------------------------
    def method(self, name: str, on_token: Optional[Callable[[str], None]] = None,
               scope: Optional[frozenset[int]] = None) -> Method:
        spec = method_spec(name)  # an unknown name: a UsageError listing the methods
        if spec.needs_text and not any(s.name == "text" for s in self.indexer.stages):
            raise UsageError(f"method {name!r} reads the raw-text index, which collection {self.collection!r} does not have "
                             f"(build profile {self.settings.build_profile!r}); ask with k2rag-paper, or re-index with "
                             "build profile default")
        if spec.needs_graph and not self.has_graph() and any(s.name.startswith("graph") for s in self.indexer.stages) \
                and self.searchable():
            raise UsageError(f"method {name!r} needs the knowledge graph, and indexing has not built it for any document yet; "
                             "ask again once it has (semantic, keyword and hybrid answer now)")
        if spec.needs_graph and not self.has_graph():
            raise UsageError(f"method {name!r} is not available on collection {self.collection!r}: it has no knowledge graph "
                             f"(indexed with build profile {self.settings.build_profile!r}); re-index it with build profile "
                             "default, both or raw")
        ctx = MethodContext(self.db, self.settings, lambda: self.embedder, lambda: self.llm, on_token,
                            check_llm_factory=lambda: shared_llm(self.settings, "check"),
                            reader_llm_factory=lambda: shared_llm(self.settings, "reader"),
                            scope=scope, verify=verify_answers(self.settings),
                            calibration=role_calibration(self.settings, "reader"),
                            claim_calibration=role_calibration(self.settings, "check"),
                            describe=clause_description if self.settings.linked_support else None)
        return spec.make(ctx)

    def has_graph(self) -> bool:
        """Whether a knowledge graph was built (it may be empty) or written."""
        return self.docs.any_stage("graph") or GraphStore(self.db).has_entities()

    def coverage(self, method: str = "k2rag") -> dict[str, tuple[int, int]]:
        """What ``method`` reads, built so far: stage -> (documents built, documents). Each
        document becomes searchable when its text stage commits; the summaries and the graph
        follow, and the methods answer from whatever is built (indexing may be running)."""
        built = self.docs.stage_counts()
        total = self.docs.readable_count()
        stages = {s.name for s in self.indexer.stages}
        graph = "graph_text" if "graph_text" in stages else SUMMARY_GRAPH
        wanted = [graph if stage == GRAPH else stage for stage in method_spec(method).reads]
        return {w: (built.get(w, 0), total) for w in wanted if w in stages}

    def coverage_note(self, method: str = "k2rag", coverage: Optional[dict[str, tuple[int, int]]] = None) -> str:
        """'' when everything ``method`` reads is built, else e.g. "Answered from what is indexed
        so far: the graph covers 12 of 40 documents."."""
        coverage = self.coverage(method) if coverage is None else coverage
        partial = [f"{STAGE_WORDS.get(stage, stage)} {n} of {total} documents"
                   for stage, (n, total) in coverage.items() if n < total]
        return f"Answered from what is indexed so far: {', '.join(partial)}." if partial else ""

    def searchable(self) -> int:
        """Documents a question can find (their passages or summaries are indexed)."""
        built = self.docs.stage_counts()
        return max(built.get("text", 0), built.get("summary_index", 0))

    def warm(self, method: str = "k2rag", cancel: Optional[CancelToken] = None) -> list[str]:
        """Read now what ``method``'s first question would read before it could answer: the
        embedder, and the in-process copies of the vectors and sparse statistics of what the
        method reads (the first question of a process pays ~2 s for them at 100,000 chunks, the
        later ones nothing). The app calls this in the background when a collection opens and
        after an index run. Returns what was read ("chunks/text", "sparse/text", ...)."""
        spec = method_spec(method)
        read: list[str] = []
        if not self.searchable():
            return read
        graph = graph_source(self.db) if GRAPH in spec.reads else ""
        sources = {TEXT: [("chunks", "text"), ("sparse", "text")],
                   SUMMARIES: [("chunks", "summary"), ("sparse", "summary")],
                   SUMMARY_GRAPH: [("entities", "summary"), ("relations", "summary")],
                   GRAPH: [("entities", graph), ("relations", graph)]}
        self.embedder.embed(["warm"])  # the model loads and its first run allocates
        for kind, source in dict.fromkeys(item for stage in spec.reads for item in sources.get(stage, [])):
            if cancel is not None:
                cancel.check()
            if kind == "sparse":
                index = SparseIndex(self.db, source)
                if not index.size():  # no passages of that source (a profile without them)
                    continue
                index.statistics()
            elif not VectorIndex(self.db, kind).load(source):
                continue
            read.append(f"{kind}/{source}")
        return read

    def search(self, query: str, k: int = 5, documents: Sequence[str | Path] = ()) -> list[Source]:
        """The passages that answer ``query`` best, without the LLM: the hybrid ranking (λ = 0.8)
        over the raw text, or over the summaries where the collection has no raw-text index."""
        source = "text" if any(s.name == "text" for s in self.indexer.stages) else "summary"
        scope = frozenset(self.scope(documents)) if documents else None
        return [hit.source() for hit in Retriever(self.db, self.embedder, source, scope).search(query, k)]

    def ask(self, question: str, method: str = "k2rag", progress: Optional[Progress] = None,
            cancel: Optional[CancelToken] = None, on_token: Optional[Callable[[str], None]] = None,
            remember: bool = False, documents: Sequence[str | Path] = ()) -> Answer:
        """Answer ``question`` with ``method``; ``documents`` (paths, keys or folders) asks about
        those documents alone; ``remember`` keeps it in the collection's history."""
        question = (question or "").strip()
        if not question:
            raise UsageError("the question is empty")
        if not self.searchable():
            waiting = self.docs.counts().get("pending", 0) + self.docs.counts().get("processing", 0)
            raise UsageError(f"collection {self.collection!r} has no searchable document yet"
                             + ("; indexing has not finished its first one" if waiting else "; run `k2desk index PATH` first"))
        scope = self.scope(documents) if documents else {}
        chosen = frozenset(scope) if documents else None
        result = None
        if method == HOPS_METHOD and self.settings.hops:
            from k2desk.graph.nlp import load_pipeline

            def read(q: str, last: bool) -> Answer:
                return self.method(method, on_token if last else None, chosen).ask(q, progress=progress, cancel=cancel)

            if self.settings.hops_first:
                result = answer_by_hops(question, read, load_pipeline())
            else:
                index: list[SparseIndex] = []  # the tokenizer, made once and only where a bridge's answer is read

                def terms(text: str) -> list[str]:
                    index[:] = index or [SparseIndex(self.db, "text")]
                    return index[0].terms_of(text)

                result = answer_once_then_hops(question, read, load_pipeline(), terms)
        if result is None:
            result = self.method(method, on_token, chosen).ask(question, progress=progress, cancel=cancel)
        if documents:
            result.trace["scope"] = {"documents": sorted(scope.values())}
        result.trace["models"] = self.models()
        coverage = self.coverage(method)
        note = self.coverage_note(method, coverage)
        if note:
            result.trace["coverage"] = {"note": note, **{k: list(v) for k, v in coverage.items()}}
        if remember:
            self.history.add(result)
        return result

    def converse(self, message: str, thread: Optional[int] = None, turns: Optional[Sequence[Turn]] = None,
                 method: Optional[str] = None, documents: Optional[Sequence[str | Path]] = None,
                 progress: Optional[Progress] = None, cancel: Optional[CancelToken] = None,
                 on_token: Optional[Callable[[str], None]] = None, remember: bool = True) -> Answer:
        """One message of a conversation. The earlier turns come from ``thread`` (a stored
        conversation's id) or as plain data in ``turns`` (a request carrying its own history);
        neither: a new conversation. The message is read against them (conversation.understand)
        and the standalone question is answered by the unchanged method. A stored thread keeps its
        method and documents unless others are given. ``remember`` stores the turn (and a new
        thread for it); the answer's trace holds 'conversation' (message, standalone, how, thread)."""
        message = (message or "").strip()
        if not message:
            raise UsageError("the message is empty")
        if len(message) > MESSAGE_MAX:
            raise UsageError(f"the message is {len(message):,} characters long; a question is read up to "
                             f"{MESSAGE_MAX:,}: ask it in fewer words")
        stored = None
        if thread is not None:
            stored = self.threads.get(thread)
            if stored is None:
                raise UsageError(f"no conversation {thread} in collection {self.collection!r} "
                                 "(`k2desk chat` lists them with /threads)")
            turns = turns_from_history(self.history.turns(thread))
            method = method or stored.method
            if documents is None and stored.scope:
                gone = [k for k in stored.scope if not self.keys_for(k)]
                if gone:
                    raise UsageError(f"this conversation asks about {len(gone)} document(s) no longer in collection "
                                     f"{self.collection!r} ({gone[0]}); ask about the whole collection (/all, --all) "
                                     "or choose others (/doc, --doc)")
                documents = stored.scope
        method = method or "k2rag"
        if turns:
            progress_or_noop(progress)("reading the message against the conversation", 0, 1)
        understanding = understand(message, list(turns or []), llm=lambda: shared_llm(self.settings, "reader"))
        cited = self._cited(understanding.cited) if not documents else []
        if cited:  # "In that report, …": asked of the document an earlier answer cited
            documents = cited
        last = self._last_answers(turns) if not documents and understanding.unresolved else []
        if last:  # "Where did it take place?" as typed: "it" is what the last answer was about
            documents = last
        result = self.ask(understanding.standalone, method, progress, cancel, on_token, remember=False,
                          documents=list(documents or []))
        result.llm.add(understanding.usage)
        result.timings["understand"] = understanding.seconds
        result.timings["total"] = result.timings.get("total", 0.0) + understanding.seconds
        result.trace["conversation"] = understanding.to_trace()
        if cited:
            result.trace["conversation"]["scope"] = "cited"
            if understanding.cited in cited:  # named by its number ("[2]"): its key, shown by its name
                result.trace["conversation"]["cited"] = self._named(understanding.cited)
        elif last:
            result.trace["conversation"]["scope"] = "last answer"
            result.trace["conversation"]["documents"] = [self._named(k) for k in last]
        if remember:  # a question asked of a cited document does not narrow the thread
            kept = (stored.scope if stored is not None else []) if cited or last else result.scope
            if thread is None:
                thread = self.threads.create(message, method, kept)
            else:
                self.threads.update(thread, method=method, scope=kept)
            self.history.add(result, thread_id=thread, message=message)
            result.trace["conversation"]["thread"] = thread
        return result

    def read_ahead(self, thread: Optional[int] = None, turns: Optional[Sequence[Turn]] = None,
                   cancel: Optional[CancelToken] = None) -> int:
        """While the person types the next message of a conversation (``thread``, or ``turns`` as
        ``converse`` takes them), the model reads what a follow-up's rewrite will read before it
        (conversation.read_ahead): the follow-up then costs its own words. Call it when the model is
        idle and cancel it (``cancel``) when the message comes; the tokens read (0 for no turns)."""
        if thread is not None:
            turns = turns_from_history(self.history.turns(thread))
        if not turns:
            return 0
        return read_ahead(list(turns), lambda: shared_llm(self.settings, "reader"), cancel)

    def models(self) -> dict[str, str]:
        """The models that answer here, by role: "llm" (the default method's steps), "reader" (a
        final open answer), "check" (a yes/no claim); a server's address where one answers."""
        if self.settings.llm_url:
            return {"llm": self.settings.llm_url}
        return {"llm": self.settings.llm, "reader": reader_llm_name(self.settings), "check": check_llm_name(self.settings)}

    def _last_answers(self, turns: Optional[Sequence[Turn]]) -> list[str]:
        """The documents the last answer came from (its first ``LAST_SOURCES``: their keys where
        the turn has them, else the documents its titles name); [] where none is in the collection."""
        if not turns:
            return []
        turn = turns[-1]
        keys: list[str] = [k for k in turn.documents[:LAST_SOURCES] if self.docs.get(k)]
        if not keys:
            for name in turn.sources[:LAST_SOURCES]:
                keys += [k for k in self._cited(name) if k not in keys]
        return keys[:CITED_MAX]

    def _named(self, key: str) -> str:
        """A document as a person knows it: its title, else its file's name."""
        row = self.docs.get(key)
        return (row.title if row is not None and row.title else "") or PurePath(key.split("#")[0]).name

    def _cited(self, name: str) -> list[str]:
        """The document an earlier answer cited by ``name`` (its title, else its key); [] when
        that names no document or more than a few."""
        if not name:
            return []
        keys = self.docs.keys_titled(name) or ([name] if self.docs.get(name) else [])
        return keys if 0 < len(keys) <= CITED_MAX else []

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
