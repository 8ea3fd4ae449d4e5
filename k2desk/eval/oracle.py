"""``--oracle``: the reader alone. The question is answered by the shared answer step
(methods/generate.py, the same prompt and model every method's final answer uses) from the
question's gold evidence facts, each under its article's "title | outlet | date" line, so a run
measures reading apart from retrieval. A question without evidence (a null question) gets an
empty context: the right answer is then to abstain."""

from __future__ import annotations

from typing import Any

from k2desk.eval.datasets import Question
from k2desk.methods.base import Answer, Timer
from k2desk.methods.generate import answer
from k2desk.methods.retrieval import chunk_header
from k2desk.progress import CancelToken

ORACLE = "oracle"


def oracle_blocks(q: Question) -> list[str]:
    blocks = []
    for e in q.evidence_list:
        if isinstance(e, dict) and e.get("fact"):
            header = chunk_header(str(e.get("title") or ""), {k: e[k] for k in ("source", "published_at") if e.get(k)})
            blocks.append(f"{header}\n{e['fact']}" if header else str(e["fact"]))
    return blocks


def oracle_answer(engine: Any, q: Question, cancel: CancelToken) -> Answer:
    result = Answer(q.prompt, ORACLE, "")
    timer = Timer()
    with timer("generate"):
        completion, context = answer(engine.llm, q.prompt, oracle_blocks(q), engine.settings.max_answer_tokens,
                                     usage=result.llm, cancel=cancel)
    result.answer = completion.text
    result.trace = {"context": context}
    result.timings = timer.finish()
    return result
