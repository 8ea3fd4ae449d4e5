"""``--oracle``: the reader alone. The question is answered by the default method's reader
(methods/reader.py: a name from the evidence for an open question, the claims checked for a
yes/no one) from the question's gold evidence facts, each under its article's
"title | outlet | date" line, so a run measures reading apart from retrieval. A yes/no claim
reads the facts of the outlets it names (all facts when it names none). A question without
evidence (a null question) has nothing to read: the right answer is then to abstain."""

from __future__ import annotations

from typing import Any

from k2desk.eval.datasets import Question
from k2desk.methods.base import Answer, Timer
from k2desk.methods.question import answer_form
from k2desk.methods.reader import Reader, Reading
from k2desk.progress import CancelToken
from k2desk.prompts import ABSTAIN_ANSWER
from k2desk.text.headers import chunk_header
from k2desk.verdict import declined

ORACLE = "oracle"


def _facts(q: Question) -> list[dict]:
    return [e for e in q.evidence_list if isinstance(e, dict) and e.get("fact")]


def _block(e: dict) -> str:
    header = chunk_header(str(e.get("title") or ""), {k: e[k] for k in ("source", "published_at") if e.get(k)})
    return f"{header}\n{e['fact']}" if header else str(e["fact"])


def oracle_blocks(q: Question) -> list[str]:
    return [_block(e) for e in _facts(q)]


def oracle_answer(engine: Any, q: Question, cancel: CancelToken) -> Answer:
    result = Answer(q.prompt, ORACLE, "")
    timer = Timer()
    facts = _facts(q)
    outlets = list(dict.fromkeys(str(e["source"]) for e in facts if e.get("source")))
    ctx = engine.method("evidence").ctx
    reader = Reader(ctx.llm, ctx.retriever("text").sparse, outlets, checker=ctx.check_llm_factory,
                    calibration=ctx.calibration, claim_calibration=ctx.claim_calibration)

    def evidence(claim: str, named: list[str]) -> tuple[str, list[int]]:
        mine = [e for e in facts if e.get("source") in named] or facts
        return "\n\n".join(_block(e) for e in mine), []

    with timer("generate"):
        if not facts:
            reading = Reading(ABSTAIN_ANSWER, "abstain", trace={"form": "abstain"}, verdict=declined("no evidence"))
        elif answer_form(q.prompt) == "yes_no":
            reading = reader.yes_no(q.prompt, evidence, usage=result.llm, cancel=cancel)
        else:
            reading = reader.open(q.prompt, [], oracle_blocks(q), usage=result.llm, cancel=cancel)
    result.answer = reading.answer
    result.trace = {"reader": reading.trace, "context": reading.context}
    result.verdict = reading.verdict
    result.timings = timer.finish()
    return result
