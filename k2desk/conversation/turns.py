"""The earlier turns of a conversation as plain data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from k2desk.errors import UsageError


@dataclass(frozen=True)
class Turn:
    message: str  # what the person typed
    standalone: str = ""  # the question it was understood as ("": the message itself)
    answer: str = ""
    sources: tuple[str, ...] = ()  # the cited documents' titles or names, best first
    documents: tuple[str, ...] = ()  # the cited documents' keys, best first, where known (a stored thread)
    # each source as the answer listed it ([1], [2], …): its document's key and title, where known
    passages: tuple[tuple[str, str], ...] = ()

    @property
    def question(self) -> str:
        return self.standalone or self.message


def turns_from_history(entries: Iterable[Any]) -> list[Turn]:
    """History rows (store/history.py's HistoryEntry) of one thread, first first."""
    turns = []
    for e in entries:
        titles, keys = [], []
        listed = tuple((str(s.get("document") or ""), str(s.get("title") or "")) for s in e.sources)
        for s in e.sources:
            name = str(s.get("title") or s.get("document") or "")
            if name and name not in titles:
                titles.append(name)
            key = str(s.get("document") or "")
            if key and key not in keys:
                keys.append(key)
        turns.append(Turn(e.message or e.question, e.question, e.answer, tuple(titles[:3]), tuple(keys[:3]), listed))
    return turns


def _text(content: Any) -> str:
    """A message's content: a string, or OpenAI's list of parts ({"type": "text", "text": …})."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text") or "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def turns_from_messages(messages: Sequence[dict[str, Any]]) -> tuple[list[Turn], str]:
    """An OpenAI-style ``messages`` list: the earlier turns (each user message with the assistant
    reply after it) and the last user message. System messages are not turns."""
    turns: list[Turn] = []
    pending = ""
    last = ""
    for m in messages:
        role, text = m.get("role"), _text(m.get("content")).strip()
        if role == "user":
            if pending:
                turns.append(Turn(pending))
            pending = last = text
        elif role == "assistant" and pending:
            turns.append(Turn(pending, answer=text))
            pending = ""
    if not last or not pending:
        raise UsageError("the conversation does not end with a question (the last message must be the person's)")
    return turns, last
