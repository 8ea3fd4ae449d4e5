"""The routes of `k2desk serve` (Starlette): models, chat completions (whole and streamed, with
their sources), search without the model, the documents, health, and the Model Context Protocol
at ``/mcp`` (Streamable HTTP). Every answer runs on the one worker of ``jobs`` (an MCP ask or index
queues there too); search and the document list read the collection beside it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
import threading
from dataclasses import asdict
from typing import Any, AsyncIterator, Callable, Optional

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from k2desk import __version__
from k2desk.config import Settings
from k2desk.conversation import Turn, turns_from_messages
from k2desk.conversation.understand import MESSAGE_MAX
from k2desk.engine import Engine
from k2desk.errors import Cancelled, K2Error, UsageError
from k2desk.ingest.document import reading_note
from k2desk.methods.registry import METHOD_NAMES
from k2desk.serve import wire
from k2desk.serve.guard import Guard
from k2desk.serve.jobs import DONE, Job, JobQueue, QueueFull
from k2desk.serve.mcp_tools import Tools, build_server
from k2desk.serve.options import TOP_K_MAX, ServeOptions
from k2desk.serve.wire import WireError

BODY_SECONDS = 30  # a request's body arrives within this, or 408
LISTED_METHODS = ("hybrid",)  # methods listed as models beside each collection's default (any may be asked)
ROLES = {"system", "developer", "user", "assistant", "tool"}
CONTENT_MAX = 8 * MESSAGE_MAX  # characters of an earlier message (an answer with its sources list)
_MARKS = re.compile(r"\s*(\[\d+\])+")


class Service:
    """The state every route shares: the options, the settings, the job queue, the engines."""

    def __init__(self, settings: Settings, options: ServeOptions) -> None:
        self.settings, self.options = settings, options
        self.jobs = JobQueue(options.queue, on_exit=self._close_engines)
        self.created = wire.now()
        self._engines: dict[str, Engine] = {}  # answering: used on the worker thread only
        self._readers: dict[str, Engine] = {}  # search and lists, beside the worker
        self._read_lock = threading.Lock()
        self.served = 0  # requests answered (2xx), health checks aside: the app's count
        self.stopping: list[Callable[[], Any]] = []  # coroutines run as the server begins to stop (MCP's sessions end)

    # -- engines ----------------------------------------------------------------------------
    def engine(self, collection: str) -> Engine:
        """The collection's engine for the worker thread."""
        if collection not in self._engines:
            self._engines[collection] = Engine(self.settings, collection)
        return self._engines[collection]

    def read(self, collection: str, work: Callable[[Engine], Any]) -> Any:
        with self._read_lock:
            if collection not in self._readers:
                self._readers[collection] = Engine(self.settings, collection)
            return work(self._readers[collection])

    def _close_engines(self) -> None:  # on the worker thread, as it stops
        for engine in self._engines.values():
            engine.close()
        self._engines.clear()

    def close(self) -> None:
        self.jobs.close()  # the worker closes its engines as it stops
        with self._read_lock:
            for engine in self._readers.values():
                engine.close()
            self._readers.clear()

    # -- names ------------------------------------------------------------------------------
    def resolve(self, model: Any) -> tuple[str, str]:
        """A request's ``model`` -> (collection, method): "collection" or "collection/method"."""
        if not isinstance(model, str) or not model.strip():
            raise WireError(400, "name a model: one of GET /v1/models (a collection)", "missing_model", "model")
        collection, _, method = model.strip().partition("/")
        if collection not in self.options.collections:
            raise WireError(404, f"no model {model!r} here; the models are {', '.join(self.options.collections)} "
                                 "(GET /v1/models)", "model_not_found", "model")
        method = method or self.options.method
        if method not in METHOD_NAMES:
            raise WireError(404, f"no method {method!r}; the methods are {', '.join(METHOD_NAMES)}", "model_not_found",
                            "model")
        return collection, method


class ServedTools(Tools):
    """The MCP tools on the server's engines: reading beside the worker, a model job (an ask, an
    index) queued on the one worker behind the OpenAI API's, dropped when its call is cancelled."""

    WAIT_STEP = 0.1  # seconds between looks at a waiting call's cancel token

    def __init__(self, service: Service) -> None:
        options = service.options
        super().__init__(service.settings, options.collections, options.method, options.allow_index)
        self.service = service

    def read(self, collection: str, work: Callable[[Any], Any]) -> Any:
        return self.service.read(collection, work)

    def model_job(self, collection: str, work: Callable[[Any, Any], Any], cancel: Any) -> Any:
        loop = anyio.from_thread.run_sync(asyncio.get_running_loop)
        try:
            job = self.service.jobs.submit(lambda job: work(self.service.engine(collection), job.cancel), loop)
        except QueueFull as exc:  # the tool's error, said as the OpenAI API's 429 says it
            raise K2Error(str(exc)) from None
        while not job.finished.wait(self.WAIT_STEP):
            if cancel.cancelled:
                self.service.jobs.drop(job)
                raise Cancelled("cancelled by the client")
        if job.error is not None:
            raise job.error
        return job.result


def count_documents(engine: Engine) -> int:
    """The collection's documents, counted without reading their rows (clients poll /v1/models)."""
    return sum(engine.docs.counts().values())


# -- reading a request ------------------------------------------------------------------------------

async def read_json(request: Request, limit: int) -> dict[str, Any]:
    """The request's JSON object, read up to ``limit`` bytes within BODY_SECONDS."""
    parts, size = [], 0
    try:
        with anyio.fail_after(BODY_SECONDS):
            async for part in request.stream():
                size += len(part)
                if size > limit:
                    raise WireError(413, f"the body is larger than {limit:,} bytes", "request_too_large")
                parts.append(part)
    except TimeoutError:
        raise WireError(408, f"the body did not arrive within {BODY_SECONDS} s", "request_timeout") from None
    try:
        body = json.loads(b"".join(parts))
    except (ValueError, UnicodeDecodeError):
        raise WireError(400, "the body is not valid JSON", "invalid_json") from None
    if not isinstance(body, dict):
        raise WireError(400, "the body must be a JSON object", "invalid_json")
    return body


def check_messages(messages: Any, limit: int) -> list[dict[str, Any]]:
    if not isinstance(messages, list) or not messages:
        raise WireError(400, "'messages' must be a non-empty list", "invalid_messages", "messages")
    if len(messages) > limit:
        raise WireError(400, f"{len(messages)} messages; a request may carry {limit} at most (start a new conversation)",
                        "too_many_messages", "messages")
    for n, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in ROLES:
            raise WireError(400, f"messages[{n}] must be an object with a role ({', '.join(sorted(ROLES))})",
                            "invalid_messages", f"messages[{n}]")
        content = m.get("content")
        if content is not None and not isinstance(content, (str, list)):
            raise WireError(400, f"messages[{n}].content must be a string or a list of parts", "invalid_messages",
                            f"messages[{n}].content")
        if len(json.dumps(content)) > CONTENT_MAX:
            raise WireError(400, f"messages[{n}] is longer than {CONTENT_MAX:,} characters", "message_too_long",
                            f"messages[{n}].content")
    return messages


def earlier_answer(text: str) -> str:
    """An earlier reply as the conversation reads it: its first paragraph without citation marks
    (what k2desk added after it — sources, cautions — is not the answer)."""
    first = text.strip().split("\n\n", 1)[0]
    return _MARKS.sub("", first).strip()


def conversation(messages: list[dict[str, Any]]) -> tuple[list[Turn], str]:
    try:
        turns, last = turns_from_messages(messages)
    except UsageError as exc:
        raise WireError(400, str(exc), "invalid_messages", "messages") from None
    return [Turn(t.message, t.standalone, earlier_answer(t.answer), t.sources) for t in turns], last


# -- routes -----------------------------------------------------------------------------------------

def _json(data: Any, status: int = 200, headers: Optional[dict[str, str]] = None) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers=headers)


def failure(exc: BaseException) -> JSONResponse:
    """Any failure as an OpenAI error object, with its status."""
    if isinstance(exc, WireError):
        return _json(exc.body(), exc.status, exc.headers)
    if isinstance(exc, QueueFull):
        return _json(wire.error_body(429, str(exc), "queue_full"), 429, {"Retry-After": str(exc.retry_after)})
    if isinstance(exc, UsageError):
        return _json(wire.error_body(400, str(exc), "invalid_request"), 400)
    if isinstance(exc, Cancelled):
        return _json(wire.error_body(503, str(exc), "cancelled"), 503)
    if isinstance(exc, K2Error):
        return _json(wire.error_body(500, str(exc), "k2desk_error"), 500)
    line = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    print(f"k2desk serve: a request failed: {line}", file=sys.stderr, flush=True)
    return _json(wire.error_body(500, f"the answer failed ({line}); the server goes on", "internal_error"), 500)


def make_app(service: Service) -> Starlette:
    options = service.options

    async def health(request: Request) -> Response:
        return _json({"status": "ok", "version": __version__, "collections": options.collections,
                      "queue": service.jobs.status()})

    async def models(request: Request) -> Response:
        data = []
        for collection in options.collections:
            documents = await anyio.to_thread.run_sync(service.read, collection, count_documents)
            for method in (options.method, *[m for m in LISTED_METHODS if m != options.method]):
                data.append(wire.model_object(collection, method, options.method, documents, service.created))
        return _json({"object": "list", "data": data})

    async def model(request: Request) -> Response:
        collection, method = service.resolve(request.path_params["name"])
        documents = await anyio.to_thread.run_sync(service.read, collection, count_documents)
        return _json(wire.model_object(collection, method, options.method, documents, service.created))

    async def documents(request: Request) -> Response:
        wanted = request.query_params.get("model") or request.query_params.get("collection")
        collections = [service.resolve(wanted)[0]] if wanted else options.collections

        def listing(engine: Engine) -> list[dict[str, Any]]:
            return [{"id": d.key, "object": "document", "collection": engine.collection, "title": d.title, "kind": d.kind,
                     "status": d.status, "error": d.error, "chunks": d.n_chunks, "stages": d.stages,
                     "reading": reading_note(d.meta) or d.meta.get("reading") or "text"} for d in engine.documents()]

        data = []
        for collection in collections:
            data += await anyio.to_thread.run_sync(service.read, collection, listing)
        return _json({"object": "list", "data": data})

    async def index(request: Request) -> Response:
        if not options.allow_index:
            raise WireError(403, "this server indexes nothing a request names (start it with --allow-index FOLDER)",
                            "indexing_not_allowed")
        body = await read_json(request, options.body_max)
        collection, _ = service.resolve(body.get("model") or body.get("collection"))
        paths = body.get("paths")
        if not isinstance(paths, list) or not paths or not all(isinstance(p, str) and p for p in paths):
            raise WireError(400, "'paths' must be a non-empty list of paths", "invalid_paths", "paths")
        outside = [p for p in paths if not options.may_index(p)]
        if outside:
            raise WireError(403, f"{outside[0]!r} is not under a folder this server may index "
                                 f"({', '.join(map(str, options.allow_index))})", "path_not_allowed", "paths")
        job = service.jobs.submit(lambda job: service.engine(collection).index(paths, cancel=job.cancel),
                                  asyncio.get_running_loop())
        report = await until_done(request, service, job)
        return _json({"object": "index_report", "collection": collection,
                      **json.loads(json.dumps(asdict(report), default=str))})

    async def search(request: Request) -> Response:
        body = await read_json(request, options.body_max)
        collection, _ = service.resolve(body.get("model") or body.get("collection"))
        query = body.get("query")
        if not isinstance(query, str) or not query.strip():
            raise WireError(400, "'query' must be a non-empty string", "invalid_query", "query")
        if len(query) > MESSAGE_MAX:
            raise WireError(400, f"the query is longer than {MESSAGE_MAX:,} characters", "query_too_long", "query")
        top_k = body.get("top_k", 5)
        if not isinstance(top_k, int) or isinstance(top_k, bool) or not 1 <= top_k <= TOP_K_MAX:
            raise WireError(400, f"'top_k' must be a whole number from 1 to {TOP_K_MAX}", "invalid_top_k", "top_k")
        found = await anyio.to_thread.run_sync(service.read, collection, lambda e: e.search(query.strip(), top_k))
        return _json({"object": "list", "model": collection, "query": query,
                      "data": [wire.source_object(i, s) for i, s in enumerate(found, 1)]})

    async def chat(request: Request) -> Response:
        body = await read_json(request, options.body_max)
        name = body.get("model")
        collection, method = service.resolve(name)
        turns, message = conversation(check_messages(body.get("messages"), options.messages_max))
        stream = body.get("stream", False)
        if not isinstance(stream, bool):
            raise WireError(400, "'stream' must be true or false", "invalid_stream", "stream")
        include_usage = bool((body.get("stream_options") or {}).get("include_usage")) if isinstance(
            body.get("stream_options"), dict) else False

        def run(job: Job):
            tokens = (lambda piece: job.emit(("token", piece))) if stream else None
            return service.engine(collection).converse(message, turns=turns, method=method, cancel=job.cancel,
                                                       on_token=tokens, remember=False)

        job = service.jobs.submit(run, asyncio.get_running_loop())
        cid, created = wire.completion_id(), wire.now()
        if not stream:
            answer = await until_done(request, service, job)
            return _json(wire.completion(answer, name, collection, cid, created))
        return StreamingResponse(streamed(service, job, name, collection, cid, created, include_usage),
                                 media_type="text/event-stream", headers={"Cache-Control": "no-cache"})

    async def not_found(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 404)
        text = {404: f"no such endpoint: {request.method} {request.url.path}",
                405: f"{request.method} is not allowed on {request.url.path}"}.get(status, str(getattr(exc, "detail", exc)))
        return _json(wire.error_body(status, text, "not_found" if status == 404 else "method_not_allowed"), status)

    def guarded(endpoint: Callable) -> Callable:
        async def call(request: Request) -> Response:
            try:
                response = await endpoint(request)
                if response.status_code < 400 and endpoint is not health:
                    service.served += 1
                return response
            except ClientDisconnect:
                return Response(status_code=499)
            except Exception as exc:  # noqa: BLE001 (every failure is an error object; the server goes on)
                return failure(exc)

        return call

    routes = [Route("/health", guarded(health)), Route("/v1/health", guarded(health)),
              Route("/v1/models", guarded(models)), Route("/v1/models/{name:path}", guarded(model)),
              Route("/v1/documents", guarded(documents), methods=["GET"]),
              Route("/v1/documents", guarded(index), methods=["POST"]),
              Route("/v1/search", guarded(search), methods=["POST"]),
              Route("/v1/chat/completions", guarded(chat), methods=["POST"])]
    mcp = MCPEndpoint(service)
    service.stopping.append(mcp.stop)
    routes.append(Route("/mcp", mcp, methods=["GET", "POST", "DELETE"]))
    middleware = []
    if options.allow_origins:
        middleware.append(Middleware(CORSMiddleware, allow_origins=options.allow_origins, allow_methods=["GET", "POST"],
                                     allow_headers=["Authorization", "Content-Type"]))
    app = Starlette(routes=routes, middleware=middleware, exception_handlers={HTTPException: not_found},
                    lifespan=mcp.lifespan)
    return Guard(app, options)  # type: ignore[return-value]


class MCPEndpoint:
    """The MCP server's Streamable HTTP transport as one ASGI route (its requests answered counted
    with the server's), and the lifespan its session manager needs. The Guard in front checks
    Host, Origin, token, JSON and size for it as for every route, so the SDK's own Host / Origin
    check (fixed to loopback names) is off; its body limit stays, at the server's."""

    def __init__(self, service: Service) -> None:
        from mcp.server.transport_security import TransportSecuritySettings

        self.service = service
        self.server = build_server(ServedTools(service))
        self.server.streamable_http_app(streamable_http_path="/mcp", max_request_body_size=service.options.body_max,
                                        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
        self.manager = self.server.session_manager

    async def __call__(self, scope: dict[str, Any], receive: Callable, send: Callable) -> None:
        async def counted(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200 and scope["method"] == "POST":
                self.service.served += 1  # a JSON-RPC request answered (a notification's 202 is not one)
            await send(message)

        await self.manager.asgi_app(scope, receive, counted)

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Any) -> AsyncIterator[None]:
        """The session manager runs beside the app until ``stop`` (the server stopping) or the end."""
        self._stopping = anyio.Event()
        async with anyio.create_task_group() as tg:
            started = anyio.Event()

            async def run() -> None:
                async with self.manager.run():
                    started.set()
                    await self._stopping.wait()

            tg.start_soon(run)
            await started.wait()
            try:
                yield
            finally:
                self._stopping.set()

    async def stop(self) -> None:
        """End every MCP session (its open event stream with it), so that the server's shutdown
        does not wait for a client that keeps one open."""
        if getattr(self, "_stopping", None) is not None:
            self._stopping.set()


async def until_done(request: Request, service: Service, job: Job) -> Any:
    """The job's result; a client gone before it drops the job (the next request does not wait)."""
    result: dict[str, Any] = {}

    async def wait() -> None:
        try:
            result["value"] = await job.wait()
        except Exception as exc:  # noqa: BLE001 (the request's failure, raised below, out of the task group)
            result["error"] = exc
        tg.cancel_scope.cancel()

    async def watch() -> None:
        while (await request.receive())["type"] != "http.disconnect":
            pass
        service.jobs.drop(job)
        tg.cancel_scope.cancel()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(wait)
            tg.start_soon(watch)
    finally:
        if not result:
            service.jobs.drop(job)
    if "error" in result:
        raise result["error"]
    if "value" not in result:
        raise ClientDisconnect()
    return result["value"]


async def streamed(service: Service, job: Job, model: str, collection: str, cid: str, created: int,
                   include_usage: bool) -> AsyncIterator[bytes]:
    """The answer as chat.completion.chunk events: the role, each token as it comes, then the
    citation marks, caution and sources list as text, with ``sources`` and ``k2desk`` as data in
    the last chunk; an error as an error event. A client gone cancels the job."""
    streamed_text: list[str] = []
    try:
        yield wire.event(wire.chunk(cid, model, created, {"role": "assistant", "content": ""}))
        while True:
            item = await job.events.get()
            if item is DONE:
                break
            if isinstance(item, tuple) and item[0] == "token":
                streamed_text.append(item[1])
                yield wire.event(wire.chunk(cid, model, created, {"content": item[1]}))
        if job.error is not None:
            response = failure(job.error)
            yield wire.event(json.loads(response.body))
        else:
            answer = job.result
            yield wire.event(wire.chunk(cid, model, created, {"content": wire.closing(answer, "".join(streamed_text))},
                                        "stop", sources=wire.sources(answer), k2desk=wire.about(answer, collection)))
            if include_usage:
                yield wire.event({**wire.chunk(cid, model, created, {}), "choices": [], "usage": wire.usage(answer)})
        yield wire.event("[DONE]")
    finally:
        if not job.finished.is_set():
            service.jobs.drop(job)
