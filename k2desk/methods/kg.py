"""The K²RAG paper's naive knowledge-graph baseline (its §3.2): retrieval from the
knowledge graph of the raw (unsummarized) corpus only. The "KG results" block is the whole
context of the generation prompt; the chunks that mention the matched entities and relations are
the answer's sources (for citation, not shown to the model)."""

from __future__ import annotations

from k2desk.graph.query import KGSearcher
from k2desk.methods.base import Asking, MethodBase
from k2desk.methods.context import MethodContext
from k2desk.methods.generate import answer, generation_messages

KG_BUDGET_TOKENS = 1200  # KG results in the prompt: ~4 s of prompt evaluation for a 0.5B model on 2 cores


class KGMethod(MethodBase):
    name = "kg"

    def __init__(self, ctx: MethodContext, source: str = "text", budget_tokens: int = KG_BUDGET_TOKENS, hops: int = 1) -> None:
        self.ctx = ctx
        self.source = source
        self.budget_tokens = budget_tokens
        self.hops = hops

    def steps(self, asking: Asking) -> None:
        question, result, timer, progress, cancel = asking
        progress("retrieve", 0, 2)
        llm = self.ctx.llm
        settings = self.ctx.settings
        with timer("retrieve"):
            budget = min(self.budget_tokens, max(0, llm.budget(generation_messages("", question), settings.max_answer_tokens)))
            kg = KGSearcher(self.ctx.db, self.ctx.embedder).search(
                question, self.source, hops=self.hops, budget_tokens=budget, k_sources=settings.top_k,
                count_tokens=llm.count_tokens)
        cancel.check()
        progress("generate", 1, 2)
        with timer("generate"):
            completion, context = answer(llm, question, [kg.text] if kg.text else [], settings.max_answer_tokens,
                                         usage=result.llm, on_token=self.ctx.on_token, cancel=cancel)
        progress("generate", 2, 2)
        result.answer = completion.text
        result.sources = kg.sources
        result.trace = {**kg.to_trace(), "source": self.source, "hops": self.hops, "context": context}
