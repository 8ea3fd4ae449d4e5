"""Documents, their per-stage build state, and their chunks."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from k2desk.ingest import locations
from k2desk.store.db import Database
from k2desk.text.chunking import Chunk
from k2desk.types import Source


@dataclass
class DocumentRow:
    id: int
    key: str
    title: str
    kind: str
    meta: dict[str, Any]
    content_hash: str
    status: str
    error: Optional[str]
    updated_at: float
    n_chunks: int = 0
    stages: list[str] = field(default_factory=list)


@dataclass
class ChunkRow:
    id: int
    document_id: int
    document: str  # the document's key
    title: str
    source: str
    profile: str
    seq: int
    start_char: int
    end_char: int
    text: str
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def page(self) -> int:
        """The page (1-based) this chunk of a paged document's text (a PDF, a multi-page scan)
        starts on; 0 for documents without pages (and for slides and sheets: see ``location``)."""
        return self._span()[0] if locations.unit(self.meta) == "page" else 0

    @property
    def last_page(self) -> int:
        """The page its last character is on (a chunk may run over a page break)."""
        return self._span()[1] if locations.unit(self.meta) == "page" else 0

    @property
    def location(self) -> str:
        """Where the chunk is in its file: "p. 3", "slides 2–3", "sheet Stock, rows 12–21"; "" if unknown."""
        return locations.label(self.meta, *self._span())

    def as_source(self, score: float) -> Source:
        """This chunk as an answer's source, with its pages, slides or rows where the document has them."""
        first, last = self._span()
        paged = locations.unit(self.meta) == "page"
        return Source(self.document, self.id, score, self.text, self.title, self.start_char, self.end_char,
                      first if paged else 0, last if paged else 0, locations.label(self.meta, first, last))

    def _span(self) -> tuple[int, int]:
        if self.source != "text":  # a summary's chunk has no place in the file
            return 0, 0
        return locations.span(self.meta, self.start_char, self.end_char)


_DOC_COLS = "id, key, title, kind, meta, content_hash, status, error, updated_at"
_CHUNK_COLS = "c.id, c.document_id, d.key, d.title, c.source, c.profile, c.seq, c.start_char, c.end_char, c.text, d.meta"


def _chunk(row: tuple) -> ChunkRow:
    return ChunkRow(*row[:-1], meta=json.loads(row[-1] or "{}"))


def _doc(row: tuple) -> DocumentRow:
    return DocumentRow(row[0], row[1], row[2], row[3], json.loads(row[4] or "{}"), row[5], row[6], row[7], row[8])


class DocumentStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- documents ---------------------------------------------------------------------
    def get(self, key: str) -> Optional[DocumentRow]:
        row = self.db.one(f"SELECT {_DOC_COLS} FROM documents WHERE key = ?", (key,))
        return _doc(row) if row else None

    def by_id(self, doc_id: int) -> Optional[DocumentRow]:
        row = self.db.one(f"SELECT {_DOC_COLS} FROM documents WHERE id = ?", (doc_id,))
        return _doc(row) if row else None

    def list(self, status: Optional[str] = None) -> list[DocumentRow]:
        sql = f"SELECT {_DOC_COLS} FROM documents" + (" WHERE status = ?" if status else "") + " ORDER BY key"
        docs = [_doc(r) for r in self.db.all(sql, (status,) if status else ())]
        counts = dict(self.db.all("SELECT document_id, count(*) FROM chunks WHERE profile = 'vec' AND source = 'text' "
                                  "GROUP BY document_id"))
        stages: dict[int, list[str]] = {}
        for doc_id, stage in self.db.all("SELECT document_id, stage FROM document_stages ORDER BY stage"):
            stages.setdefault(doc_id, []).append(stage)
        for d in docs:
            d.n_chunks = counts.get(d.id, 0)
            d.stages = stages.get(d.id, [])
        return docs

    def keys_titled(self, title: str) -> list[str]:
        """Keys of the documents whose title is ``title``."""
        return [r[0] for r in self.db.all("SELECT key FROM documents WHERE title = ? ORDER BY key", (title,))]

    def title_holds(self, words: str) -> bool:
        """Whether some document's title holds ``words`` (letter case aside)."""
        like = "%" + words.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        return bool(self.db.all("SELECT 1 FROM documents WHERE lower(title) LIKE ? ESCAPE '\\' LIMIT 1", (like,)))

    def keys_with_prefix(self, prefix: str) -> list[str]:
        """Keys of documents whose key starts with ``prefix`` (a folder or a corpus file)."""
        like = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        return [r[0] for r in self.db.all("SELECT key FROM documents WHERE key LIKE ? ESCAPE '\\' ORDER BY key", (like,))]

    def upsert(self, key: str, title: str, kind: str, meta: dict, content_hash: str, text: Optional[str],
               status: str = "pending", error: Optional[str] = None) -> int:
        now = time.time()
        self.db.execute(
            """INSERT INTO documents(key, title, kind, meta, content_hash, text, status, error, created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT(key) DO UPDATE SET title = excluded.title, kind = excluded.kind, meta = excluded.meta,
                 content_hash = excluded.content_hash, text = excluded.text, status = excluded.status,
                 error = excluded.error, updated_at = excluded.updated_at""",
            (key, title, kind, json.dumps(meta, ensure_ascii=False, default=str), content_hash, text, status, error, now, now),
        )
        return int(self.db.one("SELECT id FROM documents WHERE key = ?", (key,))[0])

    def set_status(self, doc_id: int, status: str, error: Optional[str] = None) -> None:
        self.db.execute("UPDATE documents SET status = ?, error = ?, updated_at = ? WHERE id = ?", (status, error, time.time(), doc_id))

    def text(self, doc_id: int) -> str:
        row = self.db.one("SELECT text FROM documents WHERE id = ?", (doc_id,))
        return (row[0] or "") if row else ""

    def source_text(self, doc_id: int, source: str) -> str:
        """What a ``source`` ("text" | "summary") is built from: the document's text or its summary."""
        column = {"text": "text", "summary": "summary"}[source]
        row = self.db.one(f"SELECT {column} FROM documents WHERE id = ?", (doc_id,))
        return (row[0] or "") if row else ""

    def any_stage(self, prefix: str) -> bool:
        """Whether any document has a stage whose name starts with ``prefix`` (e.g. "graph")."""
        return self.db.one("SELECT 1 FROM document_stages WHERE stage LIKE ? LIMIT 1", (prefix + "%",)) is not None

    def summary(self, doc_id: int, summary_key: str) -> Optional[str]:
        row = self.db.one("SELECT summary FROM documents WHERE id = ? AND summary_key = ?", (doc_id, summary_key))
        return row[0] if row else None

    def current_summary(self, doc: DocumentRow) -> Optional[str]:
        """The corpus summary made from the document's present content (by any summarizer), if any."""
        row = self.db.one("SELECT summary FROM documents WHERE id = ? AND summary_key LIKE ? ESCAPE '\\'",
                          (doc.id, doc.content_hash.replace("%", "\\%").replace("_", "\\_") + ":%"))
        return row[0] if row and row[0] else None

    def set_summary(self, doc_id: int, summary: str, summary_key: str) -> None:
        self.db.execute("UPDATE documents SET summary = ?, summary_key = ?, updated_at = ? "
                        "WHERE id = ?", (summary, summary_key, time.time(), doc_id))

    def ids_to_process(self) -> list[int]:
        """Documents left pending or interrupted mid-way (resume after a crash)."""
        return [r[0] for r in self.db.all("SELECT id FROM documents WHERE status IN ('pending', 'processing') ORDER BY id")]

    def outlets(self) -> list[str]:
        """The distinct publishers (``meta.source``, e.g. a corpus line's outlet) of the
        collection's documents; empty when no document records one."""
        rows = self.db.all(self.db.dialect.outlets)
        return [r[0] for r in rows if r[0]]

    def counts(self) -> dict[str, int]:
        return dict(self.db.all("SELECT status, count(*) FROM documents GROUP BY status"))

    # -- stages ------------------------------------------------------------------------
    def stage_counts(self) -> dict[str, int]:
        """How many documents each build stage has finished on their current content (a document
        whose later stage failed keeps the stages it finished: its passages are still searchable)."""
        return dict(self.db.all("SELECT s.stage, count(*) FROM document_stages s JOIN documents d ON d.id = s.document_id "
                                "AND d.content_hash = s.content_hash GROUP BY s.stage"))

    def readable_count(self) -> int:
        """Documents whose text was read (those that failed at reading have no content)."""
        return self.db.one("SELECT count(*) FROM documents WHERE content_hash != ''")[0]

    def stage_done(self, doc_id: int, stage: str, content_hash: str) -> bool:
        return self.db.one("SELECT 1 FROM document_stages WHERE document_id = ? AND stage = ? "
                           "AND content_hash = ?", (doc_id, stage, content_hash)) is not None

    def mark_stage(self, doc_id: int, stage: str, content_hash: str) -> None:
        self.db.execute(self.db.dialect.mark_stage, (doc_id, stage, content_hash, time.time()))

    def clear_stages(self, doc_id: int, stages: Optional[Iterable[str]] = None) -> None:
        if stages is None:
            self.db.execute("DELETE FROM document_stages WHERE document_id = ?", (doc_id,))
        else:
            self.db.executemany("DELETE FROM document_stages WHERE document_id = ? AND stage = ?", [(doc_id, s) for s in stages])

    # -- chunks ------------------------------------------------------------------------
    def add_chunks(self, doc_id: int, source: str, profile: str, chunks: list[Chunk]) -> list[int]:
        ids = []
        for c in chunks:
            cur = self.db.execute(
                "INSERT INTO chunks(document_id, source, profile, seq, start_char, end_char, n_tokens, text) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (doc_id, source, profile, c.seq, c.start_char, c.end_char, c.n_tokens, c.text),
            )
            ids.append(int(next(cur)[0]))
        return ids

    def chunk_ids(self, doc_id: int, source: Optional[str] = None, profile: Optional[str] = None) -> list[int]:
        sql, params = "SELECT id FROM chunks WHERE document_id = ?", [doc_id]
        if source:
            sql, params = sql + " AND source = ?", params + [source]
        if profile:
            sql, params = sql + " AND profile = ?", params + [profile]
        return [r[0] for r in self.db.all(sql + " ORDER BY id", params)]

    def delete_chunks(self, ids: list[int]) -> None:
        self.db.executemany("DELETE FROM chunks WHERE id = ?", [(i,) for i in ids])

    def chunks(self, ids: Iterable[int]) -> dict[int, ChunkRow]:
        ids = list(ids)
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.db.all(f"SELECT {_CHUNK_COLS} FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id IN ({marks})", ids)
        return {r[0]: _chunk(r) for r in rows}

    def chunks_of(self, doc_id: int, source: str, profile: str) -> list[ChunkRow]:
        rows = self.db.all(
            f"SELECT {_CHUNK_COLS} FROM chunks c JOIN documents d ON d.id = c.document_id "
            f"WHERE c.document_id = ? AND c.source = ? AND c.profile = ? ORDER BY c.seq",
            (doc_id, source, profile),
        )
        return [_chunk(r) for r in rows]

    def delete(self, doc_id: int) -> None:
        """Delete the row; chunks, stages and mentions cascade (callers clear vec/FTS rows first)."""
        self.db.execute("DELETE FROM documents WHERE id = ?", (doc_id,))
