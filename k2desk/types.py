"""The values every layer passes around: an answer, the passages it came from, the LLM work it
took. They sit below every layer that uses them (store, runtime, graph, methods, engine, app),
so no layer imports upwards to get them."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from k2desk.verdict import Verdict


def page_range(page: int, last_page: int = 0, long: bool = False) -> str:
    """"p. 3" / "pp. 2–3" ("page 3" / "pages 2–3" when ``long``); "" for no page."""
    if not page:
        return ""
    one, many = ("page", "pages") if long else ("p.", "pp.")
    return f"{many} {page}–{last_page}" if last_page > page else f"{one} {page}"


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
    location: str = ""  # where it is in its file: "p. 3", "slides 2–3", "sheet Stock, rows 12–21"; "" if unknown

    def to_json(self) -> dict[str, Any]:
        out = {"document": self.document, "chunk_id": self.chunk_id, "score": round(float(self.score), 6), "text": self.text}
        if self.page:
            out["page"] = self.page
            if self.last_page > self.page:
                out["last_page"] = self.last_page
        if self.where():
            out["location"] = self.where()
        return out

    def pages(self) -> str:
        """"p. 3", "pp. 2–3", or "" for a document without pages."""
        return page_range(self.page, self.last_page)

    def where(self) -> str:
        """Where the passage is in its file: its pages, slides or sheet rows; "" when unknown."""
        return self.location or self.pages()


@dataclass
class LLMUsage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reused_tokens: int = 0  # of the prompt tokens, those the model had evaluated already (its KV cache): not read again

    def add(self, other: "LLMUsage") -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.reused_tokens += other.reused_tokens

    @property
    def read_tokens(self) -> int:
        """Prompt tokens the model read (evaluated): what a CPU spends its time on."""
        return self.prompt_tokens - self.reused_tokens

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
    # answered, cautioned or declined, and why (k2desk.verdict decides it; the trace only records)
    verdict: Verdict = field(default_factory=Verdict)

    @property
    def scope(self) -> list[str]:
        """The documents the question was asked about ([]: the whole collection)."""
        scope = self.trace.get("scope")
        return list(scope.get("documents") or []) if isinstance(scope, dict) else []

    @property
    def coverage_note(self) -> str:
        """What the method could not read yet because indexing is still building it ("" if nothing)."""
        coverage = self.trace.get("coverage")
        return str(coverage.get("note") or "") if isinstance(coverage, dict) else ""

    @property
    def caution(self) -> str:
        """The caution shown with an answer the check was unsure of, with its sentence ("" if none)."""
        return self.verdict.caution if self.verdict.outcome == "cautioned" else ""

    @property
    def reason(self) -> str:
        """Why an answer was declined or shown with a caution, in a few words ("the sentences that
        hold the answer do not mention mayor"); "" for an answer the evidence holds."""
        return "" if self.verdict.outcome == "answered" else self.verdict.reason

    @property
    def outcome(self) -> str:
        """"answered", "cautioned" (shown with ``caution``) or "declined" ("not in your documents")."""
        return self.verdict.outcome

    @property
    def conversation(self) -> dict[str, Any]:
        """How a message of a conversation was understood ({} for a question asked alone):
        message, standalone, how, thread."""
        conv = self.trace.get("conversation")
        return conv if isinstance(conv, dict) else {}

    @property
    def understood_as(self) -> str:
        """The standalone question a follow-up was read as ("" when it was answered as typed)."""
        conv = self.conversation
        return str(conv.get("standalone") or "") if conv and conv.get("standalone") != conv.get("message") else ""

    @property
    def cited_note(self) -> str:
        """Where a follow-up pointed at a document an earlier answer cited ("that report") and was
        asked of it alone, or still pointed at "it" and was asked of the last answer's documents,
        a line saying so ("" otherwise)."""
        conv = self.conversation
        if conv.get("scope") == "last answer":
            listed = f" ({', '.join(f'“{n}”' for n in conv['documents'])})" if conv.get("documents") else ""
            return f"Asked of the documents the last answer came from{listed}: the question still says “{conv['unresolved'][0]}”" \
                if conv.get("unresolved") else f"Asked of the documents the last answer came from{listed}"
        if conv.get("scope") != "cited" or not conv.get("cited"):
            return ""
        return f"Asked of “{conv['cited']}” alone, the document an earlier answer cited"

    @property
    def hops(self) -> list[dict[str, Any]]:
        """The steps of a bridge question answered hop by hop (k2desk.hops; [] when read once)."""
        hops = self.trace.get("hops")
        return list(hops) if isinstance(hops, list) else []

    def steps(self) -> str:
        """The hops as lines a person reads: "1. Which company acquired X? → Acme" ("" when none)."""
        return "\n".join(f"{n}. {h.get('question', '')} → {' '.join(str(h.get('answer', '')).split())[:120]}"
                         for n, h in enumerate(self.hops, 1))

    @property
    def read_once_note(self) -> str:
        """Why a question read once was read again hop by hop (" (read once, it was declined)", "
        (read once, it gave "Lantern Ale": no amount)"; "" when it was not)."""
        first = self.trace.get("read_once")
        if not isinstance(first, dict):
            return ""
        if first.get("outcome") == "declined":
            return " (read once, it was declined)"
        answer = " ".join(str(first.get("answer", "")).split())[:80]
        return f" (read once, it gave \"{answer}\": {first.get('unfit', '')})"

    def notes(self, indent: str = "") -> list[str]:
        """What is shown under the answer, in order: its caution, why it was declined or
        cautioned, what it was understood as, the cited document it was asked of, its steps
        (each indented by ``indent``), and what indexing has not built yet."""
        lines = [self.caution] if self.caution else []
        lines += [f"Why: {self.reason}."] if self.reason else []
        lines += [f"Understood as: {self.understood_as}"] if self.understood_as else []
        lines += [self.cited_note] if self.cited_note else []
        if self.hops:
            lines.append(f"Step by step{self.read_once_note}:\n" + "\n".join(indent + line for line in self.steps().splitlines()))
        lines += [self.coverage_note] if self.coverage_note else []
        return lines

    def to_json(self) -> dict[str, Any]:
        """The ``ask --json`` contract (README, "Using it")."""
        conv = self.conversation
        return {
            **({"thread": conv.get("thread"), "message": conv.get("message"), "understood_as": self.question}
               if conv else {}),
            "question": self.question,
            "method": self.method,
            "answer": self.answer,
            "outcome": self.outcome,
            **({"caution": self.caution} if self.caution else {}),
            **({"reason": self.reason} if self.reason else {}),
            "sources": [s.to_json() for s in self.sources],
            "verdict": self.verdict.to_json(),
            "trace": self.trace,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
            "llm": self.llm.to_json(),
            **({"models": self.trace["models"]} if isinstance(self.trace.get("models"), dict) else {}),
        }
