"""The graph build stage (the Stage protocol of k2desk.indexing.pipeline): one per source.

``build(doc)`` chunks the document's text (source "text") or summary (source "summary") with
the "graph" profile (300/100 tokens), extracts every chunk's entities and relations with the
stage's extractor (spaCy, or one LLM call per chunk; the cancel token is checked between chunks
and during generation) and embeds the vectors the merged items will most likely
need, all outside any transaction. The writer then, in the document's transaction: clears what a
previous build of the document left, stores the graph chunks (profile 'graph'), the mentions and
the merged entities/relations, and (re-)embeds exactly the vectors whose text changed (those
precomputed are reused; merges with other documents' mentions are embedded there), and brings the
touched relations' triple hypernodes (k2desk.graph.hypernodes) in line.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from k2desk.graph.extract import Extraction, Extractor
from k2desk.graph.hypernodes import Hypernodes
from k2desk.graph.vectors import GraphVectors, entity_text, relation_text
from k2desk.progress import CancelToken, Progress
from k2desk.runtime.embedder import Embedder
from k2desk.store.db import Database
from k2desk.store.documents import DocumentRow, DocumentStore
from k2desk.store.graph import GraphStore
from k2desk.text.chunking import chunk_text
from k2desk.text.headers import chunk_header
from k2desk.text.names import merge_descriptions, merge_keywords, normalize_name
from k2desk.types import LLMUsage

log = logging.getLogger(__name__)


@dataclass
class GraphBuildStats:
    """Totals over every document this stage built (for reports and benchmarks)."""

    documents: int = 0
    chunks: int = 0
    unparsed: int = 0  # chunks whose output did not parse (nothing extracted)
    salvaged: int = 0  # chunks whose output was cut by max_tokens (complete items kept)
    entities: int = 0  # extracted mentions
    relations: int = 0
    llm_seconds: float = 0.0  # extraction time (LLM or spaCy)
    write_seconds: float = 0.0
    embedded: int = 0
    usage: LLMUsage = field(default_factory=LLMUsage)

    @property
    def seconds_per_chunk(self) -> float:
        return self.llm_seconds / self.chunks if self.chunks else 0.0


class GraphStage:
    def __init__(self, db: Database, embedder: Callable[[], Embedder], extractor: Callable[[], Extractor],
                 source: str = "text") -> None:
        if source not in ("text", "summary"):
            raise ValueError(f"unknown graph source {source!r}")
        self.db = db
        self._embedder = embedder
        self._extractor = extractor
        self.source = source
        self.name = f"graph_{source}"
        self.label = "graph" if source == "text" else "graph of summaries"
        self.docs = DocumentStore(db)
        self.graph = GraphStore(db)
        self.stats = GraphBuildStats()

    def _input(self, doc: DocumentRow) -> str:
        return self.docs.source_text(doc.id, self.source)

    def build(self, doc: DocumentRow, cancel: CancelToken, usage: LLMUsage) -> Callable[[], int]:
        embedder = self._embedder()
        chunks = chunk_text(self._input(doc), embedder, "graph")
        header = chunk_header(doc.title, doc.meta)
        spent = LLMUsage()
        extractions: list[Extraction] = (self._extractor().extract([c.text for c in chunks], header, usage=spent,
                                                                   cancel=cancel) if chunks else [])
        self.stats.usage.add(spent)
        usage.add(spent)
        for ex in extractions:
            self.stats.llm_seconds += ex.seconds
            self.stats.unparsed += not ex.parsed
            self.stats.salvaged += ex.salvaged
            self.stats.entities += len(ex.entities)
            self.stats.relations += len(ex.relations)
        self.stats.chunks += len(chunks)
        self.stats.documents += 1
        cache = self._precompute_vectors(embedder, extractions, cancel)
        log.info("graph %s: %s, %d chunks, %d entities, %d relations", self.source, doc.key, len(chunks),
                 sum(len(e.entities) for e in extractions), sum(len(e.relations) for e in extractions))

        def write() -> int:
            t0 = time.perf_counter()
            self.clear(doc.id)
            ids = self.docs.add_chunks(doc.id, self.source, "graph", chunks)
            ents, rels = self.store(doc.id, ids, extractions)
            self.stats.embedded += GraphVectors(self.db, embedder).refresh(ents, rels, self.source, cache)
            Hypernodes(self.db, embedder).sync(self.source, rels)
            self.stats.write_seconds += time.perf_counter() - t0
            return len(ids)

        return write

    def finish(self, progress: Progress, cancel: CancelToken) -> None:
        """Give every relation its triple hypernode: a collection whose graph was built before
        hypernodes existed gets them here, at its next index run, never while a question is
        asked (Chain of Explorations only reads them)."""
        missing = Hypernodes(self.db).missing(self.source)  # one query; the embedder loads only when needed
        if not missing:
            return
        progress("hypernodes", 0, missing)
        with self.db.transaction():
            Hypernodes(self.db, self._embedder()).sync(self.source, cancel=cancel)
        progress("hypernodes", missing, missing)

    def store(self, doc_id: int, chunk_ids: list[int], extractions: list[Extraction]) -> tuple[set[int], set[int]]:
        """Write the mentions of one document's chunks; returns the entity and relation ids touched."""
        ents: set[int] = set()
        rels: set[int] = set()
        for chunk_id, ex in zip(chunk_ids, extractions):
            for e in ex.entities:
                eid = self.graph.upsert_entity(self.source, e.name, e.name, e.type, e.description, chunk_id, doc_id, refresh=False)
                if eid is not None:
                    ents.add(eid)
            for r in ex.relations:
                rid = self.graph.upsert_relation(self.source, r.source, r.target, r.description, r.keywords, r.strength,
                                                 chunk_id, doc_id, refresh=False)
                if rid is not None:
                    rels.add(rid)
                    rel = self.graph.relation(rid)
                    ents.update((rel.src_id, rel.dst_id))
        self.graph.refresh(ents, rels)
        return ents, rels

    def _precompute_vectors(self, embedder: Embedder, extractions: list[Extraction], cancel: CancelToken) -> dict[str, np.ndarray]:
        """Embed the vector texts the document's items get if they are new to the graph (the
        common case), outside the transaction; the writer embeds only what differs."""
        ent_descs: dict[str, tuple[str, list[str]]] = {}
        rel_parts: dict[frozenset, tuple[str, str, list[str], list[str]]] = {}
        for ex in extractions:
            for e in ex.entities:
                ent_descs.setdefault(normalize_name(e.name), (e.name, []))[1].append(e.description)
            for r in ex.relations:
                key = frozenset((normalize_name(r.source), normalize_name(r.target)))
                item = rel_parts.setdefault(key, (r.source, r.target, [], []))
                item[2].append(r.description)
                item[3].append(r.keywords)
        texts = [entity_text(name, merge_descriptions(d)) for name, d in ent_descs.values()]
        texts += [relation_text(a, b, merge_keywords(k), merge_descriptions(d)) for a, b, d, k in rel_parts.values()]
        texts = list(dict.fromkeys(texts))
        return dict(zip(texts, embedder.embed(texts, cancel=cancel))) if texts else {}

    def clear(self, doc_id: int) -> None:
        """Remove the document's contribution to this source's graph (merged items recomputed,
        orphans deleted, vectors of changed items re-embedded) and its graph chunks."""
        change = self.graph.remove_document(doc_id, self.source)
        if change.entities or change.relations:
            GraphVectors(self.db, self._embedder()).refresh(change.entities, change.relations, self.source)
        if change.relations or change.removed_relations:
            Hypernodes(self.db, self._embedder()).sync(self.source, change.relations)
        self.docs.delete_chunks(self.docs.chunk_ids(doc_id, self.source, "graph"))

