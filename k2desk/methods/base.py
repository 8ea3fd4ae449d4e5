"""What every retrieval method shares: the ``Method`` protocol and the ``Answer`` it returns."""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, Iterator, Optional, Protocol

from k2desk.progress import CancelToken, Progress
from k2desk.store.documents import ChunkRow

METHOD_NAMES = (
    "k2rag",
    "k2rag-paper",
    "semantic",
    "keyword",
    "hybrid",
    "evidence",
    "kg",
    "lightrag-local",
    "lightrag-global",
    "lightrag-hybrid",
    "coe",
    "mindmap",
)


@dataclass
class Source:
    """One passage an answer was drawn from."""

    document: str  # the document's path or corpus key (shown to the user)
    chunk_id: int
    score: float
    text: str
    title: str = ""
    start_char: int = 0
    end_char: int = 0
    page: int = 0  # the PDF page (1-based) the passage starts on; 0: the document has no pages
    last_page: int = 0  # the page it ends on (a passage may run over a page break)

    def to_json(self) -> dict[str, Any]:
        out = {"document": self.document, "chunk_id": self.chunk_id, "score": round(float(self.score), 6), "text": self.text}
        if self.page:
            out["page"] = self.page
            if self.last_page > self.page:
                out["last_page"] = self.last_page
        return out

    def pages(self) -> str:
        """"p. 3", "pp. 2–3", or "" for a document without pages."""
        if not self.page:
            return ""
        return f"pp. {self.page}–{self.last_page}" if self.last_page > self.page else f"p. {self.page}"

    @classmethod
    def of(cls, chunk: ChunkRow, score: float) -> "Source":
        """A stored chunk as an answer's source, with its page where the document has pages."""
        return cls(chunk.document, chunk.id, score, chunk.text, chunk.title, chunk.start_char, chunk.end_char,
                   chunk.page, chunk.last_page)


@dataclass
class LLMUsage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add(self, other: "LLMUsage") -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens

    def to_json(self) -> dict[str, int]:
        return asdict(self)


@dataclass
class Answer:
    question: str
    method: str
    answer: str
    sources: list[Source] = field(default_factory=list)
    trace: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    llm: LLMUsage = field(default_factory=LLMUsage)

    def to_json(self) -> dict[str, Any]:
        """The ``ask --json`` contract of ARCHITECTURE.md."""
        return {
            "question": self.question,
            "method": self.method,
            "answer": self.answer,
            "sources": [s.to_json() for s in self.sources],
            "trace": self.trace,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
            "llm": self.llm.to_json(),
        }


class Timer:
    """Collects named step durations (seconds) into a dict: ``with timer("retrieve"): ...``."""

    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self._start = time.perf_counter()

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = self.timings.get(name, 0.0) + time.perf_counter() - t0

    def finish(self) -> dict[str, float]:
        self.timings["total"] = time.perf_counter() - self._start
        return self.timings


class Method(Protocol):
    """A way of answering a question from a collection's index."""

    name: str

    def ask(
        self,
        question: str,
        progress: Optional[Progress] = None,
        cancel: Optional[CancelToken] = None,
    ) -> Answer: ...
