"""Knowledge-graph search: question -> matched entities and relations, their neighbourhood, the
chunks that mention them, and a readable "KG results" block (K²RAG step (A), the `kg` baseline,
and the entry point for LightRAG / Chain-of-Explorations / Mapping-the-Mind).

No LLM is involved. Entities are matched three ways, and keep their best score:
* by name: every 1..6-word span of the question is looked up as a normalized name (score 1.0;
  0.75 for a single word written in lowercase, e.g. "company"); a capitalized phrase of the
  question also finds entities whose name contains it (0.9);
* by vector: the question and each keyword are embedded once (one batch) and compared with the
  entity vectors (cosine, kept when >= ``min_similarity`` for the question and
  ``min_keyword_similarity`` for a keyword: short texts' vectors are noisy).
Relations are candidates when their vector is close to the question or when they touch a matched
entity; their score mixes similarity (0.5), how strongly their endpoints matched (0.3) and the
share of the question's content words in their keywords and description (0.2). Neighbours within
``hops`` of the matched entities are ranked by similarity (0.8) and word overlap (0.2). The text block
holds the best items that fit ``budget_tokens``; the sources are the chunks that mention the
items of the block, scored by the items they mention.
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

from k2desk.runtime.embedder import Embedder
from k2desk.store.db import Database
from k2desk.store.documents import DocumentStore
from k2desk.store.graph import Entity, GraphStore, Relation
from k2desk.store.vectors import VectorIndex
from k2desk.text.names import normalize_name, words_within
from k2desk.types import Source

STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers him
his how i if in into is it its itself just me more most my no nor not now of off on once only or other our ours out
over own same she should so some such than that the their theirs them then there these they this those through to
too under until up very was we were what when where which while who whom whose why will with would you your yours
tell according article report reported reports say said says did does many much one ones way whether between
""".split())
CONNECTORS = frozenset({"of", "the", "de", "da", "von", "van", "&", "for"})
MAX_NGRAM = 6
DESCRIPTION_CHARS = 400  # per entity line of the text block

_TOKEN = re.compile(r"[\w][\w'’&.-]*\w|\w")
_QUOTED = re.compile(r"[\"“”]([^\"“”]{2,80})[\"“”]")


@dataclass
class EntityHit:
    entity: Entity
    score: float
    match: str  # "name", "partial", "vector" or "neighbour"

    def to_json(self) -> dict:
        e = self.entity
        return {"id": e.id, "name": e.display, "type": e.type, "score": round(self.score, 4), "match": self.match}


@dataclass
class RelationHit:
    relation: Relation
    score: float
    match: str  # "vector", "edge" (touches a matched entity) or "neighbour"

    def to_json(self) -> dict:
        r = self.relation
        return {"id": r.id, "source": r.src, "target": r.dst, "keywords": r.keywords, "score": round(self.score, 4), "match": self.match}


@dataclass
class KGResult:
    question: str
    source: str
    keywords: list[str] = field(default_factory=list)
    entities: list[EntityHit] = field(default_factory=list)  # matched (name/partial/vector), best first
    relations: list[RelationHit] = field(default_factory=list)
    neighbours: list[EntityHit] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)  # provenance chunks, best first
    text: str = ""  # the "KG results" block (what fits the budget)

    @property
    def empty(self) -> bool:
        return not self.text

    def to_trace(self) -> dict:
        return {
            "keywords": self.keywords,
            "entities": [h.to_json() for h in self.entities],
            "relations": [h.to_json() for h in self.relations],
            "neighbours": [h.to_json() for h in self.neighbours],
            "kg_results": self.text,
        }


def question_keywords(question: str, limit: int = 8) -> list[str]:
    """Noun-ish keywords of a question, without an LLM: quoted phrases, capitalized phrases
    ("Harwick Point", "Sam Bankman-Fried"), runs of content words, then single content words."""
    phrases = [m.strip() for m in _QUOTED.findall(question)]
    tokens = _TOKEN.findall(question)
    proper: list[str] = []
    in_proper: set[int] = set()
    run: list[int] = []
    content_runs: list[list[int]] = [[]]
    for i, tok in enumerate(tokens):
        low = tok.lower()
        if (tok[0].isupper() or tok[0].isdigit()) and low not in STOPWORDS:
            run.append(i)
        elif run and low in CONNECTORS and i + 1 < len(tokens) and tokens[i + 1][0].isupper():
            run.append(i)
        else:
            if run:
                proper.append(" ".join(tokens[j] for j in run))
                in_proper.update(run)
            run = []
        if low in STOPWORDS or len(low) < 3 and not low.isdigit():
            if content_runs[-1]:
                content_runs.append([])
        else:
            content_runs[-1].append(i)
    if run:
        proper.append(" ".join(tokens[j] for j in run))
        in_proper.update(run)
    multi = [" ".join(tokens[j] for j in r) for r in content_runs if len(r) > 1 and not set(r) <= in_proper]
    singles = [tokens[j] for r in content_runs for j in r if j not in in_proper]
    out: list[str] = []
    seen: set[str] = set()
    for kw in phrases + proper + multi + singles:
        key = normalize_name(kw)
        if key and key not in seen:
            seen.add(key)
            out.append(kw.strip(".-'’"))
    return out[:limit]


def stems(text: str) -> set[str]:
    """Crude stems of the content words of ``text`` ("keeps", "keeper" -> "keep")."""
    words = set(normalize_name(text).split())
    words.difference_update(STOPWORDS)
    try:  # every word's stem known (the usual case): one C-level pass
        return set(map(_STEMS.__getitem__, words))
    except KeyError:
        pass
    out = set()
    for word in words:
        stem = _STEMS.get(word)
        if stem is None:
            if len(_STEMS) >= STEM_CACHE:
                _STEMS.clear()
            stem = _STEMS[word] = _stem(word)
        out.add(stem)
    return out


def _stem(word: str) -> str:
    for suffix in ("ing", "ers", "er", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


STEM_CACHE = 100_000  # words whose stem is kept (a graph search stems thousands of descriptions)
_STEMS: dict[str, str] = {}


def _lexical(question_stems: set[str], text: str) -> float:
    """Share of the question's content words found in ``text`` (0..1)."""
    return len(question_stems & stems(text)) / len(question_stems) if question_stems else 0.0


def _lexical_bound(question_stems: set[str], text: str) -> float:
    """Never below ``_lexical``, at a fifth of its cost: the share of the question's stems found
    anywhere in ``text`` (a stem is a prefix of one of its words)."""
    if not question_stems:
        return 0.0
    within = words_within(text)
    return sum(stem in within for stem in question_stems) / len(question_stems)


def top_k(bounds: dict[int, float], score: Callable[[int], float], k: int,
          tighter: Optional[Callable[[int], float]] = None) -> list[tuple[int, float]]:
    """The ``k`` best ``(id, score(id))``, best first (ties: lower id first), where ``bounds[id]``
    is never below ``score(id)``: ids are scored in order of their bound, and only while one could
    still enter the best ``k`` (a hub's thousands of neighbours and relations are bounded by their
    similarity; the word overlap is computed for the few that can win). ``tighter(id)``, between
    the two and cheaper than ``score``, skips an id that cannot enter."""
    best: list[tuple[float, int]] = []  # the k best so far as (score, -id): the worst at best[0]
    for i in sorted(bounds, key=lambda i: (-bounds[i], i)):
        if len(best) == k and bounds[i] < best[0][0]:
            break
        if tighter is not None and len(best) == k and tighter(i) < best[0][0]:
            continue
        item = (score(i), -i)
        if len(best) < k:
            heapq.heappush(best, item)
        elif item > best[0]:
            heapq.heapreplace(best, item)
    return [(-neg, s) for s, neg in sorted(best, reverse=True)]


def _ngrams(question: str) -> list[str]:
    words = normalize_name(question).split()
    grams = []
    for n in range(1, MAX_NGRAM + 1):
        for i in range(len(words) - n + 1):
            gram = words[i:i + n]
            if not all(w in STOPWORDS for w in gram):
                grams.append(" ".join(gram))
    return grams


class KGSearcher:
    def __init__(self, db: Database, embedder: Embedder) -> None:
        self.db = db
        self.embedder = embedder
        self.graph = GraphStore(db)
        self.docs = DocumentStore(db)
        self.entity_vectors = VectorIndex(db, "entities")
        self.relation_vectors = VectorIndex(db, "relations")

    def search(self, question: str, source: str = "text", k_entities: int = 10, k_relations: int = 10,
               k_neighbours: int = 10, hops: int = 1, budget_tokens: int = 1200, k_sources: int = 10,
               min_similarity: float = 0.3, min_keyword_similarity: float = 0.5,
               count_tokens: Optional[Callable[[str], int]] = None) -> KGResult:
        result = KGResult(question, source, keywords=question_keywords(question))
        vectors = self.embedder.embed([question, *result.keywords])
        qvec = vectors[0]

        # -- entities: names, partial names, vectors ------------------------------------------
        scores: dict[int, tuple[float, str]] = {}

        def offer(eid: int, score: float, how: str) -> None:
            if eid not in scores or score > scores[eid][0]:
                scores[eid] = (score, how)

        proper = {normalize_name(t) for t in _TOKEN.findall(question) if t[0].isupper() or t[0].isdigit()}
        for e in self.graph.find(source, _ngrams(question)):
            # a lone lowercase word ("company", "report") names a generic entity: less weight
            offer(e.id, 1.0 if " " in e.name or e.name in proper else 0.75, "name")
        for kw in result.keywords:
            if kw[:1].isupper() or kw[:1].isdigit():
                for e in self.graph.containing(source, kw, limit=5):
                    offer(e.id, 0.9, "partial")
        ks = [k_entities] + [5] * (len(vectors) - 1)
        for i, hits in enumerate(self.entity_vectors.search_many(list(vectors), ks, source)):
            floor = min_similarity if i == 0 else min_keyword_similarity  # a lone word's vector is noisy
            for eid, sim in hits:
                if sim >= floor:
                    offer(eid, sim, "vector")
        best = sorted(scores.items(), key=lambda kv: (-kv[1][0], kv[0]))[:k_entities]
        matched = self.graph.entities(eid for eid, _ in best)
        result.entities = [EntityHit(matched[eid], s, how) for eid, (s, how) in best if eid in matched]
        escore = {h.entity.id: h.score for h in result.entities}

        # -- neighbourhood ---------------------------------------------------------------------
        qstems = stems(question)
        near = {i: d for i, d in self.graph.neighbours(escore, hops).items() if i not in escore}
        sims = self.entity_vectors.similarities(qvec, list(near))
        around = self.graph.entities(near)

        def neighbour_score(i: int, lexical: float) -> float:
            return (0.8 * sims.get(i, 0.0) + 0.2 * lexical) * 0.8 ** (near[i] - 1)

        ranked = top_k({i: neighbour_score(i, 1.0) for i in around},
                       lambda i: neighbour_score(i, _lexical(qstems, around[i].description)), k_neighbours,
                       lambda i: neighbour_score(i, _lexical_bound(qstems, around[i].description)))
        result.neighbours = [EntityHit(around[i], score, "neighbour") for i, score in ranked]
        nscore = {h.entity.id: h.score for h in result.neighbours}

        # -- relations -------------------------------------------------------------------------
        rel_sims = {rid: sim for rid, sim in self.relation_vectors.search(qvec, k_relations, source) if sim >= min_similarity}
        candidates = {r.id: r for r in self.graph.relations_of(escore)}
        if nscore:
            for r in self.graph.relations_of([*escore, *nscore], both_ends=True):
                candidates[r.id] = r
        candidates.update(self.graph.relations([i for i in rel_sims if i not in candidates]))
        rel_sims.update(self.relation_vectors.similarities(qvec, [i for i in candidates if i not in rel_sims]))

        def relation_score(rid: int, lexical: float) -> float:
            rel = candidates[rid]
            structural = sum(escore.get(x, 0.0) or 0.5 * nscore.get(x, 0.0) for x in (rel.src_id, rel.dst_id)) / 2
            return 0.5 * rel_sims.get(rid, 0.0) + 0.3 * structural + 0.2 * lexical

        def how(rel: Relation) -> str:
            if rel.src_id in escore or rel.dst_id in escore:
                return "edge"
            return "vector" if rel_sims.get(rel.id, 0.0) >= min_similarity else "neighbour"

        def relation_text(rid: int) -> str:
            return f"{candidates[rid].keywords} {candidates[rid].description}"

        best_relations = top_k({rid: relation_score(rid, 1.0) for rid in candidates},
                               lambda rid: relation_score(rid, _lexical(qstems, relation_text(rid))), k_relations,
                               lambda rid: relation_score(rid, _lexical_bound(qstems, relation_text(rid))))
        result.relations = [RelationHit(candidates[rid], score, how(candidates[rid])) for rid, score in best_relations]

        result.text, kept = render(result, budget_tokens, count_tokens or self.embedder.count_tokens)
        result.sources = self._sources(kept, k_sources)
        return result

    def _sources(self, kept: list, k: int) -> list[Source]:
        ents = {h.entity.id: h.score for h in kept if isinstance(h, EntityHit)}
        rels = {h.relation.id: h.score for h in kept if isinstance(h, RelationHit)}
        return chunk_sources(self.db, ents, rels, k)


def chunk_sources(db: Database, entity_scores: dict[int, float], relation_scores: dict[int, float], k: int) -> list[Source]:
    """The ``k`` chunks mentioning the given entities and relations, scored by the sum of their
    items' scores (normalized so the best chunk scores 1)."""
    graph = GraphStore(db)
    chunk_score: dict[int, float] = {}
    for mapping, item_scores in ((graph.entity_chunks(entity_scores), entity_scores),
                                 (graph.relation_chunks(relation_scores), relation_scores)):
        for item, chunks in mapping.items():
            for c in chunks:
                chunk_score[c] = chunk_score.get(c, 0.0) + item_scores[item]
    top = sorted(chunk_score.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    rows = DocumentStore(db).chunks(c for c, _ in top)
    peak = top[0][1] if top and top[0][1] > 0 else 1.0
    return [rows[c].as_source(s / peak)
            for c, s in top if c in rows]


def entity_line(e: Entity) -> str:
    desc = e.description if len(e.description) <= DESCRIPTION_CHARS else e.description[:DESCRIPTION_CHARS].rsplit(" ", 1)[0] + " …"
    return f"- {e.display} ({e.type})" + (f": {desc}" if desc else "")


def relation_line(r: Relation) -> str:
    arrow = f" -[{r.keywords}]-> " if r.keywords else " -> "
    return f"- {r.src}{arrow}{r.dst}" + (f": {r.description}" if r.description else "")


def render(result: KGResult, budget_tokens: int, count_tokens: Callable[[str], int]) -> tuple[str, list]:
    """The "KG results" block: the best-scored items (entities, relations, neighbours) that fit
    ``budget_tokens``, shown as an Entities section then a Relations section, each best first."""
    items = sorted([*result.entities, *result.relations, *result.neighbours], key=lambda h: -h.score)
    used = count_tokens("Entities:\nRelations:\n")
    kept = []
    for hit in items:
        line = entity_line(hit.entity) if isinstance(hit, EntityHit) else relation_line(hit.relation)
        cost = count_tokens(line) + 1
        if used + cost > budget_tokens:
            continue
        used += cost
        kept.append((hit, line))
    ents = [line for hit, line in kept if isinstance(hit, EntityHit)]
    rels = [line for hit, line in kept if isinstance(hit, RelationHit)]
    parts = (["Entities:", *ents] if ents else []) + (["Relations:", *rels] if rels else [])
    return "\n".join(parts), [hit for hit, _ in kept]
