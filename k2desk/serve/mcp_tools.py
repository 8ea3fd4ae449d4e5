"""k2desk as a Model Context Protocol server (`k2desk mcp`): a person's collections as tools an
assistant (Claude Desktop, VS Code, Cursor, LM Studio, Jan) can call, over stdio, on the official
``mcp`` SDK's ``MCPServer``.

Tools, each with a JSON schema the SDK derives from its signature and a description an assistant
acts on:

- ``search(query, collection?, documents?, limit?)``: retrieval alone, no LLM — passages with
  their document, title, page / slide / sheet rows, score and an id;
- ``fetch(id)``: one passage (``passage:<collection>:<chunk>``) or one whole document
  (``document:<collection>:<id>``) by id, with its title and where it came from;
- ``ask(question, collection?, documents?)``: k2desk's own answer, its verdict (answered,
  cautioned, declined, and why) and its sources, as structured content; progress notifications
  while it reads, and a cancelled request stops the model between tokens;
- ``list_documents(collection?)``: what a collection holds and how each document was read.

Each document is also a resource, ``k2desk://<collection>/documents/<id>``. Nothing writes unless
the person started the server with ``--allow-index FOLDER``: then an ``index(paths)`` tool indexes
files under those folders, and nothing else.

Two homes: `k2desk mcp` over stdio (``Tools``: an ``Engine`` per call in a worker thread, models
shared by the process, one model job at a time; while serving stdio the SDK points fd 1 at stderr,
so nothing but protocol messages reaches stdout, llama.cpp's own lines included), and `k2desk
serve`'s ``/mcp`` over Streamable HTTP (``serve.app.ServedTools``: the model jobs queue behind the
OpenAI API's on the server's one worker).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from pydantic import BaseModel, Field

from k2desk import __version__
from k2desk.config import Settings
from k2desk.errors import Cancelled, K2Error
from k2desk.progress import CancelToken
from k2desk.serve.options import may_index
from k2desk.types import Source

QUERY_MAX = 2000  # characters of a query or question
LIMIT_MAX = 20  # passages one search returns at most
DOCUMENTS_MAX = 50  # documents one call may name
TEXT_MAX = 200_000  # characters of a fetched document (the rest is cut, and says so)
INSTRUCTIONS = ("The person's own documents, indexed on their machine by k2desk. Use search to find passages "
                "(fast, no model), fetch to read a passage or a whole document by its id, ask for k2desk's own "
                "answer with its sources and whether the documents support it, list_documents to see what is there.")


class Passage(BaseModel):
    id: str = Field(description="fetch(id) returns it whole: passage:<collection>:<chunk id>")
    document: str = Field(description="the document's path or key")
    document_id: str = Field(description="fetch(document_id) returns the whole document")
    title: str
    location: str = Field(description='where in the file: "p. 3", "slides 2-3", "sheet Stock, rows 12-21"; "" if none')
    score: float
    text: str


class SearchResult(BaseModel):
    collection: str
    passages: list[Passage]


class Fetched(BaseModel):
    id: str
    kind: str = Field(description='"passage" or "document"')
    collection: str
    document: str
    title: str
    location: str = ""
    text: str
    truncated: bool = False


class AskResult(BaseModel):
    collection: str
    answer: str
    outcome: str = Field(description='"answered"; "cautioned" (shown with a caution); "declined" (not in the documents)')
    reason: str = Field("", description="why it was cautioned or declined, in a few words")
    caution: str = ""
    sources: list[Passage] = Field(description="the passages it came from (the closest ones when declined)")
    method: str
    seconds: float


class DocumentInfo(BaseModel):
    id: str
    document: str
    title: str
    kind: str
    status: str = Field(description='"done" when searchable; "failed" with its error; else still indexing')
    passages: int
    read_as: str = Field(description='how it was read: "text", "OCR, 3 pages, confidence 0.97", ...')
    error: str = ""


class DocumentList(BaseModel):
    collection: str
    documents: list[DocumentInfo]


class Failure(BaseModel):
    document: str
    reason: str


class IndexResult(BaseModel):
    collection: str
    summary: str = Field(description="one line: what happened to each document")
    added: list[str]
    updated: list[str]
    skipped: list[str] = Field(description="unchanged since they were last indexed")
    failed: list[Failure]
    cancelled: bool = False


class Tools:
    """What the tools do, synchronously and off the event loop (``MCPServer`` calls them in a
    worker thread); ``collections``: the ones served, the first the default; ``allow_index``: the
    folders the index tool may read (none: no index tool)."""

    def __init__(self, settings: Settings, collections: Sequence[str], method: str = "k2rag",
                 allow_index: Sequence[Path] = ()) -> None:
        self.settings = settings
        self.collections = list(collections) or ["default"]
        self.method = method
        self.allow_index = list(allow_index)
        self._model_job = threading.Lock()  # one model job at a time: two LLM jobs on a CPU are ten times slower each

    def collection(self, name: Optional[str]) -> str:
        chosen = name or self.collections[0]
        if chosen not in self.collections:
            raise ValueError(f"unknown collection {chosen!r}; this server serves {', '.join(self.collections)}")
        return chosen

    # -- where the work runs (``serve`` runs it on its own engines and worker) ------------------
    def read(self, collection: str, work: Callable[[Any], Any]) -> Any:
        """``work(engine)`` for what needs no model: search, fetch, lists."""
        from k2desk.engine import Engine

        with Engine(self.settings, collection) as engine:
            return work(engine)

    def model_job(self, collection: str, work: Callable[[Any, CancelToken], Any], cancel: CancelToken) -> Any:
        """``work(engine, cancel)`` for what runs a model (an answer, indexing), one at a time."""
        from k2desk.engine import Engine

        with self._model_job, Engine(self.settings, collection) as engine:
            return work(engine, cancel)

    # -- the tools ----------------------------------------------------------------------------
    def passage(self, collection: str, source: Source, engine) -> Passage:
        doc = engine.document(source.document)
        return Passage(id=f"passage:{collection}:{source.chunk_id}", document=source.document,
                       document_id=f"document:{collection}:{doc.id}" if doc else "",
                       title=source.title or Path(source.document).name, location=source.where(),
                       score=round(float(source.score), 4), text=source.text)

    def search(self, query: str, collection: Optional[str], documents: Sequence[str], limit: int) -> SearchResult:
        name = self.collection(collection)

        def work(engine) -> SearchResult:
            found = engine.search(query, k=limit, documents=list(documents))
            return SearchResult(collection=name, passages=[self.passage(name, s, engine) for s in found])

        return self.read(name, work)

    def fetch(self, id: str) -> Fetched:
        kind, _, rest = id.partition(":")
        collection, _, number = rest.rpartition(":")
        if kind not in ("passage", "document") or not number.isdigit():
            raise ValueError(f"not an id of this server: {id[:80]!r} (passage:<collection>:<n> or document:<collection>:<n>, "
                             "as search and list_documents give them)")
        name = self.collection(collection)

        def work(engine) -> Fetched:
            if kind == "passage":
                chunk = engine.docs.chunks([int(number)]).get(int(number))
                if chunk is None:
                    raise ValueError(f"no passage {id!r} in collection {name!r}")
                return Fetched(id=id, kind=kind, collection=name, document=chunk.document, title=chunk.title,
                               location=chunk.as_source(0.0).where(), text=chunk.text)
            doc = engine.docs.by_id(int(number))
            if doc is None:
                raise ValueError(f"no document {id!r} in collection {name!r}")
            text = engine.document_text(doc.key) or ""
            return Fetched(id=id, kind=kind, collection=name, document=doc.key, title=doc.title, text=text[:TEXT_MAX],
                           truncated=len(text) > TEXT_MAX)

        return self.read(name, work)

    def ask(self, question: str, collection: Optional[str], documents: Sequence[str],
            progress: Callable[[str, int, int], None], cancel: CancelToken) -> AskResult:
        name = self.collection(collection)
        written = [0]

        def on_token(token: str) -> None:  # the answer as it is written: the step a person waits on
            written[0] += 1
            progress("writing the answer", written[0], 0)

        def work(engine, cancel: CancelToken) -> AskResult:  # the engine's own steps are the progress
            answer = engine.ask(question, method=self.method, progress=progress, cancel=cancel, documents=list(documents),
                                on_token=on_token)
            return AskResult(collection=name, answer=answer.answer, outcome=answer.outcome, reason=answer.reason,
                             caution=answer.caution, sources=[self.passage(name, s, engine) for s in answer.sources],
                             method=answer.method, seconds=round(answer.timings.get("total", 0.0), 3))

        return self.model_job(name, work, cancel)

    def list_documents(self, collection: Optional[str]) -> DocumentList:
        from k2desk.ingest.document import reading_note

        name = self.collection(collection)
        return self.read(name, lambda engine: DocumentList(collection=name, documents=[
            DocumentInfo(id=f"document:{name}:{d.id}", document=d.key, title=d.title, kind=d.kind, status=d.status,
                         passages=d.n_chunks, read_as=reading_note(d.meta) or "text", error=d.error or "")
            for d in engine.documents()]))

    def index(self, paths: Sequence[str], collection: Optional[str], progress: Callable[[str, int, int], None],
              cancel: CancelToken) -> IndexResult:
        name = self.collection(collection)
        outside = [p for p in paths if not may_index(p, self.allow_index)]
        if outside:
            raise ValueError(f"{outside[0]!r} is not under a folder this server may index "
                             f"({', '.join(map(str, self.allow_index))})")

        def work(engine, cancel: CancelToken) -> IndexResult:
            report = engine.index(list(paths), progress=progress, cancel=cancel)
            return IndexResult(collection=name, summary=report.summary(), added=report.added, updated=report.updated,
                               skipped=report.skipped, cancelled=report.cancelled,
                               failed=[Failure(document=d, reason=r) for d, r in report.failed + report.unsupported])

        return self.model_job(name, work, cancel)


def build_server(tools: Tools) -> MCPServer:
    """The MCPServer with k2desk's tools (the index tool only where folders are allowed) and
    document resources."""
    server = MCPServer("k2desk", title="k2desk: your documents", instructions=INSTRUCTIONS, version=__version__,
                       log_level="WARNING")

    async def off_loop(fn: Callable[[CancelToken], Any]) -> Any:
        """``fn`` in a worker thread; a cancelled request sets its token (the engine stops between
        tokens) and the call ends at once."""
        token = CancelToken()
        try:
            return await anyio.to_thread.run_sync(lambda: fn(token), abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            token.cancel()
            raise
        except Cancelled as exc:
            raise ToolError("cancelled") from exc
        except (K2Error, ValueError) as exc:
            raise ToolError(str(exc)) from exc

    def reporter(ctx: Context) -> Callable[[str, int, int], None]:
        """A ``Progress`` callable from any thread (the worker, or `serve`'s model worker) that
        sends the request's progress notifications; a client gone away does not stop the work."""
        loop = anyio.lowlevel.current_token()
        steps = [0]

        def progress(stage: str, done: int, total: int) -> None:
            steps[0] += 1
            try:
                message = f"{stage} {done}/{total}" if total else f"{stage}: {done} tokens"
                anyio.from_thread.run(ctx.report_progress, steps[0], None, message, token=loop)
            except Exception:  # noqa: BLE001
                pass

        return progress

    def bounded(text: str, what: str) -> str:
        text = (text or "").strip()
        if not text:
            raise ToolError(f"{what} is empty")
        if len(text) > QUERY_MAX:
            raise ToolError(f"{what} is longer than {QUERY_MAX} characters")
        return text

    def few(documents: Optional[list[str]], what: str = "documents") -> list[str]:
        if documents and len(documents) > DOCUMENTS_MAX:
            raise ToolError(f"at most {DOCUMENTS_MAX} {what} per call")
        return list(documents or [])

    @server.tool(description="Search the person's documents for passages about a query, without any language model "
                 "(fast). Returns the best passages with their document, title, page or slide, score and an id for fetch.")
    async def search(query: str, collection: Optional[str] = None, documents: Optional[list[str]] = None,
                     limit: int = 5) -> SearchResult:
        query, docs = bounded(query, "query"), few(documents)
        if not 1 <= limit <= LIMIT_MAX:
            raise ToolError(f"limit must be 1 to {LIMIT_MAX}")
        return await off_loop(lambda token: tools.search(query, collection, docs, limit))

    @server.tool(description="Read one passage or one whole document by the id search, ask or list_documents gave "
                 "(passage:<collection>:<n> or document:<collection>:<n>), with its title and where it came from.")
    async def fetch(id: str) -> Fetched:
        return await off_loop(lambda token: tools.fetch(bounded(id, "id")))

    @server.tool(description="Ask k2desk a question about the person's documents: its short answer, whether the "
                 "documents support it (outcome answered / cautioned / declined, and why) and the passages it came "
                 "from. Seconds to a minute on a CPU; progress is reported and it can be cancelled.")
    async def ask(question: str, ctx: Context, collection: Optional[str] = None,
                  documents: Optional[list[str]] = None) -> AskResult:
        question, docs = bounded(question, "question"), few(documents)
        progress = reporter(ctx)
        return await off_loop(lambda token: tools.ask(question, collection, docs, progress, token))

    @server.tool(description="List the documents of a collection: their ids (for fetch), titles, kinds, whether they "
                 "are searchable yet and how each was read (text, OCR).")
    async def list_documents(collection: Optional[str] = None) -> DocumentList:
        return await off_loop(lambda token: tools.list_documents(collection))

    if tools.allow_index:
        @server.tool(description="Index files or folders into a collection so they can be searched and asked about: "
                     "only under the folders the person allowed (" + ", ".join(map(str, tools.allow_index)) + "). "
                     "Unchanged files are skipped. Minutes on a CPU; progress is reported and it can be cancelled.")
        async def index(paths: list[str], ctx: Context, collection: Optional[str] = None) -> IndexResult:
            wanted = [bounded(p, "a path") for p in few(paths, "paths")]
            if not wanted:
                raise ToolError("name at least one file or folder")
            progress = reporter(ctx)
            return await off_loop(lambda token: tools.index(wanted, collection, progress, token))

    @server.resource("k2desk://{collection}/documents/{number}", name="document", mime_type="text/plain",
                     description="A document of a collection, as k2desk read it (its text)")
    async def document(collection: str, number: str) -> str:
        try:
            return (await off_loop(lambda token: tools.fetch(f"document:{collection}:{number}"))).text
        except ToolError as exc:  # an id that is not there: the client's error, said in one line
            raise ResourceNotFoundError(str(exc)) from None

    return server


def run_stdio(settings: Settings, collections: Sequence[str], method: str = "k2rag",
              allow_index: Sequence[Path] = ()) -> None:
    """Serve over stdio until the client closes it."""
    build_server(Tools(settings, collections, method, allow_index)).run()
