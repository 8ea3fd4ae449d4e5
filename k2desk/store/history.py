"""The questions asked of a collection and their answers (the app's History, ``k2desk history``)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Optional

from k2desk.store.db import Database
from k2desk.types import Answer
from k2desk.verdict import Verdict


@dataclass
class HistoryEntry:
    id: int
    asked_at: float
    question: str
    method: str
    answer: str
    sources: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    llm: dict[str, int] = field(default_factory=dict)
    note: str = ""
    scope: list[str] = field(default_factory=list)  # the documents it was asked about ([]: the collection)
    thread_id: Optional[int] = None  # the conversation it is a turn of (None: asked alone)
    message: str = ""  # the person's own words where they differ from ``question`` (the standalone question)
    verdict: Verdict = field(default_factory=Verdict)  # answered, cautioned or declined, and why

    @property
    def asked(self) -> str:
        """What the person typed."""
        return self.message or self.question


_COLS = "id, asked_at, question, method, answer, sources, seconds, llm, note, scope, thread_id, message, verdict"


def _entry(row: tuple) -> HistoryEntry:
    return HistoryEntry(row[0], row[1], row[2], row[3], row[4], json.loads(row[5] or "[]"), row[6],
                        json.loads(row[7] or "{}"), row[8], json.loads(row[9] or "[]"),
                        None if row[10] is None else int(row[10]), row[11] or "", Verdict.from_json(_json(row[12])))


def _json(text: str) -> object:
    try:
        return json.loads(text or "{}")
    except ValueError:
        return {}


class HistoryStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def add(self, answer: Answer, asked_at: Optional[float] = None, thread_id: Optional[int] = None,
            message: str = "") -> int:
        """Keep ``answer``; ``thread_id`` makes it the next turn of that conversation, ``message``
        the words the person typed when ``answer.question`` is the standalone form of them."""
        sources = [{**s.to_json(), "title": s.title} for s in answer.sources]
        seconds = answer.timings.get("total", answer.timings.get("wall", 0.0))
        message = "" if message.strip() == answer.question.strip() else message.strip()
        with self.db.transaction():
            row = self.db.one(f"INSERT INTO history({_COLS[4:]}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                              (asked_at or time.time(), answer.question, answer.method, answer.answer,
                               json.dumps(sources, ensure_ascii=False), float(seconds),
                               json.dumps(answer.llm.to_json()), answer.coverage_note,
                               json.dumps(answer.scope, ensure_ascii=False), thread_id, message,
                               json.dumps(answer.verdict.to_json(), ensure_ascii=False)))
            return int(row[0])

    def turns(self, thread_id: int) -> list[HistoryEntry]:
        """A conversation's turns, first first."""
        return [_entry(r) for r in self.db.all(f"SELECT {_COLS} FROM history WHERE thread_id = ? ORDER BY id",
                                               (thread_id,))]

    def list(self, limit: int = 10_000) -> list[HistoryEntry]:
        """Newest first."""
        return [_entry(r) for r in self.db.all(f"SELECT {_COLS} FROM history ORDER BY asked_at DESC, id DESC LIMIT ?",
                                               (limit,))]

    def get(self, entry_id: int) -> Optional[HistoryEntry]:
        row = self.db.one(f"SELECT {_COLS} FROM history WHERE id = ?", (entry_id,))
        return _entry(row) if row else None

    def remove(self, entry_id: int) -> bool:
        with self.db.transaction():
            self.db.execute("DELETE FROM history WHERE id = ?", (entry_id,))
            return self.db.changes() > 0

    def clear(self) -> int:
        """Every question and every conversation."""
        with self.db.transaction():
            self.db.execute("DELETE FROM history")
            n = self.db.changes()
            self.db.execute("DELETE FROM threads")
            return n
