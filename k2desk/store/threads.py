"""Conversations kept in a collection: a thread's title, method and scope; its turns are history
rows (store/history.py, ``thread_id``)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Optional

from k2desk.store.db import Database

TITLE_MAX = 80  # characters of the first message a new thread is named after


@dataclass
class Thread:
    id: int
    title: str
    created_at: float
    updated_at: float
    method: str = "k2rag"
    scope: list[str] = field(default_factory=list)  # document keys; []: the whole collection
    turns: int = 0


_COLS = "t.id, t.title, t.created_at, t.updated_at, t.method, t.scope"


def _thread(row: tuple) -> Thread:
    return Thread(int(row[0]), row[1], row[2], row[3], row[4], json.loads(row[5] or "[]"), int(row[6] or 0))


def title_of(message: str) -> str:
    """A thread's first name: its first message on one line, cut at a word."""
    line = " ".join(message.split())
    if len(line) <= TITLE_MAX:
        return line
    cut = line[:TITLE_MAX].rsplit(" ", 1)[0]
    return cut + "…"


class ThreadStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def create(self, title: str, method: str = "k2rag", scope: Optional[list[str]] = None) -> int:
        now = time.time()
        with self.db.transaction():
            row = self.db.one("INSERT INTO threads(title, created_at, updated_at, method, scope) VALUES (?, ?, ?, ?, ?) "
                              "RETURNING id", (title_of(title) or "Conversation", now, now, method,
                                               json.dumps(scope or [], ensure_ascii=False)))
            return int(row[0])

    def get(self, thread_id: int) -> Optional[Thread]:
        row = self.db.one(f"SELECT {_COLS}, (SELECT count(*) FROM history h WHERE h.thread_id = t.id) "
                          "FROM threads t WHERE t.id = ?", (thread_id,))
        return _thread(row) if row else None

    def list(self, limit: int = 10_000) -> list[Thread]:
        """The conversations, the one last continued first."""
        return [_thread(r) for r in self.db.all(
            f"SELECT {_COLS}, (SELECT count(*) FROM history h WHERE h.thread_id = t.id) FROM threads t "
            "ORDER BY t.updated_at DESC, t.id DESC LIMIT ?", (limit,))]

    def update(self, thread_id: int, *, title: Optional[str] = None, method: Optional[str] = None,
               scope: Optional[list[str]] = None) -> bool:
        """Rename it, or keep the method and documents it now asks with; marks it continued."""
        sets, values = ["updated_at = ?"], [time.time()]
        if title is not None:
            sets.append("title = ?")
            values.append(" ".join(title.split())[:200] or "Conversation")
        if method is not None:
            sets.append("method = ?")
            values.append(method)
        if scope is not None:
            sets.append("scope = ?")
            values.append(json.dumps(scope, ensure_ascii=False))
        with self.db.transaction():
            self.db.execute(f"UPDATE threads SET {', '.join(sets)} WHERE id = ?", (*values, thread_id))
            return self.db.changes() > 0

    def remove(self, thread_id: int) -> bool:
        """The conversation and its turns."""
        with self.db.transaction():
            self.db.execute("DELETE FROM history WHERE thread_id = ?", (thread_id,))
            self.db.execute("DELETE FROM threads WHERE id = ?", (thread_id,))
            return self.db.changes() > 0
