"""The OpenAI wire format of `k2desk serve`: models, chat completions (whole and streamed),
errors, and k2desk's own fields, ``sources`` and ``k2desk``, documented in the README ("Your
documents from your own tools")."""

from __future__ import annotations

import json
import re
import time
import uuid
from pathlib import Path
from typing import Any, Optional

from k2desk import __version__
from k2desk.types import Answer, Source

OWNER = "k2desk"
SOURCES_LISTED = 5  # sources named in the answer's text (all of them are in ``sources``)
PASSAGE_CHARS = 2000  # characters of a passage in ``sources``
_WORD = re.compile(r"\w+", re.UNICODE)

# HTTP status -> OpenAI's error type
ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
               404: "not_found_error", 405: "invalid_request_error", 409: "conflict_error",
               413: "invalid_request_error", 415: "invalid_request_error", 422: "invalid_request_error",
               429: "rate_limit_error", 500: "server_error", 503: "service_unavailable"}


class WireError(Exception):
    """A request that fails: its HTTP status, a one-line message, OpenAI's code and param."""

    def __init__(self, status: int, message: str, code: Optional[str] = None, param: Optional[str] = None,
                 headers: Optional[dict[str, str]] = None) -> None:
        super().__init__(message)
        self.status, self.message, self.code, self.param = status, message, code, param
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        return error_body(self.status, self.message, self.code, self.param)


def error_body(status: int, message: str, code: Optional[str] = None, param: Optional[str] = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": ERROR_TYPES.get(status, "invalid_request_error"),
                      "param": param, "code": code}}


# -- models ---------------------------------------------------------------------------------------

def model_id(collection: str, method: str, default_method: str) -> str:
    """The name a client's model picker shows: the collection, or "collection/method"."""
    return collection if method == default_method else f"{collection}/{method}"


def model_object(collection: str, method: str, default_method: str, documents: int, created: int) -> dict[str, Any]:
    return {"id": model_id(collection, method, default_method), "object": "model", "created": created,
            "owned_by": OWNER, "k2desk": {"collection": collection, "method": method, "documents": documents}}


# -- an answer as text and as data ----------------------------------------------------------------

def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def cited(answer: Answer) -> list[int]:
    """The sources (1-based) whose passage holds every word of the answer; the first source when
    none does; none for a declined answer."""
    if answer.outcome == "declined" or not answer.sources:
        return []
    words = _words(answer.answer)
    held = [i for i, s in enumerate(answer.sources, 1) if words and words <= _words(s.text)]
    return held[:3] or [1]


def source_name(source: Source) -> str:
    name = source.title or Path(source.document).name or source.document
    return f"{name}, {source.where()}" if source.where() else name


def answer_body(answer: Answer) -> str:
    """The answer with its citation marks: "Henrike Albers [1]"."""
    marks = "".join(f"[{i}]" for i in cited(answer))
    return f"{answer.answer} {marks}" if marks else answer.answer


def answer_tail(answer: Answer) -> str:
    """What follows the answer in the text, for a client that shows only text: its caution or why it
    was declined, what it was understood as, and a short list of its sources."""
    lines = answer.notes()
    text = ("\n\n" + "\n".join(lines)) if lines else ""
    if answer.sources:
        listed = [f"[{i}] {source_name(s)}" for i, s in enumerate(answer.sources[:SOURCES_LISTED], 1)]
        text += "\n\nSources:\n" + "\n".join(listed)
    return text


def answer_text(answer: Answer) -> str:
    return answer_body(answer) + answer_tail(answer)


def source_object(index: int, source: Source, cited_by: Optional[set[int]] = None) -> dict[str, Any]:
    """A passage as data; ``cited_by`` (an answer's citation marks) adds whether the answer cites it."""
    out: dict[str, Any] = {"index": index, "document": source.document, "title": source.title or Path(source.document).name,
                           "location": source.where(), "score": round(float(source.score), 4),
                           "chunk_id": source.chunk_id, "text": source.text[:PASSAGE_CHARS]}
    if source.page:
        out["page"] = source.page
        if source.last_page > source.page:
            out["last_page"] = source.last_page
    if cited_by is not None:
        out["cited"] = index in cited_by
    return out


def sources(answer: Answer) -> list[dict[str, Any]]:
    marks = set(cited(answer))
    return [source_object(i, s, marks) for i, s in enumerate(answer.sources, 1)]


def about(answer: Answer, collection: str) -> dict[str, Any]:
    """k2desk's own account of an answer: its outcome, what the message was understood as, timings."""
    return {"collection": collection, "method": answer.method, "outcome": answer.outcome, "answer": answer.answer,
            "understood_as": answer.understood_as or None, "caution": answer.caution or None,
            "reason": answer.reason or None, "seconds": round(answer.timings.get("total", 0.0), 3),
            "models": answer.trace.get("models", {}), "version": __version__}


def usage(answer: Answer) -> dict[str, int]:
    return {"prompt_tokens": answer.llm.prompt_tokens, "completion_tokens": answer.llm.completion_tokens,
            "total_tokens": answer.llm.prompt_tokens + answer.llm.completion_tokens}


# -- chat completions -----------------------------------------------------------------------------

def completion_id() -> str:
    return f"chatcmpl-{uuid.uuid4().hex[:24]}"


def completion(answer: Answer, model: str, collection: str, cid: str, created: int) -> dict[str, Any]:
    return {"id": cid, "object": "chat.completion", "created": created, "model": model,
            "system_fingerprint": f"k2desk-{__version__}",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": answer_text(answer), "refusal": None},
                         "logprobs": None, "finish_reason": "stop"}],
            "usage": usage(answer), "sources": sources(answer), "k2desk": about(answer, collection)}


def chunk(cid: str, model: str, created: int, delta: dict[str, Any], finish: Optional[str] = None,
          **extra: Any) -> dict[str, Any]:
    return {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
            "system_fingerprint": f"k2desk-{__version__}",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}], **extra}


def closing(answer: Answer, streamed: str) -> str:
    """The text that ends a streamed answer: its citation marks and tail after what streamed, or
    the answer itself again on a line of its own where it is not what streamed (declined after a
    candidate streamed, or read a second time)."""
    if streamed.strip() and streamed.strip() == answer.answer.strip():
        marks = answer_body(answer)[len(answer.answer):]
        return marks + answer_tail(answer)
    return ("\n\n" if streamed.strip() else "") + answer_text(answer)


def event(data: Any) -> bytes:
    """One Server-Sent Event."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return f"data: {text}\n\n".encode()


def now() -> int:
    return int(time.time())
