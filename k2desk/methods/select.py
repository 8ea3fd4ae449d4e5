"""Sentence-level evidence: from the ranked passages, the sentences that bear on the question,
grouped under their article's "title | outlet | date" line, within a token budget.

A 256-token passage holds one or two sentences a question needs; the rest costs the reader
time (prompt evaluation is ~90 % of an answer on CPU) and attention (a small model drifts to
whatever it read last). Each sentence is scored by the inverse document frequency of the
question's terms it contains (the sparse index's own terms and statistics). The best sentence of
every passage is taken first (stop words score nothing; a sentence without a question term
scores half its best neighbour's, since the answer often follows the sentence that matches), in
the passages' rank order (so every article the ranking brought is represented), then the best
remaining sentences by score while the budget lasts.
Measured on the MultiHop-RAG dev slice in docs/eval/retrieval/ (gold facts kept in the context
at the same budget).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from k2desk.methods.retrieval import Hit
from k2desk.runtime.summarizer import STOPWORDS, split_sentences
from k2desk.store.sparse import SparseIndex
from k2desk.text.headers import chunk_header

GAP = " … "
NEIGHBOUR = 0.5  # a sentence without a question term, next to one that has some: this share of its score


@dataclass
class Sentence:
    hit: int  # rank of its passage
    seq: int  # position in its passage
    text: str
    score: float


def select_evidence(question: str, hits: Sequence[Hit], sparse: SparseIndex, count_tokens: Callable[[str], int],
                    budget: int) -> list[str]:
    """Blocks (one per article, best article first) of the question's best sentences."""
    return within(hits, ranked(scored(question, hits, sparse)), count_tokens, budget)


def scored(question: str, hits: Sequence[Hit], sparse: SparseIndex) -> list[list[Sentence]]:
    """Each passage's sentences (``hits``' order), scored by the weight of the question's terms
    they hold, or a share of their best neighbour's."""
    q_terms = set(sparse.terms_of(question)) - set(sparse.terms_of(" ".join(STOPWORDS)))
    idf = sparse.idf(q_terms) if q_terms else {}
    per_hit: list[list[Sentence]] = []
    for rank, hit in enumerate(hits):
        texts = split_sentences(hit.chunk.text)
        own = [sum(idf[t] for t in q_terms & set(sparse.terms_of(text))) for text in texts]
        sentences = []
        for seq, text in enumerate(texts):
            near = max(own[max(seq - 1, 0): seq + 2])  # the answer often sits next to the matching sentence
            sentences.append(Sentence(rank, seq, text, own[seq] or NEIGHBOUR * near))
        per_hit.append(sentences)
    return per_hit


def ranked(per_hit: Sequence[Sequence[Sentence]]) -> list[Sentence]:
    """Every passage's best sentence in the passages' order, then the rest by score."""
    order = [max(s, key=lambda x: (x.score, -x.seq)) for s in per_hit if s]
    rest = sorted((x for s in per_hit for x in s if x not in order), key=lambda x: (-x.score, x.hit, x.seq))
    return [*order, *rest]


def within(hits: Sequence[Hit], ranked: Sequence[Sentence], count_tokens: Callable[[str], int], budget: int) -> list[str]:
    """The blocks of ``ranked``'s sentences taken in order while they fit ``budget`` tokens (a
    document's header line counted once); no sentence scoring 0 after the first."""
    headers = [chunk_header(h.chunk.title, h.chunk.meta) for h in hits]
    chosen: list[Sentence] = []
    used = 0
    seen_docs: set[int] = set()
    for sentence in ranked:
        if sentence.score <= 0 and chosen:
            continue
        doc = hits[sentence.hit].chunk.document_id
        cost = count_tokens(sentence.text) + 1 + (count_tokens(headers[sentence.hit]) + 2 if doc not in seen_docs else 0)
        if used + cost > budget:
            continue
        chosen.append(sentence)
        seen_docs.add(doc)
        used += cost
    return _blocks(hits, headers, chosen)


def _blocks(hits: Sequence[Hit], headers: list[str], chosen: list[Sentence]) -> list[str]:
    by_doc: dict[int, list[Sentence]] = {}
    first: dict[int, int] = {}
    for s in chosen:
        doc = hits[s.hit].chunk.document_id
        by_doc.setdefault(doc, []).append(s)
        first[doc] = min(first.get(doc, s.hit), s.hit)
    blocks = []
    for doc in sorted(by_doc, key=lambda d: first[d]):
        items = sorted(by_doc[doc], key=lambda s: (hits[s.hit].chunk.start_char, s.seq))
        parts: list[str] = []
        prev = None
        for s in items:
            key = (hits[s.hit].chunk.id, s.seq)
            if parts and prev is not None and not (key[0] == prev[0] and key[1] == prev[1] + 1):
                parts.append(GAP.strip())
            parts.append(s.text)
            prev = key
        header = headers[first[doc]]
        body = " ".join(parts)
        blocks.append(f"{header}\n{body}" if header else body)
    return blocks
