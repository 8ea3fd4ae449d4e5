"""Mapping the Mind: knowledge-graph-augmented retrieval (the Mapping the Mind
paper, §4.3) over the graph of ``ctx.graph_source()`` (the raw text's when built, else the
summaries').

As in the paper:
* one chain-of-thought LLM call writes up to ``max_sub_queries`` (3) diverse sub-queries;
* per sub-query, its entities are looked up in the graph; their properties and relations, as
  structured text, are (1) summarized for the sub-query and (2) mined for neighbouring nodes
  worth exploring, by the LLM; the named neighbours are the next depth's nodes, up to
  ``max_depth`` (2), and an entity already queried is never queried again (for the whole
  question, as the paper filters "already queried entities");
* the summaries joined with the sub-query are embedded and the ``top_k`` (3) source chunks
  closest by cosine similarity are fetched (the chunks are kept as a set);
* the answer comes from the sub-queries, the node summaries and the source chunks, through the
  generation prompt every method shares.

Our choices where the paper leaves room:
* a sub-query's entities: exact names among its word n-grams, entities whose name contains one of
  its capitalized keywords, and entity vector search (cosine >= ``min_similarity``, 0.5: a short
  text's vector is noisy); the best ``MAX_SEEDS`` not yet visited start the traversal;
* one LLM call per sub-query per depth covers all entities of the frontier (a bounded number of
  calls: at most 1 + max_sub_queries * max_depth + 1); their relations shown are the
  ``MAX_RELATIONS`` closest to the sub-query (relation vectors), within ``GRAPH_BUDGET_TOKENS``;
* decisions are JSON under a schema: the sub-queries after a bounded "reasoning" string, the
  step's summary, and "explore" as an enum of the shown neighbours not yet visited (at most
  ``MAX_EXPLORE``); at the last depth, or when no neighbour is left, only the summary is asked;
* one chunk search per sub-query, over all its summaries (the paper searches at every step;
  one search keeps ``top_k`` chunks per sub-query); the raw text's chunks, or the summaries'
  when a collection has no raw-text vectors;
* sub-queries that do not parse (or none): the question itself is the only sub-query.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from k2desk.graph.extract import ordered_object
from k2desk.graph.query import _ngrams, entity_line, question_keywords, relation_line
from k2desk.methods.base import Asking, LLMUsage, MethodBase, Source
from k2desk.methods.coe import unique_labels
from k2desk.methods.context import MethodContext
from k2desk.methods.generate import answer
from k2desk.methods.retrieval import index_text
from k2desk.progress import CancelToken
from k2desk.prompts import MINDMAP_EXPLORE_HINT, MINDMAP_STEP_PROMPT, MINDMAP_SUBQUERIES_PROMPT
from k2desk.store.documents import DocumentStore
from k2desk.store.graph import Entity, GraphStore
from k2desk.store.vectors import VectorIndex
from k2desk.text.names import normalize_name

REASONING_MAX = 160  # characters; every bound also bounds the (grammar-sampled, slow) completion
QUERY_MAX = 80
SUMMARY_MAX = 200
MAX_SEEDS = 3
MAX_RELATIONS = 10
MAX_EXPLORE = 3
GRAPH_BUDGET_TOKENS = 500  # structured text per step: ~2 s of prompt for a 0.5B model on 2 cores
SUBQUERIES_MAX_TOKENS = 160
STEP_MAX_TOKENS = 120


def sub_queries_schema(max_sub_queries: int) -> dict:
    query = {"type": "string", "minLength": 1, "maxLength": QUERY_MAX}
    return ordered_object(("reasoning", {"type": "string", "maxLength": REASONING_MAX}),
                          ("sub_queries", {"type": "array", "minItems": 1, "maxItems": max_sub_queries, "items": query}))


def step_schema(candidates: list[str]) -> dict:
    """The step's summary, then (when ``candidates`` are offered) the neighbours to explore."""
    summary = ("summary", {"type": "string", "maxLength": SUMMARY_MAX})
    if not candidates:
        return ordered_object(summary)
    return ordered_object(summary, ("explore", {"type": "array", "maxItems": MAX_EXPLORE, "items": {"enum": candidates}}))


class MindMapMethod(MethodBase):
    name = "mindmap"

    def __init__(self, ctx: MethodContext, source: Optional[str] = None, max_sub_queries: int = 3, max_depth: int = 2,
                 top_k: int = 3, min_similarity: float = 0.5) -> None:
        self.ctx = ctx
        self.source = source
        self.max_sub_queries = max_sub_queries
        self.max_depth = max_depth
        self.top_k = top_k
        self.min_similarity = min_similarity
        self.graph = GraphStore(ctx.db)

    def steps(self, asking: Asking) -> None:
        question, result, timer, progress, cancel = asking
        source = self.source or self.ctx.graph_source()
        chunk_source = "text" if VectorIndex(self.ctx.db, "chunks").has("text") else "summary"
        progress("sub-queries", 0, 1)
        with timer("sub_queries"):
            queries, fallback = self._sub_queries(question, result.llm, cancel)
        visited: dict[int, str] = {}  # entity id -> name, in visit order (shared by all sub-queries)
        records: list[dict[str, Any]] = []
        blocks: list[str] = []
        hits: dict[int, Source] = {}
        for i, query in enumerate(queries):
            progress("explore", i, len(queries))
            qvec = self.ctx.embedder.embed_one(query)
            with timer("explore"):
                steps = self._traverse(question, query, qvec, source, visited, result.llm, cancel)
            summaries = [s["summary"] for s in steps if s["summary"]]
            with timer("retrieve"):
                text = "\n".join([query, *summaries])
                found = self._chunks(self.ctx.embedder.embed_one(text) if summaries else qvec, chunk_source)
            for s in found:
                hits.setdefault(s.chunk_id, s)
            records.append({"query": query, "steps": steps, "chunks": [s.chunk_id for s in found]})
            blocks.append(f"Sub-query: {query}" + (f"\nKnowledge graph summary: {' '.join(summaries)}" if summaries else ""))
        rows = DocumentStore(self.ctx.db).chunks(hits)
        blocks += [index_text(rows[c]) for c in hits if c in rows]
        cancel.check()
        progress("generate", len(queries), len(queries) + 1)
        with timer("generate"):
            completion, context = answer(self.ctx.llm, question, blocks, self.ctx.settings.max_answer_tokens,
                                         usage=result.llm, on_token=self.ctx.on_token, cancel=cancel)
        progress("generate", len(queries) + 1, len(queries) + 1)
        result.answer = completion.text
        result.sources = list(hits.values())
        result.trace = {"source": source, "chunk_source": chunk_source, "sub_query_fallback": fallback,
                        "sub_queries": records, "visited": list(visited.values()), "context": context}

    # -- LLM decisions ---------------------------------------------------------------------
    def _sub_queries(self, question: str, usage: LLMUsage, cancel: CancelToken) -> tuple[list[str], bool]:
        """The model's distinct sub-queries (at most ``max_sub_queries``); else the question."""
        cancel.check()
        prompt = MINDMAP_SUBQUERIES_PROMPT.format(question=question, max_sub_queries=self.max_sub_queries)
        data = self.ctx.llm.json([{"role": "user", "content": prompt}], sub_queries_schema(self.max_sub_queries),
                                 max_tokens=SUBQUERIES_MAX_TOKENS, usage=usage, cancel=cancel)
        raw = data.get("sub_queries") if isinstance(data, dict) else None
        queries: dict[str, str] = {}
        for item in raw if isinstance(raw, list) else []:
            text = " ".join(item.split())[:QUERY_MAX] if isinstance(item, str) else ""
            if normalize_name(text):
                queries.setdefault(normalize_name(text), text)
        chosen = list(queries.values())[:self.max_sub_queries]
        return (chosen, False) if chosen else ([question], True)

    def _step(self, question: str, query: str, graph_text: str, candidates: list[str], usage: LLMUsage,
              cancel: CancelToken) -> tuple[str, list[str]]:
        cancel.check()
        llm = self.ctx.llm
        prompt = MINDMAP_STEP_PROMPT.format(graph=llm.truncate(graph_text, GRAPH_BUDGET_TOKENS), question=question,
                                            sub_query=query, explore=MINDMAP_EXPLORE_HINT if candidates else "")
        data = llm.json([{"role": "user", "content": prompt}], step_schema(candidates), max_tokens=STEP_MAX_TOKENS,
                        usage=usage, cancel=cancel)
        data = data if isinstance(data, dict) else {}
        summary = " ".join(str(data.get("summary") or "").split())[:SUMMARY_MAX]
        named = data.get("explore") if isinstance(data.get("explore"), list) else []
        return summary, list(dict.fromkeys(n for n in named if n in candidates))[:MAX_EXPLORE]

    # -- graph ---------------------------------------------------------------------------------
    def _seeds(self, query: str, qvec: np.ndarray, source: str, visited: dict[int, str]) -> list[Entity]:
        """The sub-query's best entities not yet visited: exact names, partial names, vectors."""
        scores: dict[int, float] = {}
        for e in self.graph.find(source, _ngrams(query)):
            scores[e.id] = 1.0 + 0.001 * e.mentions
        for kw in question_keywords(query):
            if kw[:1].isupper() or kw[:1].isdigit():
                for e in self.graph.containing(source, kw, limit=MAX_SEEDS):
                    scores[e.id] = max(scores.get(e.id, 0.0), 0.9)
        for eid, sim in VectorIndex(self.ctx.db, "entities").search(qvec, 2 * MAX_SEEDS, source):
            if sim >= self.min_similarity:
                scores[eid] = max(scores.get(eid, 0.0), sim)
        best = sorted((e for e in scores if e not in visited), key=lambda e: (-scores[e], e))[:MAX_SEEDS]
        found = self.graph.entities(best)
        return [found[e] for e in best if e in found]

    def _traverse(self, question: str, query: str, qvec: np.ndarray, source: str, visited: dict[int, str],
                  usage: LLMUsage, cancel: CancelToken) -> list[dict[str, Any]]:
        """Depth 1..max_depth from the sub-query's entities; marks every explored entity visited."""
        steps: list[dict[str, Any]] = []
        frontier = self._seeds(query, qvec, source, visited)
        for depth in range(1, self.max_depth + 1):
            if not frontier:
                break
            visited.update((e.id, e.display) for e in frontier)
            rels = self.graph.relations_of(e.id for e in frontier)
            sims = VectorIndex(self.ctx.db, "relations").similarities(qvec, [r.id for r in rels])
            rels = sorted(rels, key=lambda r: (-sims.get(r.id, 0.0), -r.strength, r.id))[:MAX_RELATIONS]
            graph_text = "\n".join(["Entities:", *map(entity_line, frontier)]
                                   + (["Relations:", *map(relation_line, rels)] if rels else []))
            ends = [r.dst_id if r.src_id in visited else r.src_id for r in rels]
            ends = [e for e in dict.fromkeys(ends) if e not in visited]
            names = self.graph.entities(ends)
            ends = [e for e in ends if e in names]
            labels = unique_labels([names[e].display for e in ends]) if depth < self.max_depth else []
            summary, chosen = self._step(question, query, graph_text, labels, usage, cancel)
            steps.append({"depth": depth, "entities": [e.display for e in frontier], "summary": summary,
                          "offered": labels, "explore": chosen})
            frontier = [names[ends[labels.index(n)]] for n in chosen]
        return steps

    def _chunks(self, vec: np.ndarray, source: str) -> list[Source]:
        """The ``top_k`` source chunks closest to ``vec``."""
        found = VectorIndex(self.ctx.db, "chunks").search(vec, self.top_k, source)
        rows = DocumentStore(self.ctx.db).chunks(c for c, _ in found)
        return [rows[c].as_source(s)
                for c, s in found if c in rows]
