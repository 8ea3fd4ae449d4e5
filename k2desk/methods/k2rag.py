"""K²RAG, the paper's Algorithm 2 (Figure 8), step by step:

(A) knowledge-graph search for the question → KG results text;
(B) summarize the KG results → kg_summary;
(C) chunk the KG results 128/10 and let the LLM write one sub-question per chunk;
(D) per sub-question: hybrid retrieval (λ = 0.8, k = 10) over the summarized corpus's stores,
    a sub-answer with the generation prompt, and its summary; then the concatenated sub-answers
    are summarized again;
(E) the final answer from kg_summary + the summarized sub-answers, with the generation prompt.

Three variants share this code. ``k2rag-paper`` is the flow above as published. ``k2rag-steps``
is the same flow where a small model breaks it, measured in docs/eval/: the paper's
final answer never sees a passage, only summaries of summaries, and a 0.5B model loses the names
on the way (the README's demo answered "Dr solar-cooperative"). So in ``k2rag``:

* every answer goes through the question-type-aware reader (reader.py): a question naming
  publishers the collection lacks is declined before any step; sub-answers and the final answer
  are names or short phrases read from the best sentences (~1,000 tokens, not ~3,000);
* the sub-questions retrieve raw-text passages by the measured-best ranking
  (Retriever.evidence_search, Hits@4 0.809 vs hybrid's 0.622 on the MultiHop-RAG dev slice), and
  the final answer reads the question's own best passages first, then the KG summary and the
  summarized sub-answers;
* a yes/no question's sub-questions are its own claims (question.claims: "Does A say X, while
  B says Y?"), not LLM-written ones from KG chunks: each is retrieved for in its outlet's
  articles and checked by the model's Yes/No scores, and the answer is "Yes" when their mean
  support passes the checker's calibrated margin (k2desk.verdict, claim_margin).

``k2rag`` (the default) answers an open question in one model call from its best passages.
What the graph adds to that answer was measured on the same code and found to be nothing: steps
(B)-(D) (six more calls) bought one answer in 60 on the MultiHop-RAG sample at 1.6x the seconds
(docs/eval/sample60-steps), and step (A)'s KG results read after the passages in the same call
lost answers on both collections where it was measured, at +5 s each (docs/eval/sample60-evidence,
wiki68-evidence). The corpus summaries answer summary requests (step 1 of the paper, shown to the
person: summaries.py); yes/no questions and summary requests go as in ``k2rag-steps``.

On a collection without a raw-text index the variants follow the paper's retrieval.

Our choices where the paper is silent: the graph and the stores of the summarized corpus are
used when they exist (build profile), else those of the raw text; at most ``max_sub_questions``
chunks of KG results are turned into sub-questions (the most relevant come first, since the
KG results are ranked); a sub-answer that is already shorter than its summary budget is kept as
is instead of being "summarized" by another LLM call; when the graph yields nothing, the
question itself is the single sub-question. Sub-questions run one after another: the LLM is
one job at a time on CPU, so concurrency would not be faster, and the result is deterministic.
"""

from __future__ import annotations

from typing import Optional

from k2desk.errors import UsageError
from k2desk.graph.query import KGSearcher
from k2desk.methods.base import Answer, Asking, MethodBase, Source, Timer
from k2desk.methods.context import MethodContext
from k2desk.methods.forms import ask_form
from k2desk.methods.generate import answer
from k2desk.methods.reader import CLAIM_PASSAGES, Reader, Reading
from k2desk.methods.retrieval import index_text
from k2desk.progress import CancelToken, Progress
from k2desk.prompts import SUBQUESTION_PROMPT
from k2desk.runtime.device import summarizer_backend
from k2desk.runtime.summarizer import make_summarizer
from k2desk.store.graph import GraphStore
from k2desk.store.vectors import VectorIndex
from k2desk.text.chunking import chunk_text

KG_BUDGET_TOKENS = 600
KG_SUMMARY_TOKENS = 120
SUB_ANSWER_SUMMARY_TOKENS = 60
SUB_ANSWERS_SUMMARY_TOKENS = 160
SUB_QUESTION_TOKENS = 48


class K2RAGMethod(MethodBase):
    def __init__(self, ctx: MethodContext, max_sub_questions: int = 3, paper: bool = False, name: str = "") -> None:
        """``max_sub_questions`` 0 (``k2rag``): an open question is read from its passages in one
        call; above 0, steps (A)-(E) with that many sub-questions."""
        self.ctx = ctx
        self.max_sub_questions = max_sub_questions
        self.paper = paper
        self.name = name or ("k2rag-paper" if paper else "k2rag")

    def _evidence(self) -> bool:
        """Whether this variant reads raw-text passages (it needs the raw-text index)."""
        return not self.paper and VectorIndex(self.ctx.db, "chunks").has("text")

    def retrieve(self, question: str) -> list[Source]:
        """The passages the final answer reads first, without the LLM (``k2rag`` only; the
        paper's flow reaches passages only through LLM-written sub-questions)."""
        if not self._evidence():
            raise UsageError(f"method {self.name!r} reads no passage chosen without its LLM")
        return [h.source() for h in self.ctx.retriever("text").evidence_search(question, k=self.ctx.settings.top_k)]

    def _source(self, kind: str) -> str:
        """'summary' when the summarized corpus's store exists, else 'text'."""
        db = self.ctx.db
        if kind == "graph":
            return "summary" if GraphStore(db).has_entities("summary") else "text"
        return "summary" if VectorIndex(db, "chunks").has("summary") else "text"

    def steps(self, asking: Asking) -> None:
        question, result, timer, progress, cancel = asking
        if not self._evidence():
            self._flow(question, result, timer, progress, cancel, None)
            return
        reader = self.ctx.reader("text")
        retriever = self.ctx.retriever("text")
        form = ask_form(question)
        reading = reader.decline(question)
        passages: list = []
        if reading is None and form.kind == "yes_no":
            reading = self._claims(reader, form.text, result, timer, progress, cancel)
        elif reading is None:
            progress("finding the passages", 0, 2)
            with timer("retrieve"):
                passages = retriever.evidence_search(form.text, k=self.ctx.settings.top_k)
            if form.kind in ("summary", "multi") or not passages or not self.max_sub_questions:
                # ``k2rag``: the question's passages, read once; a summary comes from the corpus
                # summaries, each part of a multi-part question is answered on its own passages
                progress(f"reading {len(passages)} passages", 1, 2)
                with timer("final_answer"):
                    reading = reader.read(question, passages, lambda t, o, k: retriever.evidence_search(t, k=k, outlet=o),
                                          usage=result.llm, on_token=self.ctx.on_token, cancel=cancel)
            else:
                reading = reader.not_supported(form, passages)
        if reading is not None:
            result.answer, result.trace = reading.answer, {"reader": reading.trace, "final_context": reading.context}
            result.verdict = reading.verdict
            if reading.sources is not None:
                result.sources = reading.sources
            elif passages:
                result.sources = [h.source() for h in passages]
            return
        self._flow(question, result, timer, progress, cancel, reader, passages)

    def _kg_search(self, question: str, graph_source: str):
        """Step (A): the question's knowledge-graph results, within KG_BUDGET_TOKENS."""
        ctx = self.ctx
        return KGSearcher(ctx.db, ctx.embedder).search(question, graph_source, budget_tokens=KG_BUDGET_TOKENS,
                                                       k_sources=ctx.settings.top_k, count_tokens=ctx.llm.count_tokens)

    def _claims(self, reader: Reader, question: str, result: Answer, timer: Timer, progress: Progress,
                cancel: CancelToken) -> Reading:
        """A yes/no question: its claims are the sub-questions, each checked on its own evidence."""
        retriever = self.ctx.retriever("text")
        found: dict[int, Source] = {}

        def search(claim: str, outlet: str, k: int = CLAIM_PASSAGES):
            hits = retriever.evidence_search(claim, k=k, outlet=outlet)
            for h in hits:
                found.setdefault(h.chunk.id, h.source())
            return hits

        with timer("claims"):
            reading = reader.yes_no(question, reader.passages_for_claims(search), usage=result.llm, cancel=cancel,
                                    progress=progress)
        result.sources = list(found.values())
        return reading

    def _flow(self, question: str, result: Answer, timer: Timer, progress: Progress, cancel: CancelToken,
              reader: Optional[Reader], passages: Optional[list] = None) -> None:
        """Steps (A)-(E); ``reader`` (``k2rag``) answers the sub-questions and the question from
        its best ``passages`` last."""
        ctx, settings = self.ctx, self.ctx.settings
        llm = ctx.llm
        summarizer = make_summarizer(summarizer_backend(settings), settings.models_dir, llm=llm, threads=settings.effective_threads())
        steps = 4 + self.max_sub_questions

        def summarize(text: str, tokens: int) -> str:
            if not text.strip():
                return ""
            if llm.count_tokens(text) <= tokens:
                return text.strip()
            return summarizer.summarize(text, max_tokens=tokens, cancel=cancel, usage=result.llm)

        # (A) knowledge-graph search
        progress("kg search", 0, steps)
        graph_source = self._source("graph")
        with timer("kg_search"):
            kg = self._kg_search(question, graph_source)
        cancel.check()
        # (B) summary of the KG results
        progress("kg summary", 1, steps)
        with timer("kg_summary"):
            kg_summary = summarize(kg.text, KG_SUMMARY_TOKENS)
        cancel.check()
        # (C) sub-questions, one per 128/10 chunk of the KG results
        progress("sub-questions", 2, steps)
        with timer("sub_questions"):
            pieces = [c.text for c in chunk_text(kg.text, ctx.embedder, "query")][: self.max_sub_questions]
            sub_questions = []
            for piece in pieces:
                cancel.check()
                out = llm.chat([{"role": "user", "content": SUBQUESTION_PROMPT.format(chunk=piece, question=question)}],
                               max_tokens=SUB_QUESTION_TOKENS, usage=result.llm, cancel=cancel)
                sub_questions.append(_one_line(out.text) or question)
            if not sub_questions:
                sub_questions, pieces = [question], [""]
        # (D) hybrid retrieval (k2rag: evidence passages of the raw text), sub-answers, summaries
        evidence = reader is not None
        retrieval_source = "text" if evidence else self._source("chunks")
        retriever = ctx.retriever(retrieval_source)
        subs, sources = [], {}
        for i, (sq, piece) in enumerate(zip(sub_questions, pieces)):
            cancel.check()
            progress("sub-answers", 3 + i, steps)
            with timer("retrieve"):
                hits = (retriever.evidence_search(sq, k=settings.top_k) if evidence
                        else retriever.search(sq, k=settings.top_k, lam=settings.lam))
            with timer("sub_answers"):
                if reader is not None:
                    sub_answer = reader.open(sq, hits, usage=result.llm, cancel=cancel, check=False).answer
                else:
                    sub_answer = answer(llm, sq, [index_text(h.chunk) for h in hits], settings.max_answer_tokens,
                                        usage=result.llm, cancel=cancel)[0].text
                sub_summary = summarize(sub_answer, SUB_ANSWER_SUMMARY_TOKENS)
            for h in hits:
                if h.chunk.id not in sources or sources[h.chunk.id].score < h.score:
                    sources[h.chunk.id] = h.source()
            subs.append({"question": sq, "kg_chunk": piece, "answer": sub_answer, "summary": sub_summary,
                         "sources": [{"document": h.chunk.document, "chunk_id": h.chunk.id, "score": round(h.score, 6)} for h in hits]})
        progress("final answer", steps - 1, steps)
        with timer("sub_answers_summary"):
            joined = "\n".join(f"{s['question']} {s['summary']}" for s in subs)
            sub_answers_summary = summarize(joined, SUB_ANSWERS_SUMMARY_TOKENS)
        # (E) final answer (k2rag: the question's best passages first)
        passages = passages or []  # k2rag: the question's best passages (the paper's flow reads none)
        reader_trace = {}
        with timer("final_answer"):
            summaries = [b for b in (kg_summary, sub_answers_summary) if b]
            if reader is not None:
                reading = reader.open(question, passages, summaries, usage=result.llm, on_token=ctx.on_token, cancel=cancel)
                final, context, reader_trace = reading.answer, reading.context, {"reader": reading.trace}
                result.verdict = reading.verdict
            else:
                completion, context = answer(llm, question, [index_text(h.chunk) for h in passages] + summaries,
                                             settings.max_answer_tokens, usage=result.llm, on_token=ctx.on_token,
                                             cancel=cancel)
                final = completion.text
        progress("final answer", steps, steps)
        result.answer = final
        first = [h.source() for h in passages]  # what the answer read first, then the rest
        shown = {h.chunk.id for h in passages}
        result.sources = first + _merge_sources([v for i, v in sources.items() if i not in shown], kg.sources, settings.top_k)
        result.trace = {
            "graph_source": graph_source, "retrieval_source": retrieval_source, "summarizer": getattr(summarizer, "name", ""),
            **kg.to_trace(), "kg_summary": kg_summary, "sub_questions": subs,
            "sub_answers_summary": sub_answers_summary,
            "final_passages": [{"document": h.chunk.document, "chunk_id": h.chunk.id, "score": round(h.score, 6)}
                               for h in passages],
            "final_context": context, **reader_trace,
        }


def _one_line(text: str) -> str:
    line = next((ln.strip() for ln in text.strip().splitlines() if ln.strip()), "")
    return line.strip(" \"'-*").removeprefix("Sub-question:").strip()[:300]


def _merge_sources(retrieved: list[Source], kg_sources: list[Source], k: int) -> list[Source]:
    """Retrieved passages first (best score first), then KG provenance not already listed."""
    retrieved.sort(key=lambda s: (-s.score, s.chunk_id))
    seen = {s.chunk_id for s in retrieved}
    extra = [s for s in kg_sources if s.chunk_id not in seen]
    return retrieved[: 2 * k] + extra[:k]
