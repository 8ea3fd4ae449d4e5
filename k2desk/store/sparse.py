"""The sparse store: SQLite FTS5 for candidates, the paper's sparse cosine for scores.

K²RAG scores hybrid retrieval as λ·cos(e(q), e(c)) + (1−λ)·cos(z(q), z(c)) (equation (4)), with
z a sparse term vector. FTS5's ``bm25()`` is negative and unbounded and cannot be mixed with a
cosine, so we use FTS5 only to find candidates (BM25 top-N over the query's terms) and score them
with a real cosine of TF-IDF vectors:

    w(t, x) = (1 + ln tf(t, x)) · idf(t),   idf(t) = ln((1 + N) / (1 + df(t))) + 1

N = chunks in the index and df(t) = chunks containing t, both read from an ``fts5vocab`` table,
so the statistics follow every insert and delete with no rebuild. Terms come from the very
tokenizer FTS5 indexes with (porter stemming over unicode61), called through apsw, so query
and chunk vectors live in the index's own term space. Scores are in [0, 1].
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Iterable, Sequence

import apsw

from k2desk.store.db import Database

SOURCES = ("text", "summary")
TOKENIZER = ("porter", ["unicode61", "remove_diacritics", "2"])


class SparseIndex:
    def __init__(self, db: Database, source: str = "text") -> None:
        if source not in SOURCES:
            raise ValueError(f"unknown sparse source {source!r}")
        self.db = db
        self.table = f"sparse_{source}"
        self.vocab = f"sparse_{source}_vocab"
        self._tokenize = db.conn.fts5_tokenizer(*TOKENIZER)

    # -- writes --------------------------------------------------------------------------
    def add(self, ids: Sequence[int], texts: Sequence[str]) -> None:
        self.db.executemany(f"INSERT INTO {self.table}(rowid, text) VALUES (?, ?)", [(int(i), t) for i, t in zip(ids, texts)])

    def remove(self, ids: Iterable[int]) -> None:
        self.db.executemany(f"DELETE FROM {self.table} WHERE rowid = ?", [(int(i),) for i in ids])

    # -- reads ---------------------------------------------------------------------------
    def terms(self, text: str) -> list[str]:
        """The index's terms for ``text`` (lowercased, diacritics removed, porter-stemmed)."""
        return list(self._tokenize(text.encode("utf-8"), apsw.FTS5_TOKENIZE_DOCUMENT, None, include_offsets=False, include_colocated=False))  # type: ignore[arg-type]

    def terms_of(self, text: str) -> list[str]:
        """The index's terms for ``text`` as plain strings (colocated forms: the first)."""
        return self._flat(self.terms(text))

    def idf(self, terms: set[str]) -> dict[str, float]:
        """Smoothed inverse document frequency of each term over this index's chunks."""
        return self._idf(terms)

    def size(self) -> int:
        row = self.db.one(f"SELECT count(*) FROM {self.table}")
        return int(row[0]) if row else 0

    def candidates(self, query: str, limit: int = 100) -> list[int]:
        """Chunk ids matching any query term, best BM25 first."""
        return [i for i, _ in self.bm25(query, limit)]

    def bm25(self, query: str, limit: int = 100) -> list[tuple[int, float]]:
        """(chunk id, BM25 score) of the chunks matching any query term, best first. FTS5's own
        ranking (k1 1.2, b 0.75); its ``rank`` is the negated score, so the score is positive."""
        terms = sorted(set(self._flat(self.terms(query))))
        if not terms:
            return []
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        rows = self.db.all(f"SELECT rowid, rank FROM {self.table} WHERE {self.table} MATCH ? ORDER BY rank LIMIT ?",
                           (match, int(limit)))
        return [(int(i), -float(r)) for i, r in rows]

    def cosine(self, query: str, texts: dict[int, str]) -> dict[int, float]:
        """Sparse cosine of the query's TF-IDF vector with each chunk's (chunk id → text)."""
        q_tf = Counter(self._flat(self.terms(query)))
        if not q_tf or not texts:
            return {i: 0.0 for i in texts}
        c_tf = {i: Counter(self._flat(self.terms(t))) for i, t in texts.items()}
        vocab = set(q_tf).union(*c_tf.values())
        idf = self._idf(vocab)
        q_vec = {t: (1 + math.log(n)) * idf[t] for t, n in q_tf.items()}
        q_norm = math.sqrt(sum(w * w for w in q_vec.values()))
        out = {}
        for i, tf in c_tf.items():
            c_vec = {t: (1 + math.log(n)) * idf[t] for t, n in tf.items()}
            c_norm = math.sqrt(sum(w * w for w in c_vec.values()))
            dot = sum(w * c_vec.get(t, 0.0) for t, w in q_vec.items())
            out[i] = dot / (q_norm * c_norm) if q_norm and c_norm else 0.0
        return out

    def _idf(self, terms: set[str]) -> dict[str, float]:
        n = self.size()
        df: dict[str, int] = {}
        items = list(terms)
        for start in range(0, len(items), 500):
            batch = items[start:start + 500]
            marks = ",".join("?" * len(batch))
            df.update({t: int(d) for t, d in self.db.all(f"SELECT term, doc FROM {self.vocab} WHERE term IN ({marks})", batch)})
        return {t: math.log((1 + n) / (1 + df.get(t, 0))) + 1.0 for t in terms}

    @staticmethod
    def _flat(tokens: list) -> list[str]:
        # apsw returns a str per token, or a tuple for colocated tokens; keep the first form.
        return [t if isinstance(t, str) else t[0] for t in tokens]
