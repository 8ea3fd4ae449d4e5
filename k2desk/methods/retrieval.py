"""Hybrid retrieval, K²RAG equation (4): score = λ·cos(e(q), e(c)) + (1−λ)·cos(z(q), z(c)).

Candidates are the union of the dense top-``pool`` (sqlite-vec) and the sparse top-``pool``
(FTS5 BM25); every candidate then gets BOTH scores (the dense cosine from its stored vector, the
sparse TF-IDF cosine from its terms) so the mix is computed on equal footing, and the top ``k``
are returned. λ = 1 is the paper's semantic baseline, λ = 0 its keyword baseline.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from k2desk.runtime.embedder import Embedder
from k2desk.store.db import Database
from k2desk.store.documents import ChunkRow, DocumentStore
from k2desk.store.sparse import SparseIndex
from k2desk.store.vectors import VectorIndex
from k2desk.text.headers import chunk_header  # noqa: F401 (re-exported for the methods)
from k2desk.types import Source

OUTLET_POOL = 400  # candidates (each side) filtered down to one publisher's passages
# A question about one document: this share of BM25's first ten passages from it (measured on the
# three dev collections, docs/eval/retrieval-long/: 8 % of MultiHop-RAG's questions, 97 % of wiki's)
ONE_DOCUMENT_SHARE = 0.8
RRF_K = 60  # reciprocal rank fusion's constant (Cormack et al. 2009)


@dataclass
class Hit:
    chunk: ChunkRow
    score: float
    dense: float
    sparse: float

    def source(self) -> Source:
        c = self.chunk
        return c.as_source(self.score)


class Retriever:
    """Ranks a collection's passages of one ``source`` ("text" | "summary"); with ``scope`` (document
    ids), only the passages of those documents ("Ask about these documents"): their BM25 ranking
    within them and their exact dense similarities, so nothing outside can crowd them out."""

    def __init__(self, db: Database, embedder: Embedder, source: str = "text", scope: Optional[frozenset[int]] = None) -> None:
        self.db = db
        self.embedder = embedder
        self.source = source
        self.scope = scope
        self.docs = DocumentStore(db)
        self.vectors = VectorIndex(db, "chunks")
        self.sparse = SparseIndex(db, source)
        self._within: Optional[list[int]] = None

    def within(self) -> Optional[list[int]]:
        """The chunk ids of the scope's documents (None: no scope)."""
        if self.scope is None:
            return None
        if self._within is None:
            self._within = [i for d in sorted(self.scope) for i in self.docs.chunk_ids(d, self.source, "vec")]
        return self._within

    def search(self, query: str, k: int = 10, lam: float = 0.8, pool: Optional[int] = None, outlet: str = "") -> list[Hit]:
        """The top ``k`` by the λ mix; with ``outlet``, only passages of that publisher's
        documents (``meta.source``), ranked from a larger pool."""
        pool = pool or (max(50, 5 * k) if not outlet else OUTLET_POOL)
        within = self.within()
        dense: dict[int, float] = {}
        sparse_ids: list[int] = []
        qvec = None
        embedding = _embedding(self.embedder, query, alongside=lam < 1) if lam > 0 else None
        if lam < 1:
            sparse_ids = [i for i, _ in self.sparse.bm25(query, pool, within=within)]
        if embedding is not None:
            qvec = embedding()
            if within is None:
                dense = dict(self.vectors.search(qvec, pool, self.source))
            else:
                dense = dict(sorted(self.vectors.similarities(qvec, within).items(), key=lambda x: -x[1])[:pool])
        ids = list(dict.fromkeys([*dense, *sparse_ids]))
        chunks = self.docs.chunks(ids)
        if outlet:
            chunks = {i: c for i, c in chunks.items() if c.meta.get("source") == outlet}
            ids = [i for i in ids if i in chunks]
        if not ids:
            return []
        if qvec is not None:
            missing = [i for i in ids if i not in dense]
            dense.update(self.vectors.similarities(qvec, missing))
        sparse: dict[int, float] = {}
        if lam < 1:
            sparse = self.sparse.cosine(query, {i: index_text(c) for i, c in chunks.items()})
        hits = []
        for i in ids:
            if i not in chunks:
                continue
            d, s = dense.get(i, 0.0), sparse.get(i, 0.0)
            hits.append(Hit(chunks[i], lam * d + (1 - lam) * s, d, s))
        hits.sort(key=lambda h: (-h.score, h.chunk.id))
        kept = set(distinct([h.chunk.id for h in hits], chunks))
        return [h for h in hits if h.chunk.id in kept][:k]


    def evidence_search(self, query: str, k: int = 10, head: int = 4, pool: int = 100, outlet: str = "") -> list[Hit]:
        """Passages for a question, ranked by what the question asks of the collection.

        Several documents (BM25's first ten passages spread over them): FTS5's BM25 ranking, its
        first ``head`` passages as they are, then the best passage of each article not yet
        represented, then the rest. Measured on the MultiHop-RAG dev slice (docs/eval/retrieval/):
        BM25's own ranking beats the paper's sparse cosine (Hits@4 0.809 vs 0.727), MiniLM adds
        nothing to it, and one passage per new article after the head brings every evidence
        article into the top 10 for 0.52 of the questions (0.30 without) at the same Hits@4.

        One document (at least ``ONE_DOCUMENT_SHARE`` of BM25's first ten passages come from it,
        or the scope is one document): BM25 and MiniLM fused by reciprocal rank, no
        diversification; within one long page every passage shares the topic's words and the
        dense signal tells them apart (docs/eval/retrieval-long/). With ``outlet``, only passages
        of that publisher's documents (``meta.source``), BM25 ranked and diversified as before."""
        ranked = self.sparse.bm25(query, pool if not outlet else max(pool, OUTLET_POOL), within=self.within())
        chunks = self.docs.chunks([i for i, _ in ranked])
        if outlet:
            ranked = [(i, s) for i, s in ranked if i in chunks and chunks[i].meta.get("source") == outlet]
        kept = set(distinct([i for i, _ in ranked], chunks))
        ranked = [(i, s) for i, s in ranked if i in kept]
        if not outlet and one_document([chunks[i].document_id for i, _ in ranked[:10]]):
            return self._fused(query, ranked, chunks, k, pool)
        top = ranked[0][1] if ranked and ranked[0][1] > 0 else 1.0  # scores shown relative to the best: 1.0 first
        hits = [Hit(chunks[i], score / top, 0.0, score) for i, score in ranked if i in chunks]
        chosen, rest = hits[:head], []
        seen = {h.chunk.document_id for h in chosen}
        for h in hits[head:]:
            if h.chunk.document_id in seen:
                rest.append(h)
            else:
                seen.add(h.chunk.document_id)
                chosen.append(h)
        return (chosen + rest)[:k]

    def _fused(self, query: str, ranked: list[tuple[int, float]], chunks: dict[int, ChunkRow], k: int, pool: int) -> list[Hit]:
        """BM25's ranking and the dense one (top ``pool`` each) fused by reciprocal rank."""
        qvec = _embedding(self.embedder, query, alongside=True)()
        within = self.within()
        if within is None:
            dense = self.vectors.search(qvec, pool, self.source)
        else:
            dense = sorted(self.vectors.similarities(qvec, within).items(), key=lambda x: -x[1])[:pool]
        chunks = {**chunks, **self.docs.chunks([i for i, _ in dense if i not in chunks])}
        fused: dict[int, float] = {}
        for ranking in ([i for i, _ in ranked], distinct([i for i, _ in dense], chunks)):
            for rank, i in enumerate(ranking, start=1):
                fused[i] = fused.get(i, 0.0) + 1.0 / (RRF_K + rank)
        bm25, cos = dict(ranked), dict(dense)
        order = distinct(sorted((i for i in fused if i in chunks), key=lambda i: (-fused[i], i)), chunks)[:k]
        top = fused[order[0]] if order else 1.0
        return [Hit(chunks[i], fused[i] / top, cos.get(i, 0.0), bm25.get(i, 0.0)) for i in order]


def distinct(ids: list[int], chunks: dict[int, ChunkRow]) -> list[int]:
    """``ids`` (ranked) without the passages that repeat an earlier one word for word — the same
    text, outlet and date (a file kept twice: a copy in another folder, "report (1).pdf") — so the
    passages after them move up; the same story from two outlets or on two dates stays twice, as
    questions name outlets and dates (text/headers.py). Ids not in ``chunks`` are dropped."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for i in ids:
        if i not in chunks:
            continue
        chunk = chunks[i]
        key = (" ".join(chunk.text.split()), str(chunk.meta.get("source") or ""), str(chunk.meta.get("published_at") or ""))
        if key not in seen:
            seen.add(key)
            out.append(i)
    return out


def one_document(document_ids: list[int]) -> bool:
    """True when a ranking's first passages come mostly from one document (a question about it)."""
    if not document_ids:
        return False
    top = max(document_ids.count(d) for d in set(document_ids))
    return top >= ONE_DOCUMENT_SHARE * len(document_ids)


def _embedding(embedder: Embedder, query: str, alongside: bool) -> Callable[[], np.ndarray]:
    """The query's vector, computed ``alongside`` the caller's next step when there is one (the
    ONNX run and SQLite's BM25 both release the GIL: at 30k chunks, embedding and BM25 take ~30 ms
    together instead of ~40 ms one after the other)."""
    if not alongside:
        vec = embedder.embed_one(query)
        return lambda: vec
    global _pool
    with _pool_lock:
        _pool = _pool or ThreadPoolExecutor(1, thread_name_prefix="k2desk-query-embedding")
    return _pool.submit(embedder.embed_one, query).result


_pool: Optional[ThreadPoolExecutor] = None
_pool_lock = threading.Lock()


def index_text(chunk: ChunkRow) -> str:
    """The text a chunk is indexed and shown by: its document header, then its own text."""
    header = chunk_header(chunk.title, chunk.meta)
    return f"{header}\n{chunk.text}" if header else chunk.text
