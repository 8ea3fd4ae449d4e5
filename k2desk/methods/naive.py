"""The K²RAG paper's naive baselines over the raw (unsummarized) corpus, §3.2:
semantic (dense only, λ=1), keyword (sparse only, λ=0) and hybrid (λ=0.8); k=10, same prompt.
Beside them ``evidence``: the measured-best passages (BM25 ranking with one passage per new
article after the first four; Retriever.evidence_search) read by the question-type-aware reader
(reader.py: abstention from the collection, name-only open answers over the best sentences,
yes/no from per-claim checks) instead of the paper's prompt."""

from __future__ import annotations

from typing import Optional

from k2desk.methods.base import Answer, Asking, MethodBase, Source, Timer
from k2desk.methods.context import MethodContext
from k2desk.methods.generate import answer
from k2desk.methods.reader import CLAIM_PASSAGES
from k2desk.methods.retrieval import Hit, index_text
from k2desk.progress import CancelToken, Progress

LAMBDAS = {"semantic": 1.0, "keyword": 0.0}


class NaiveMethod(MethodBase):
    """Retrieve top-k chunks of the raw text, then answer with the generation prompt."""

    def __init__(self, name: str, ctx: MethodContext, lam: Optional[float] = None, source: str = "text") -> None:
        self.name = name
        self.ctx = ctx
        self.lam = LAMBDAS.get(name, ctx.settings.lam) if lam is None else lam
        self.source = source

    def retrieve(self, question: str) -> list[Source]:
        """The passages the answer would be read from (no LLM)."""
        return [h.source() for h in self._search(question)]

    def _search(self, question: str) -> list[Hit]:
        retriever = self.ctx.retriever(self.source)
        if self.name == "evidence":
            return retriever.evidence_search(question, k=self.ctx.settings.top_k)
        return retriever.search(question, k=self.ctx.settings.top_k, lam=self.lam)

    def steps(self, asking: Asking) -> None:
        question, result, timer, progress, cancel = asking
        progress("retrieve", 0, 2)
        with timer("retrieve"):
            hits = self._search(question)
        cancel.check()
        progress("generate", 1, 2)
        if self.name == "evidence":
            self._read(question, hits, result, timer, progress, cancel)
            return
        with timer("generate"):
            completion, context = answer(self.ctx.llm, question, [index_text(h.chunk) for h in hits],
                                         self.ctx.settings.max_answer_tokens, usage=result.llm,
                                         on_token=self.ctx.on_token, cancel=cancel)
        progress("generate", 2, 2)
        result.answer = completion.text
        result.sources = [h.source() for h in hits]
        result.trace = {
            "retrieval": {**({"ranking": "bm25, then one passage per new article after the first 4"}
                             if self.name == "evidence" else {"lambda": self.lam}),
                          "k": self.ctx.settings.top_k, "source": self.source,
                          "hits": [{"chunk_id": h.chunk.id, "score": round(h.score, 6), "dense": round(h.dense, 6),
                                    "sparse": round(h.sparse, 6)} for h in hits]},
            "context": context,
        }

    def _read(self, question: str, hits: list[Hit], result: Answer, timer: Timer, progress: Progress,
              cancel: CancelToken) -> None:
        retriever = self.ctx.retriever(self.source)
        with timer("generate"):
            reading = self.ctx.reader(self.source).read(
                question, hits, lambda claim, outlet: retriever.evidence_search(claim, k=CLAIM_PASSAGES, outlet=outlet),
                usage=result.llm, on_token=self.ctx.on_token, cancel=cancel)
        progress("generate", 2, 2)
        result.answer = reading.answer
        result.sources = [h.source() for h in hits]
        result.trace = {
            "retrieval": {"ranking": "bm25, then one passage per new article after the first 4", "k": self.ctx.settings.top_k,
                          "source": self.source,
                          "hits": [{"chunk_id": h.chunk.id, "score": round(h.score, 6)} for h in hits]},
            "reader": reading.trace,
            "context": reading.context,
        }
