"""LightRAG's dual-level retrieval (the LightRAG paper, §3.2) over the knowledge
graph of ``ctx.graph_source()`` (the raw text's when built, else the summaries').

As in the paper:
* one LLM call extracts low-level keywords (specific entities and details) and high-level
  keywords (themes) from the question (prompt after the paper's appendix 7.3.3, answered as JSON
  under a schema bounding both lists);
* low-level keywords are matched by vector search to entities, high-level keywords to relations
  (the keys of their profiles, k2desk.graph.profiles);
* one-hop neighbours of what matched are added: a matched entity's relations and the entities at
  their other end; a matched relation's two ends;
* the context has three parts, Entities, Relationships (the items' profiles) and Sources (the
  original chunks), and one answer call follows (the generation prompt every method shares), so a
  question costs exactly 2 LLM calls. Modes: ``local`` (low-level only), ``global`` (high-level
  only), ``hybrid`` (both).

Our choices, after LightRAG's reference implementation where the paper is silent:
* matching a level's keywords: candidates come from vector search (the keywords joined with ", ",
  as LightRAG does, and each keyword); each scores the mean of its best cosine similarity and of
  its key match, the largest share of one keyword's content words found in the item's profile
  keys (its name; a relation's keywords and ends). The key match is what the paper's keys are
  for: MiniLM's cosine between "company acquisition" and a relation's whole text is ~0.1, below
  LightRAG's 0.2 threshold, while its keys name the theme. No threshold: ``top_k`` items with a
  positive score per level;
* a matched item keeps its match score. A one-hop relation of matched entities scores its best
  end's score × strength/10, ties going to the relation whose other end has the higher degree
  (LightRAG ranks edges by degree and weight); a neighbour entity scores the best relation that
  reaches it, a matched relation's end the relation's score;
* the sources are the chunks that mention the matched entities (local) or relations (global),
  scored by the sum of their items' scores, at most ``settings.top_k`` of them; hybrid merges
  the local and global rankings round robin (as LightRAG does), without duplicates;
* the parts share the token budget the generation prompt leaves (``SHARES``); what a part leaves
  unused flows to the next, the item that overflows a part is cut (when more than a few tokens
  remain) and the part ends there;
* keyword output that does not parse, or a level left empty, is filled without an LLM: the
  question's keywords (``question_keywords``) as low-level, the question itself as high-level;
  the trace says ``fallback``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import zip_longest
from typing import Any, Iterable, Optional

from k2desk.graph.extract import ordered_object
from k2desk.graph.profiles import entity_profile, relation_profile
from k2desk.graph.query import chunk_sources, question_keywords, stems
from k2desk.methods.base import Asking, LLMUsage, MethodBase
from k2desk.methods.context import MethodContext
from k2desk.methods.generate import answer, generation_messages
from k2desk.progress import CancelToken
from k2desk.prompts import LIGHTRAG_KEYWORDS_PROMPT
from k2desk.runtime.llm import LLM
from k2desk.store.graph import GraphStore
from k2desk.store.vectors import VectorIndex
from k2desk.text.names import normalize_name

MODES = ("local", "global", "hybrid")
MAX_KEYWORDS = 5
KEYWORD_CHARS = 40
KEYWORDS_MAX_TOKENS = 200  # ten short phrases in JSON
CANDIDATES = 50  # vector-search candidates per keyword text (at least top_k), re-scored with their keys
KEY_WEIGHT = 0.5
SHARES = (("Entities", 0.3), ("Relationships", 0.3), ("Sources", 0.4))
MIN_CUT_TOKENS = 16  # a part's overflowing item is cut only when at least this much room is left

_KEYWORD_LIST = {"type": "array", "maxItems": MAX_KEYWORDS,
                 "items": {"type": "string", "minLength": 1, "maxLength": KEYWORD_CHARS}}
KEYWORDS_SCHEMA: dict = ordered_object(("high_level_keywords", _KEYWORD_LIST), ("low_level_keywords", _KEYWORD_LIST))


@dataclass
class Retrieval:
    """Ranked ids with scores (best first); ``matched_*``: what the vector search found."""

    entities: dict[int, float] = field(default_factory=dict)
    relations: dict[int, float] = field(default_factory=dict)
    matched_entities: dict[int, float] = field(default_factory=dict)
    matched_relations: dict[int, float] = field(default_factory=dict)


def clean_keywords(values: Any) -> list[str]:
    """Distinct, whitespace-collapsed, bounded keyword strings of a parsed JSON list."""
    out: list[str] = []
    seen: set[str] = set()
    for value in values if isinstance(values, list) else []:
        text = " ".join(value.split())[:KEYWORD_CHARS] if isinstance(value, str) else ""
        key = normalize_name(text)
        if key and key not in seen:
            seen.add(key)
            out.append(text)
    return out[:MAX_KEYWORDS]


def round_robin(*rankings: dict[int, float]) -> dict[int, float]:
    """Interleave rankings, first place first; an item keeps its first position and best score."""
    out: dict[int, float] = {}
    for row in zip_longest(*(list(r.items()) for r in rankings)):
        for item in row:
            if item is not None:
                out[item[0]] = max(out.get(item[0], item[1]), item[1])
    return out


def _ranked(scores: dict[int, float], degree: dict[int, int]) -> dict[int, float]:
    return dict(sorted(scores.items(), key=lambda kv: (-kv[1], -degree.get(kv[0], 0), kv[0])))


class LightRAGMethod(MethodBase):
    def __init__(self, ctx: MethodContext, mode: str = "hybrid", source: Optional[str] = None,
                 top_k: Optional[int] = None) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown LightRAG mode {mode!r}; choose one of {', '.join(MODES)}")
        self.ctx = ctx
        self.mode = mode
        self.name = f"lightrag-{mode}"
        self.source = source or ctx.graph_source()
        self.top_k = top_k or ctx.settings.top_k
        self.graph = GraphStore(ctx.db)

    def steps(self, asking: Asking) -> None:
        question, result, timer, progress, cancel = asking
        llm = self.ctx.llm
        settings = self.ctx.settings
        progress("keywords", 0, 3)
        with timer("keywords"):
            low, high, fallback = self.keywords(llm, question, result.llm, cancel)
        cancel.check()
        progress("retrieve", 1, 3)
        with timer("retrieve"):
            found = self.retrieve(low, high)
            budget = max(0, llm.budget(generation_messages("", question), settings.max_answer_tokens))
            context, shown = self.context(llm, found, budget)
        cancel.check()
        progress("generate", 2, 3)
        with timer("generate"):
            completion, context = answer(llm, question, [context] if context else [], settings.max_answer_tokens,
                                         usage=result.llm, on_token=self.ctx.on_token, cancel=cancel)
        progress("generate", 3, 3)
        result.answer = completion.text
        result.sources = shown["sources"]
        result.trace = {
            "mode": self.mode,
            "source": self.source,
            "keywords": {"low_level": low, "high_level": high, "fallback": fallback},
            "retrieved": {"entities": len(found.entities), "relations": len(found.relations)},
            "entities": shown["entities"],
            "relations": shown["relations"],
            "context": context,
        }

    # -- steps -----------------------------------------------------------------------------
    def keywords(self, llm: LLM, question: str, usage: LLMUsage, cancel: CancelToken) -> tuple[list[str], list[str], bool]:
        """(low-level, high-level, whether a level came from the fallback) in one LLM call."""
        messages = [{"role": "user", "content": LIGHTRAG_KEYWORDS_PROMPT.format(question=question)}]
        parsed = llm.json(messages, KEYWORDS_SCHEMA, max_tokens=KEYWORDS_MAX_TOKENS, usage=usage, cancel=cancel)
        parsed = parsed if isinstance(parsed, dict) else {}
        low, high = clean_keywords(parsed.get("low_level_keywords")), clean_keywords(parsed.get("high_level_keywords"))
        fallback = not low or not high
        return low or question_keywords(question) or [question], high or [question], fallback

    def retrieve(self, low: list[str], high: list[str]) -> Retrieval:
        local = self._local(low) if self.mode in ("local", "hybrid") else Retrieval()
        glob = self._global(high) if self.mode in ("global", "hybrid") else Retrieval()
        return Retrieval(round_robin(local.entities, glob.entities), round_robin(local.relations, glob.relations),
                         local.matched_entities, glob.matched_relations)

    def _local(self, keywords: list[str]) -> Retrieval:
        seeds = self._match("entities", keywords)
        relations = self.graph.relations_of(seeds)
        scores: dict[int, float] = {}
        other_end: dict[int, int] = {}
        for r in relations:
            anchor, other = (r.src_id, r.dst_id) if seeds.get(r.src_id, 0.0) >= seeds.get(r.dst_id, 0.0) else (r.dst_id, r.src_id)
            scores[r.id], other_end[r.id] = seeds[anchor] * r.strength / 10, other
        degree = self._degrees(other_end.values())
        ranked = _ranked(scores, {rid: degree.get(end, 0) for rid, end in other_end.items()})
        neighbours: dict[int, float] = {}
        for rid, score in ranked.items():
            if other_end[rid] not in seeds:
                neighbours[other_end[rid]] = max(neighbours.get(other_end[rid], 0.0), score)
        return Retrieval({**seeds, **_ranked(neighbours, degree)}, ranked, matched_entities=seeds)

    def _global(self, keywords: list[str]) -> Retrieval:
        matched = self._match("relations", keywords)
        ends: dict[int, float] = {}
        for rid, r in sorted(self.graph.relations(matched).items(), key=lambda kv: -matched[kv[0]]):
            for end in (r.src_id, r.dst_id):
                ends[end] = max(ends.get(end, 0.0), matched[rid])
        return Retrieval(_ranked(ends, self._degrees(ends)), matched, matched_relations=matched)

    def _match(self, kind: str, keywords: list[str]) -> dict[int, float]:
        """Top ``top_k`` entities or relations for ``keywords``, best first (see the module doc)."""
        index = VectorIndex(self.ctx.db, kind)
        sims: dict[int, float] = {}
        for vec in self.ctx.embedder.embed(list(dict.fromkeys([", ".join(keywords), *keywords]))):
            for item, sim in index.search(vec, max(CANDIDATES, self.top_k), self.source):
                sims[item] = max(sims.get(item, -1.0), sim)
        if kind == "entities":
            keys = {i: entity_profile(e).keys for i, e in self.graph.entities(sims).items()}
        else:
            keys = {i: relation_profile(r).keys for i, r in self.graph.relations(sims).items()}
        wanted = [w for w in map(stems, keywords) if w]
        scores: dict[int, float] = {}
        for item, item_keys in keys.items():
            have = set().union(*map(stems, item_keys))
            key_match = max((len(w & have) / len(w) for w in wanted), default=0.0)
            score = (1 - KEY_WEIGHT) * sims[item] + KEY_WEIGHT * key_match
            if score > 0:
                scores[item] = score
        return dict(sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[: self.top_k])

    def _degrees(self, entity_ids: Iterable[int]) -> dict[int, int]:
        return GraphStore(self.ctx.db).degrees(entity_ids)

    def context(self, llm: LLM, found: Retrieval, budget: int) -> tuple[str, dict[str, list]]:
        """The three parts packed into ``budget`` tokens, and what they show (for the trace and
        the answer's sources)."""
        entities = self.graph.entities(found.entities)
        relations = self.graph.relations(found.relations)
        sources = chunk_sources(self.ctx.db, found.matched_entities, found.matched_relations, self.ctx.settings.top_k)
        ent_ids = [i for i in found.entities if i in entities]
        rel_ids = [i for i in found.relations if i in relations]
        lines = (
            [entity_profile(entities[i]).value for i in ent_ids],
            [relation_profile(relations[i]).value for i in rel_ids],
            [f"[{n}] {s.title or s.document}: {' '.join(s.text.split())}" for n, s in enumerate(sources, 1)],
        )
        parts: list[str] = []
        kept: list[int] = []
        carry = 0
        for (title, share), part in zip(SHARES, lines):
            allowance = int(budget * share) + carry
            used = llm.count_tokens(f"{title}:") + 2
            shown: list[str] = []
            for line in part:
                cost = llm.count_tokens(line) + 1
                if used + cost > allowance:
                    if allowance - used - 1 >= MIN_CUT_TOKENS:
                        shown.append(llm.truncate(line, allowance - used - 1))
                        used = allowance
                    break
                shown.append(line)
                used += cost
            kept.append(len(shown))
            if shown:
                parts.append(f"{title}:\n" + "\n".join(shown))
            carry = allowance - used if shown else allowance
        n_ent, n_rel, n_src = kept
        return "\n\n".join(parts), {
            "entities": [{"id": i, "name": entities[i].display, "score": round(found.entities[i], 4),
                          "match": "vector" if i in found.matched_entities else "one-hop"} for i in ent_ids[:n_ent]],
            "relations": [{"id": i, "src": relations[i].src, "dst": relations[i].dst, "keywords": relations[i].keywords,
                           "score": round(found.relations[i], 4),
                           "match": "vector" if i in found.matched_relations else "one-hop"} for i in rel_ids[:n_rel]],
            "sources": sources[:n_src],
        }
