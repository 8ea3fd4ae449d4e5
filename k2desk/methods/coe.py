"""KG-RAG's Chain of Explorations (the KG-RAG paper, Algorithm 1).

plan → per step: a node step (vector search over entities and triple hypernodes, then LLM
selection) or a relation step (the current nodes' relations from the graph, ranked by vector
similarity to the step, LLM selection, move to their targets) → evaluation after each step:
``continue`` / ``respond`` / ``needs refinement`` (re-plan and restart the path; at most
``max_failed_tries`` = 3 failed tries). The answer is generated from the path found only;
without one, the paper's apology sentence is the answer. Every LLM decision is made under a JSON
schema (the plan, the selections as enums of the candidates shown, the evaluation as an enum).

Our choices where the paper leaves room:
* the plan is "a start entity, then at most ``max_steps`` steps" (the paper's first step always
  finds starting nodes); an unparseable plan falls back to the question's first keyword and one
  relation step;
* after the last planned step the evaluation offers only ``respond`` / ``needs refinement``
  (``continue`` has nowhere to go; the paper's loop would then end in the apology);
* a step that reaches no node is a dead end: it counts as "needs refinement" without asking;
* from an entity, a relation step may follow its relations and the hypernodes it qualifies; from
  a hypernode, its links to subject, object and qualifiers (k2desk.graph.hypernodes);
* the graph is the raw text's when built, else the summaries' (``MethodContext.graph_source``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from k2desk.graph.extract import ordered_object
from k2desk.graph.hypernodes import Hypernodes, relation_name
from k2desk.graph.query import _ngrams, chunk_sources, entity_line, question_keywords, relation_line
from k2desk.methods.base import Asking, MethodBase
from k2desk.methods.context import MethodContext
from k2desk.methods.generate import answer
from k2desk.progress import CancelToken
from k2desk.prompts import COE_APOLOGY, COE_EVALUATE_PROMPT, COE_PLAN_PROMPT, COE_REPLAN_PROMPT, COE_SELECT_PROMPT
from k2desk.store.graph import GraphStore
from k2desk.store.vectors import VectorIndex

Node = tuple[str, int]  # ("e", entity id) | ("h", hypernode id = relation id)
QUERY_MAX = 80
LABEL_MAX = 90
PATH_BUDGET_TOKENS = 700  # the path as shown to the evaluator
DECISIONS = ("continue", "respond", "needs refinement")


@dataclass(frozen=True)
class Step:
    kind: str  # node | relation
    query: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.query}"


@dataclass(frozen=True)
class Edge:
    label: str  # what the model chooses from
    target: Node
    fact: str  # the line the path records
    relation_id: Optional[int] = None


def plan_schema(max_steps: int) -> dict:
    text = {"type": "string", "minLength": 1, "maxLength": QUERY_MAX}
    step = ordered_object(("kind", {"enum": ["relation", "node"]}), ("query", text))
    return ordered_object(("start", text), ("steps", {"type": "array", "maxItems": max_steps, "items": step}))


def selection_schema(names: list[str], k: int) -> dict:
    return ordered_object(("selected", {"type": "array", "minItems": 1, "maxItems": k, "items": {"enum": names}}))


def unique_labels(labels: list[str]) -> list[str]:
    """Labels cut to ``LABEL_MAX`` and made distinct (an enum offers each once)."""
    out: list[str] = []
    for label in labels:
        label = label[:LABEL_MAX]
        base, n = label, 2
        while label in out:
            label, n = f"{base} #{n}", n + 1
        out.append(label)
    return out


class CoEMethod(MethodBase):
    name = "coe"

    def __init__(self, ctx: MethodContext, source: Optional[str] = None, max_steps: int = 3, max_failed_tries: int = 3,
                 k_candidates: int = 8, k_select: int = 3, min_similarity: float = 0.25) -> None:
        self.ctx = ctx
        self.source = source
        self.max_steps = max_steps
        self.max_failed_tries = max_failed_tries
        self.k_candidates = k_candidates
        self.k_select = k_select
        self.min_similarity = min_similarity

    # -- the loop (Algorithm 1) --------------------------------------------------------------
    def steps(self, asking: Asking) -> None:
        question, result, timer, progress, cancel = asking
        self.source_name = self.source or self.ctx.graph_source()
        self.graph = GraphStore(self.ctx.db)
        self.hyper = Hypernodes(self.ctx.db)  # read only: the graph stage writes them (and catches up)
        missing = self.hyper.missing(self.source_name)  # a collection indexed before hypernodes existed
        self.usage = result.llm
        with timer("plan"):
            plan, fallback = self._plan(question, cancel)
        attempts = [{"plan": [str(s) for s in plan], "plan_fallback": fallback, "steps": []}]
        path: list[str] = []
        on_path: dict[Node, float] = {}
        relations: set[int] = set()
        current: list[Node] = []
        failed, i, outcome = 0, 0, "exhausted"
        while i < len(plan) and failed < self.max_failed_tries:
            cancel.check()
            step = plan[i]
            progress("explore", i, len(plan))
            with timer("explore"):
                record, current = (self._node_step(question, step, cancel) if step.kind == "node"
                                   else self._relation_step(question, step, current, cancel))
            for node, fact, rid in record.pop("moves"):
                if fact not in path:
                    path.append(fact)
                on_path[node] = on_path.get(node, 0.0) + 1.0
                if rid is not None:
                    relations.add(rid)
            if not current:
                decision = "needs refinement"
                record["evaluation"] = {"decision": decision, "auto": "dead end"}
            else:
                choices = list(DECISIONS) if i < len(plan) - 1 else ["respond", "needs refinement"]
                with timer("evaluate"):
                    decision = self._evaluate(question, plan, path, choices, cancel)
                record["evaluation"] = {"decision": decision, "choices": choices}
            attempts[-1]["steps"].append(record)
            if decision == "respond":
                outcome = "respond"
                break
            if decision == "continue":
                i += 1
                continue
            failed += 1
            if failed >= self.max_failed_tries:
                outcome = "refinement limit"
                break
            with timer("plan"):
                plan, fallback = self._plan(question, cancel, old_plan=plan, path=path)
            attempts.append({"plan": [str(s) for s in plan], "plan_fallback": fallback, "steps": []})
            path, on_path, relations, current, i = [], {}, set(), [], 0

        context = ""
        if outcome == "respond":
            progress("generate", 0, 1)
            with timer("generate"):
                completion, context = answer(self.ctx.llm, question, ["Knowledge graph path:\n" + "\n".join(path)],
                                             self.ctx.settings.max_answer_tokens, usage=result.llm,
                                             on_token=self.ctx.on_token, cancel=cancel)
            result.answer = completion.text
            entities = {nid: s for (kind, nid), s in on_path.items() if kind == "e"}
            rels = {rid: 1.0 for rid in relations} | {nid: s for (kind, nid), s in on_path.items() if kind == "h"}
            result.sources = chunk_sources(self.ctx.db, entities, rels, self.ctx.settings.top_k)
        else:
            result.answer = COE_APOLOGY
            if self.ctx.on_token:
                self.ctx.on_token(COE_APOLOGY)
        progress("generate", 1, 1)
        result.trace = {"source": self.source_name, "outcome": outcome, "failed_tries": failed, "attempts": attempts,
                        "path": path, "context": context}
        if missing:  # explored without them; `k2desk index` adds them
            result.trace["relations_without_hypernode"] = missing

    # -- LLM decisions ---------------------------------------------------------------------
    def _plan(self, question: str, cancel: CancelToken, old_plan: Optional[list[Step]] = None,
              path: Optional[list[str]] = None) -> tuple[list[Step], bool]:
        if old_plan is None:
            prompt = COE_PLAN_PROMPT.format(question=question, max_steps=self.max_steps)
        else:
            prompt = COE_REPLAN_PROMPT.format(question=question, max_steps=self.max_steps,
                                              old_plan="\n".join(f"- {s}" for s in old_plan),
                                              path="\n".join(path or []) or "(nothing)")
        data = self.ctx.llm.json([{"role": "user", "content": prompt}], plan_schema(self.max_steps), max_tokens=160,
                                 usage=self.usage, cancel=cancel)
        start = str(data.get("start") or "").strip() if isinstance(data, dict) else ""
        if not start:
            keywords = question_keywords(question)
            return [Step("node", keywords[0] if keywords else question), Step("relation", question)], True
        steps = [Step(str(s.get("kind")), str(s.get("query") or "").strip()) for s in data.get("steps") or []
                 if isinstance(s, dict) and s.get("kind") in ("node", "relation") and str(s.get("query") or "").strip()]
        return [Step("node", start), *steps[:self.max_steps]], False

    def _select(self, question: str, step: Step, names: list[str], lines: list[str], cancel: CancelToken) -> list[int]:
        prompt = COE_SELECT_PROMPT.format(question=question, step=step.query, candidates="\n".join(lines))
        data = self.ctx.llm.json([{"role": "user", "content": prompt}], selection_schema(names, self.k_select),
                                 max_tokens=40 * self.k_select, usage=self.usage, cancel=cancel)
        chosen = data.get("selected") if isinstance(data, dict) else None
        return list(dict.fromkeys(names.index(n) for n in chosen or [] if n in names))

    def _evaluate(self, question: str, plan: list[Step], path: list[str], choices: list[str], cancel: CancelToken) -> str:
        llm = self.ctx.llm
        shown = llm.truncate("\n".join(path), PATH_BUDGET_TOKENS)
        prompt = COE_EVALUATE_PROMPT.format(question=question, plan="\n".join(f"{n}. {s}" for n, s in enumerate(plan, 1)),
                                            path=shown, choices=", ".join(choices))
        data = llm.json([{"role": "user", "content": prompt}], ordered_object(("decision", {"enum": choices})),
                        max_tokens=16, usage=self.usage, cancel=cancel)
        decision = data.get("decision") if isinstance(data, dict) else None
        return decision if decision in choices else choices[0]

    # -- steps -------------------------------------------------------------------------------
    def _node_step(self, question: str, step: Step, cancel: CancelToken) -> tuple[dict, list[Node]]:
        """Vector search over entities and hypernodes (exact names first), then LLM selection."""
        qvec = self.ctx.embedder.embed_one(step.query)
        scores: dict[Node, float] = {}
        for e in self.graph.find(self.source_name, _ngrams(step.query)):
            scores[("e", e.id)] = 1.0 + 0.001 * e.mentions
        for kind, index in (("e", VectorIndex(self.ctx.db, "entities")), ("h", self.hyper.vectors)):
            for item, sim in index.search(qvec, self.k_candidates, self.source_name):
                if sim >= self.min_similarity:
                    scores[(kind, item)] = max(scores.get((kind, item), 0.0), sim)
        ranked = sorted(scores, key=lambda n: (-scores[n], n))[:self.k_candidates]
        record = {"kind": "node", "query": step.query, "candidates": [], "selected": [], "moves": []}
        if not ranked:
            return record, []
        labels, lines = self._describe(ranked)
        names = unique_labels(labels)
        record["candidates"] = [{"name": n, "score": round(scores[node], 4)} for n, node in zip(names, ranked)]
        picked = self._select(question, step, names, lines, cancel)
        record["selected"] = [names[p] for p in picked]
        record["moves"] = [(ranked[p], lines[p][2:], ranked[p][1] if ranked[p][0] == "h" else None) for p in picked]
        return record, [ranked[p] for p in picked]

    def _relation_step(self, question: str, step: Step, current: list[Node], cancel: CancelToken) -> tuple[dict, list[Node]]:
        """The current nodes' relations, ranked by similarity to the step, LLM selection, targets."""
        edges = self._edges(current)
        record = {"kind": "relation", "query": step.query, "candidates": [], "selected": [], "moves": []}
        if not edges:
            return record, []
        vectors = self.ctx.embedder.embed([step.query, *(e.label for e in edges)], cancel=cancel)
        sims = vectors[1:] @ vectors[0] / (np.linalg.norm(vectors[1:], axis=1) * np.linalg.norm(vectors[0]) + 1e-9)
        order = sorted(range(len(edges)), key=lambda j: (-float(sims[j]), j))[:self.k_candidates]
        ranked = [edges[j] for j in order]
        names = unique_labels([e.label for e in ranked])
        record["candidates"] = [{"name": n, "score": round(float(sims[j]), 4)} for n, j in zip(names, order)]
        picked = self._select(question, step, names, [f"- {n}" for n in names], cancel)
        record["selected"] = [names[p] for p in picked]
        record["moves"] = [(ranked[p].target, ranked[p].fact, ranked[p].relation_id) for p in picked]
        return record, list(dict.fromkeys(ranked[p].target for p in picked))

    # -- graph views ---------------------------------------------------------------------------
    def _describe(self, nodes: list[Node]) -> tuple[list[str], list[str]]:
        """(names offered to the model, candidate lines shown) of entity and hypernode nodes."""
        ents = self.graph.entities(n for k, n in nodes if k == "e")
        hypers = self.hyper.get(n for k, n in nodes if k == "h")
        labels, lines = [], []
        for kind, nid in nodes:
            if kind == "e":
                labels.append(ents[nid].display)
                lines.append(entity_line(ents[nid]))
            else:
                labels.append(hypers[nid].label)
                rel = self.graph.relation(nid)
                lines.append(f"- {hypers[nid].label}" + (f": {rel.description}" if rel and rel.description else ""))
        return labels, lines

    def _edges(self, current: list[Node], per_node: int = 40) -> list[Edge]:
        """What a relation step can follow from ``current``: an entity's relations (strongest
        first) and the hypernodes it qualifies; a hypernode's links to its parts and qualifiers."""
        edges: list[Edge] = []
        entity_ids = [n for k, n in current if k == "e"]
        names = {i: e.display for i, e in self.graph.entities(entity_ids).items()}
        for eid in entity_ids:
            rels = sorted(self.graph.relations_of([eid]), key=lambda r: (-r.strength, r.id))[:per_node]
            for r in rels:
                edges.append(Edge(f"{r.src} -[{relation_name(r.keywords, r.description)}]-> {r.dst}", ("e", r.other(eid)),
                                  relation_line(r)[2:], r.id))
        qualified = self.hyper.of_entities(entity_ids)
        hyper_ids = {h for hs in qualified.values() for h in hs} | {n for k, n in current if k == "h"}
        hypers = self.hyper.get(hyper_ids)
        for eid, hids in qualified.items():
            for hid in hids:
                link = next((ln for ln in hypers[hid].links if ln.entity_id == eid), None)
                if link is not None and link.role == "qualifier":
                    edges.append(Edge(f"{names[eid]} <-[{link.label}]- {hypers[hid].label}", ("h", hid),
                                      f"{hypers[hid].label} -[{link.label}]-> ({names[eid]})", hid))
        linked = self.graph.entities(ln.entity_id for k, n in current if k == "h" for ln in hypers[n].links)
        for kind, hid in current:
            if kind != "h":
                continue
            for link in hypers[hid].links:
                if link.entity_id in linked:
                    role = link.label if link.role == "qualifier" else link.role
                    target = linked[link.entity_id]
                    fact = f"{hypers[hid].label} -[{role}]-> ({target.display})" + (f": {target.description}" if target.description else "")
                    edges.append(Edge(f"{hypers[hid].label} -[{role}]-> {target.display}", ("e", link.entity_id), fact, hid))
        return edges
