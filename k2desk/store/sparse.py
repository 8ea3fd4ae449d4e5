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

Speed as the collection grows (benchmarks/bench_scale.py): the statistics are read once per
process and index state (the whole vocabulary in one scan, kept until a write gives the index a
new generation token in ``meta``), not per term per query; and the BM25 candidates come from the
query's rarest terms, as many as fit ``POSTING_BUDGET`` postings together. FTS5 scores every row
that matches any term, and a question's common words ("the", "company") match most of a large
collection: 128,000 postings per dev question at 10,000 chunks, ~0.6 µs each. Those words weigh
least in BM25; where the budget is not reached (every term is kept) the ranking is FTS5's own.

On a PostgreSQL server the same terms (this tokenizer's, through an in-memory SQLite connection)
are stored as a ``tsvector`` with a GIN index and as postings (term, chunk, count, chunk length);
the statistics come from the postings and the candidates are ranked by FTS5's own BM25 computed
from them (``k2desk.store.dialect``); the TF-IDF cosine is the same on both.
"""

from __future__ import annotations

import math
import threading
import uuid
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

import apsw
import numpy as np

from k2desk.store.db import Database
from k2desk.store.dialect import SQLITE

SOURCES = ("text", "summary")
TOKENIZER = ("porter", ["unicode61", "remove_diacritics", "2"])
POSTING_BUDGET = 25_000  # postings FTS5 may score per BM25 query (~15 ms on 2 cores)
KEEP_VOCABULARIES = 4  # in-process copies of index statistics kept


@dataclass
class Statistics:
    """N and every term's document frequency and idf, as of ``generation``."""

    generation: Optional[str] = None
    n: int = 0
    df: dict[str, int] = field(default_factory=dict)
    idfs: dict[str, float] = field(default_factory=dict)  # every indexed term's
    avgdl: float = 0.0  # the mean chunk length in terms (a server's BM25; FTS5 keeps its own)

    @classmethod
    def of(cls, generation: str, n: int, df: dict[str, int], terms_in_all: int = 0) -> "Statistics":
        terms = list(df)
        values = np.log((1 + n) / (1 + np.fromiter(df.values(), dtype=np.float64, count=len(df)))) + 1.0
        return cls(generation, n, df, dict(zip(terms, values.tolist())), terms_in_all / n if n else 0.0)

    def idf(self, term: str) -> float:
        """ln((1 + N) / (1 + df)) + 1 (df 0 for a term the index does not hold)."""
        value = self.idfs.get(term)
        return value if value is not None else self.unseen

    @property
    def unseen(self) -> float:
        return math.log(1 + self.n) + 1.0


_DAMPED = [0.0] + [1 + math.log(n) for n in range(1, 256)]  # 1 + ln tf


def bm25_idf(n: int, df: int) -> float:
    """FTS5's BM25 idf: ln((N - df + 0.5) / (df + 0.5)), 1e-6 where that is not positive."""
    value = math.log((n - df + 0.5) / (df + 0.5)) if n else 0.0
    return value if value > 0 else 1e-6


class SparseIndex:
    def __init__(self, db: Database, source: str = "text") -> None:
        if source not in SOURCES:
            raise ValueError(f"unknown sparse source {source!r}")
        self.db = db
        self.table = f"sparse_{source}"
        self.vocab = f"sparse_{source}_vocab"
        # the tokenizer of the collection's FTS5 tables, or (a server's collection) the same one
        # from an in-memory SQLite connection
        self._tokenizer_conn = db.conn if db.dialect is SQLITE else apsw.Connection(":memory:")
        self._tokenize = self._tokenizer_conn.fts5_tokenizer(*TOKENIZER)

    # -- writes --------------------------------------------------------------------------
    def add(self, ids: Sequence[int], texts: Sequence[str]) -> None:
        self._insert(ids, texts)
        self._changed()

    def _insert(self, ids: Sequence[int], texts: Sequence[str]) -> None:
        dialect = self.db.dialect
        if dialect.sparse_postings is None:
            self.db.executemany(dialect.sparse_insert.format(table=self.table),
                                [(int(i), dialect.sparse_row(t, self.terms_of)) for i, t in zip(ids, texts)])
            return
        rows, postings = [], []
        for i, text in zip(ids, texts):
            terms = self.terms_of(text)
            rows.append((int(i), dialect.sparse_row(text, lambda _text, terms=terms: terms)))
            counts = Counter(t for t in terms if dialect.sparse_term_fits(t))
            dl = sum(counts.values())
            postings += [(term, int(i), n, dl) for term, n in counts.items()]
        self.db.executemany(dialect.sparse_insert.format(table=self.table), rows)
        self.db.executemany(dialect.sparse_postings.format(table=self.table), postings)

    def remove(self, ids: Iterable[int]) -> None:
        ids = [(int(i),) for i in ids]
        if ids:
            self.db.executemany(f"DELETE FROM {self.table} WHERE {self.db.dialect.sparse_id} = ?", ids)
            self._changed()

    def _changed(self) -> None:
        self.db.set_meta(f"generation:{self.table}", uuid.uuid4().hex)

    def statistics(self) -> Statistics:
        """N and the document frequencies, read once per generation of the index (inside a write
        transaction, whose changes may roll back, read afresh and not kept)."""
        generation = self.db.get_meta(f"generation:{self.table}") or ""
        key = (self.db.location, self.db.uid, self.table)
        shared = not self.db.in_transaction
        with _lock:
            stats = _statistics.get(key)
            if shared and stats is not None and stats.generation == generation:
                _statistics.move_to_end(key)
                return stats
        vocabulary = self.db.all(self.db.dialect.sparse_vocabulary.format(table=self.table))
        stats = Statistics.of(generation, self.size(), {row[0]: int(row[1]) for row in vocabulary},
                              sum(int(row[2]) for row in vocabulary) if vocabulary and len(vocabulary[0]) > 2 else 0)
        if shared:
            with _lock:
                _statistics[key] = stats
                while len(_statistics) > KEEP_VOCABULARIES:
                    _statistics.popitem(last=False)
        return stats

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

    def bm25(self, query: str, limit: int = 100, budget: Optional[int] = POSTING_BUDGET,
             within: Optional[Sequence[int]] = None) -> list[tuple[int, float]]:
        """(chunk id, BM25 score) of the chunks matching any of the query's terms that fit the
        posting ``budget`` (the rarest first; None: every term), best first; with ``within``,
        only those chunks. FTS5's own ranking (k1 1.2, b 0.75); its ``rank`` is the negated
        score, so the score is positive. (On a server: the same BM25 from the postings, the same terms
        looked up as FTS5 looks them up.)"""
        terms = self.match_terms(query, budget)
        if not terms or (within is not None and not within):
            return []
        dialect, idfs, avgdl = self.db.dialect, [], 0.0
        if not dialect.stems_match_terms:  # the forms FTS5 would look up, and FTS5's BM25 idf of each
            stats = self.statistics()
            terms = list(dict.fromkeys(self._looked_up(t) for t in terms))
            idfs = [bm25_idf(stats.n, stats.df.get(t, 0)) for t in terms]
            avgdl = stats.avgdl
        rows = self.db.all(*dialect.sparse_match(self.table, terms, idfs, limit, within, avgdl))
        return [(int(i), -float(r)) for i, r in rows]

    def _looked_up(self, term: str) -> str:
        """The form FTS5 looks a MATCH phrase up by: the term's own stem."""
        return (self._flat(self.terms(term)) or [term])[0]

    def match_terms(self, query: str, budget: Optional[int] = POSTING_BUDGET) -> list[str]:
        """The query's terms for the MATCH expression, rarest first, while their postings fit
        ``budget`` (the rarest always; None: all of them).

        The phrases are the query's stems, and FTS5 stems a phrase again: "accused" -> "accus" ->
        "accu" matches nothing, "portrayal" -> "portray" -> "portrai" matches "portrayed". Passing
        the words instead (stemmed once, as the documents) was measured on the dev slice: evidence
        Hits@10 0.918 -> 0.898, temporal questions 0.912 -> 0.853; the ranking stays the measured
        one, and a term's postings are counted for the form FTS5 looks up."""
        df = self.statistics().df
        looked_up = {t: self._looked_up(t) for t in set(self._flat(self.terms(query)))}
        postings = {t: df.get(form, 0) for t, form in looked_up.items()}
        kept: list[str] = []
        total = 0
        for term in sorted((t for t in postings if postings[t]), key=lambda t: (postings[t], t)):
            if kept and budget is not None and total + postings[term] > budget:
                break
            kept.append(term)
            total += postings[term]
        return kept

    def cosine(self, query: str, texts: dict[int, str]) -> dict[int, float]:
        """Sparse cosine of the query's TF-IDF vector with each chunk's (chunk id → text)."""
        q_tf = Counter(self._flat(self.terms(query)))
        if not q_tf or not texts:
            return {i: 0.0 for i in texts}
        stats = self.statistics()
        idf, unseen, damped = stats.idfs.get, stats.unseen, _DAMPED
        q_vec = {t: (damped[n] if n < 256 else 1 + math.log(n)) * idf(t, unseen) for t, n in q_tf.items()}
        q_norm = math.sqrt(sum(w * w for w in q_vec.values()))
        out = {}
        for i, text in texts.items():  # the hot loop of keyword and hybrid search: plain dict lookups
            norm2 = dot = 0.0
            for t, n in Counter(self.terms(text)).items():  # porter/unicode61 never yields colocated tokens
                w = (damped[n] if n < 256 else 1 + math.log(n)) * idf(t, unseen)
                norm2 += w * w
                if t in q_vec:
                    dot += w * q_vec[t]
            out[i] = dot / (q_norm * math.sqrt(norm2)) if q_norm and norm2 else 0.0
        return out

    def _idf(self, terms: set[str]) -> dict[str, float]:
        idf = self.statistics().idf
        return {t: idf(t) for t in terms}

    @staticmethod
    def _flat(tokens: list) -> list[str]:
        # apsw returns a str per token, or a tuple for colocated tokens; keep the first form.
        return [t if isinstance(t, str) else t[0] for t in tokens]


_lock = threading.Lock()
_statistics: "OrderedDict[tuple[str, str, str], Statistics]" = OrderedDict()
