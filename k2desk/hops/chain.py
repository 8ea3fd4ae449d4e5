"""A bridge question answered one hop at a time (IRCoT's and self-ask's chain, narrowed to what the
question's grammar shows): the innermost description is asked as a question of its own, its answer
put in its place, and so on up to ``MAX_HOPS`` descriptions; then the question that is left.

Each hop is a whole answer of the unchanged method (its own passages, its own support check:
the final answer is checked against the last hop's question, not against the whole chain). A hop
the documents do not answer ends the chain with "not in your documents", naming that hop; but an
"of" phrase around an earlier hop's answer that no document names ("the tower of <the lighthouse>")
is left in the question as it stands.

The default order (``answer_once_then_hops``) reads the question once first, as the method always
did, and reads it hop by hop only where that answer does not fit it (fit.py): the 1.5B reads most
bridge questions right at once, and a chain of two readings loses some of those. Session 51's
order, every bridge the grammar finds hop by hop first, is ``settings.hops_first``
(docs/eval/hops/ measures both).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Optional

from k2desk import prompts
from k2desk.hops.find import find_bridge, substitute
from k2desk.hops.fit import unfit
from k2desk.types import Answer
from k2desk.verdict import declined

MAX_HOPS = 2  # descriptions resolved before the last question: at most three readings
NAME_WORDS = 12  # a hop's answer longer than this is no name to put in a question


def _name(answer: Answer) -> str:
    """The hop's answer as a name to put in the next question ("" when it is none)."""
    text = " ".join(answer.answer.split()).strip().rstrip(".")
    if answer.outcome == "declined" or not text or len(text.split()) > NAME_WORDS:
        return ""
    return text


def _hop_trace(bridge, answer: Answer, name: str, seconds: float) -> dict[str, Any]:
    return {**bridge.to_trace(), "answer": answer.answer, "name": name, "outcome": answer.outcome,
            "sources": [s.title or s.document for s in answer.sources[:2]], "seconds": round(seconds, 3)}


def answer_by_hops(question: str, ask: Callable[[str, bool], Answer], nlp: Any,
                   max_hops: int = MAX_HOPS, loose: bool = False) -> Optional[Answer]:
    """The answer to ``question`` read hop by hop, or None when its grammar shows no bridge (the
    caller then asks it as it stands). ``ask(question, last)`` answers one question with the
    method (``last``: the final hop, whose tokens may be streamed). ``loose``: the bridges
    ``find_bridge`` reads only where the question read once did not fit."""
    doc = nlp(question)
    bridge = find_bridge(doc, loose=loose)
    if bridge is None:
        return None
    hops: list[dict[str, Any]] = []
    answers: list[Answer] = []
    skipped: list[Answer] = []  # hops read and left out: their cost counts, their passages do not
    current, resolved = question, []
    while bridge is not None and len(hops) < max_hops:
        t0 = time.perf_counter()
        hop = ask(bridge.question, False)
        name = _name(hop)
        hops.append(_hop_trace(bridge, hop, name, time.perf_counter() - t0))
        answers.append(hop)
        if not name and bridge.kind == "of" and resolved:
            # "the tower of <an earlier answer>" named by no document: no step of its own, the
            # question is read with the phrase as it stands ("How tall is the tower of X?")
            hops.pop()
            skipped.append(answers.pop())
            break
        if not name:
            return _declined(question, bridge, hop, hops, answers)
        current = substitute(current, bridge, name)
        resolved.append(name)
        bridge = find_bridge(nlp(current), resolved, loose=loose)
    t0 = time.perf_counter()
    final = ask(current, True)
    hops.append({"question": current, "answer": final.answer, "outcome": final.outcome,
                 "sources": [s.title or s.document for s in final.sources[:2]],
                 "seconds": round(time.perf_counter() - t0, 3)})
    out = _combined(question, final, hops, answers)
    for a in skipped:
        _add_cost(out, a)
    return out


def _combined(question: str, final: Answer, hops: list[dict[str, Any]], earlier: list[Answer]) -> Answer:
    """The last hop's answer with the chain: the earlier hops' passages after its own (each once),
    their times and model use added, every hop in the trace."""
    seen = {s.chunk_id for s in final.sources}
    sources = list(final.sources)
    for a in earlier:
        for s in a.sources[:2]:
            if s.chunk_id not in seen:
                sources.append(s)
                seen.add(s.chunk_id)
    out = Answer(question, final.method, final.answer, sources, dict(final.trace), dict(final.timings), final.llm,
                 final.verdict)
    for a in earlier:
        out.llm.add(a.llm)
        for k, v in a.timings.items():
            out.timings[k] = out.timings.get(k, 0.0) + v
    out.trace["hops"] = hops
    return out


def _declined(question: str, bridge, hop: Answer, hops: list[dict[str, Any]], earlier: list[Answer]) -> Answer:
    """The chain ends where a hop is not answered: "not in your documents", saying which."""
    step = len(hops)
    out = _combined(question, hop, hops, earlier[:-1])
    out.answer = prompts.HOP_NOT_IN_DOCUMENTS.format(description=bridge.description, step=step)
    out.verdict = declined(hop.verdict.reason if hop.verdict.declined else f"step {step} gave no name to ask the next with",
                           hop.verdict.signals, hop.verdict.calibration)
    return out


def answer_once_then_hops(question: str, ask: Callable[[str, bool], Answer], nlp: Any,
                          terms: Optional[Callable[[str], list[str]]] = None) -> Answer:
    """The question read once (streamed); where its grammar shows a bridge (``loose``) and the
    answer does not fit it (declined, no amount for a "how many", the description's own noun, a
    sentence that holds only the description: ``fit.unfit``; ``terms``: the index's terms of a
    text), read again hop by hop, and that answer kept unless its chain is declined. A question
    without a bridge, or answered with what fits it, costs one parse more than reading it once; one
    declined for the question itself (``Verdict.settled``: publishers the collection lacks) stands."""
    once = ask(question, True)
    if once.verdict.settled:  # declined for the question itself (publishers the collection lacks): no hop changes that
        return once
    doc = nlp(question)
    bridge = find_bridge(doc, loose=True)
    why = unfit(doc, once, nlp, bridge.noun, bridge.description, terms) if bridge is not None else ""
    if not why:
        return once
    hopped = answer_by_hops(question, lambda q, last: ask(q, False), nlp, loose=True)
    if hopped is None:
        return once
    if hopped.outcome == "declined":  # no better: the first reading stands, the chain tried in its trace
        once.trace["hops_tried"] = hopped.trace.get("hops", [])
        _add_cost(once, hopped)
        return once
    hopped.trace["read_once"] = {"answer": once.answer, "outcome": once.outcome, "unfit": why,
                                 "seconds": round(once.timings.get("total", 0.0), 3)}
    _add_cost(hopped, once)
    return hopped


def _add_cost(answer: Answer, other: Answer) -> None:
    answer.llm.add(other.llm)
    for k, v in other.timings.items():
        answer.timings[k] = answer.timings.get(k, 0.0) + v
