"""The K²RAG paper's naive baselines over the raw (unsummarized) corpus, §3.2: semantic (dense
only, λ=1), keyword (sparse only, λ=0) and hybrid (λ=0.8), top k=10. Beside them ``evidence``:
the measured-best passages (BM25 ranking with one passage per new article after the first four;
Retriever.evidence_search).

Each ranking is read by the question-type-aware reader (reader.py: abstention from the
collection, name-only open answers over the question's best sentences, yes/no from per-claim
checks, each claim's passages found by the same ranking). ``semantic-paper``, ``keyword-paper``
and ``hybrid-paper`` are the paper's flow exactly: its generation prompt over the ten whole
chunks (~2,950 prompt tokens on the dev articles, against the reader's ~1,000: on 2 CPU cores
an answer of 18 s against 6 s, docs/speed/)."""

from __future__ import annotations

from typing import Optional

from k2desk.methods.base import Answer, Asking, MethodBase, Source, Timer
from k2desk.methods.context import MethodContext
from k2desk.methods.generate import answer
from k2desk.methods.retrieval import Hit, index_text
from k2desk.progress import CancelToken, Progress

LAMBDAS = {"semantic": 1.0, "keyword": 0.0}


class NaiveMethod(MethodBase):
    """Retrieve top-k chunks of the raw text, then read them (the reader, or the paper's prompt)."""

    def __init__(self, name: str, ctx: MethodContext, lam: Optional[float] = None, source: str = "text",
                 paper: bool = False) -> None:
        self.name = name
        self.ctx = ctx
        self.ranking = name.removesuffix("-paper")  # semantic | keyword | hybrid | evidence
        self.lam = LAMBDAS.get(self.ranking, ctx.settings.lam) if lam is None else lam
        self.source = source
        self.paper = paper  # the paper's prompt over whole chunks instead of the reader

    def retrieve(self, question: str) -> list[Source]:
        """The passages the answer would be read from (no LLM)."""
        return [h.source() for h in self._rank(question, self.ctx.settings.top_k)]

    def _rank(self, query: str, k: int, outlet: str = "") -> list[Hit]:
        retriever = self.ctx.retriever(self.source)
        if self.ranking == "evidence":
            return retriever.evidence_search(query, k=k, outlet=outlet)
        return retriever.search(query, k=k, lam=self.lam, outlet=outlet)

    def _retrieval_trace(self, hits: list[Hit]) -> dict:
        ranking = ({"ranking": "bm25, then one passage per new article after the first 4"}
                   if self.ranking == "evidence" else {"lambda": self.lam})
        return {**ranking, "k": self.ctx.settings.top_k, "source": self.source,
                "hits": [{"chunk_id": h.chunk.id, "score": round(h.score, 6), "dense": round(h.dense, 6),
                          "sparse": round(h.sparse, 6)} for h in hits]}

    def steps(self, asking: Asking) -> None:
        question, result, timer, progress, cancel = asking
        progress("retrieve", 0, 2)
        with timer("retrieve"):
            hits = self._rank(question, self.ctx.settings.top_k)
        cancel.check()
        progress("generate", 1, 2)
        if not self.paper:
            self._read(question, hits, result, timer, progress, cancel)
            return
        with timer("generate"):
            completion, context = answer(self.ctx.llm, question, [index_text(h.chunk) for h in hits],
                                         self.ctx.settings.max_answer_tokens, usage=result.llm,
                                         on_token=self.ctx.on_token, cancel=cancel)
        progress("generate", 2, 2)
        result.answer = completion.text
        result.sources = [h.source() for h in hits]
        result.trace = {"retrieval": self._retrieval_trace(hits), "context": context}

    def _read(self, question: str, hits: list[Hit], result: Answer, timer: Timer, progress: Progress,
              cancel: CancelToken) -> None:
        with timer("generate"):
            reading = self.ctx.reader(self.source).read(
                question, hits, lambda text, outlet, k: self._rank(text, k, outlet),
                usage=result.llm, on_token=self.ctx.on_token, cancel=cancel)
        progress("generate", 2, 2)
        result.answer = reading.answer
        result.sources = reading.sources if reading.sources is not None else [h.source() for h in hits]
        result.trace = {"retrieval": self._retrieval_trace(hits), "reader": reading.trace, "context": reading.context}
        result.verdict = reading.verdict
