"""Vectors of graph items for search: entities by "name: merged description", relations by
"A - B: keywords. description", in VectorIndex kinds "entities" / "relations".

Merged descriptions grow as mentions arrive (and shrink when documents go), so a vector is
re-embedded whenever the text it was made from changes: ``entities.vector_key`` /
``relations.vector_key`` hold a hash of that text, and ``refresh`` embeds only the stale ones.
The text is the first ``VECTOR_TEXT_CHARS`` characters: descriptions merge in mention order, so a
well-known entity's vector text stops changing once that prefix is full (bounded re-embedding).
"""

from __future__ import annotations

import hashlib
from typing import Iterable, Optional

import numpy as np

from k2desk.progress import CancelToken
from k2desk.runtime.embedder import Embedder
from k2desk.store.db import Database
from k2desk.store.graph import GraphStore
from k2desk.store.vectors import VectorIndex

VECTOR_TEXT_CHARS = 600


def entity_text(display: str, description: str) -> str:
    return (f"{display}: {description}" if description else display)[:VECTOR_TEXT_CHARS]


def relation_text(src: str, dst: str, keywords: str, description: str) -> str:
    head = f"{src} - {dst}" + (f": {keywords}" if keywords else "")
    return (f"{head}. {description}" if description else head)[:VECTOR_TEXT_CHARS]


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:20]


class GraphVectors:
    def __init__(self, db: Database, embedder: Embedder) -> None:
        self.db = db
        self.embedder = embedder
        self.graph = GraphStore(db)
        self.index = {"entities": VectorIndex(db, "entities"), "relations": VectorIndex(db, "relations")}

    def ensure(self) -> None:
        for index in self.index.values():
            index.ensure(self.embedder.dim, self.embedder.name)

    def texts(self, entity_ids: Iterable[int], relation_ids: Iterable[int]) -> tuple[dict[int, str], dict[int, str]]:
        ents = {i: entity_text(e.display, e.description) for i, e in self.graph.entities(entity_ids).items()}
        rels = {i: relation_text(r.src, r.dst, r.keywords, r.description) for i, r in self.graph.relations(relation_ids).items()}
        return ents, rels

    def refresh(self, entity_ids: Iterable[int], relation_ids: Iterable[int], source: str,
                cache: Optional[dict[str, np.ndarray]] = None, cancel: Optional[CancelToken] = None) -> int:
        """(Re-)embed the given items whose vector is missing or stale; vectors already computed
        for a text (``cache``: text -> vector) are reused. Returns how many were embedded."""
        cache = cache or {}
        self.ensure()
        ents, rels = self.texts(entity_ids, relation_ids)
        embedded = 0
        for kind, texts in (("entities", ents), ("relations", rels)):
            have = self.graph.vector_keys(kind, list(texts))
            stale = {i: t for i, t in texts.items() if have.get(i) != text_key(t)}
            if not stale:
                continue
            missing = [t for t in dict.fromkeys(stale.values()) if t not in cache]
            if missing:
                cache.update(zip(missing, self.embedder.embed(missing, cancel=cancel)))
                embedded += len(missing)
            ids = list(stale)
            self.index[kind].remove(ids)
            self.index[kind].add(ids, np.stack([cache[stale[i]] for i in ids]), source)
            self.graph.set_vector_keys(kind, {i: text_key(stale[i]) for i in ids})
        return embedded
