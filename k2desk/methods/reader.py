"""The reader: a short answer in the form the question asks for, from the evidence retrieved.

The paper's single generation prompt asks a 0.5B model to do everything at once (decide whether
the passages answer, pick the answer, keep it short); measured here, it abstained on 94 % of
yes/no questions and answered every unanswerable one. The reader splits that work by what the
question's own wording says (question.py):

1. **Abstain from the collection, not from the model.** A question that names publishers the
   collection does not hold ("an article by The Guardian …") is answered "Insufficient
   information." with the reason, without an LLM call; so is a question no passage matches.
2. **Open questions** (who/which/what) get the paper's prompt asking for the name or phrase
   alone, over the question's best sentences (select.py: ~1,000 tokens instead of ~3,000 of
   whole passages).
3. **Yes/no questions** are split into their claims ("Does A say X, while B says Y?"); each claim
   is checked against passages of its own article (its outlet's, when the question names one)
   by the model's first-token score for "Yes" against "No", with the evidence and without it.
   The answer is "Yes" when the evidence moves the model toward "Yes", averaged over the claims,
   by more than ``CLAIM_MARGIN`` (the average separated the gold answers better than the weakest
   claim, with gold and with retrieved evidence: one badly retrieved claim does not decide).
   The decision is what the evidence changes (the claim's own prior is subtracted, so no
   wording or base-rate bias decides it); how well it separates the gold answers (AUC) is in
   docs/eval/reader/. The checker may be a larger model than the answering one
   (Settings.check_llm).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from k2desk.methods.base import LLMUsage
from k2desk.methods.generate import pack_context
from k2desk.methods.question import answer_form, claims, unknown_outlets
from k2desk.methods.retrieval import Hit
from k2desk.methods.select import select_evidence
from k2desk.progress import CancelToken
from k2desk.prompts import ABSTAIN_ANSWER, CLAIM_CHECK_PROMPT, CLAIM_NO_EVIDENCE, OPEN_ANSWER_PROMPT, UNKNOWN_OUTLET_ANSWER
from k2desk.runtime.llm import LLM
from k2desk.store.sparse import SparseIndex

READ_BUDGET = 1000  # tokens of evidence an open answer reads
SUMMARY_BUDGET = 400  # tokens beside them for K²RAG's KG summary and sub-answers
CLAIM_BUDGET = 300  # tokens of evidence per checked claim
CLAIM_PASSAGES = 3  # passages a claim's evidence is selected from
OPEN_ANSWER_TOKENS = 32
YES_NO = {"yes": ["Yes", "yes"], "no": ["No", "no"]}
# How far the evidence must move the checker toward "Yes" (logits against the claims' priors,
# averaged over the claims) for "Yes". Any evidence on the topic moves it some way, so 0 would
# say "Yes" to nearly everything; fitted on held-out MultiHop-RAG dev questions (not the
# 60-question sample), with gold and with retrieved evidence: docs/eval/reader/.
CLAIM_MARGIN = 1.75

ClaimSearch = Callable[[str, str], list[Hit]]  # (claim text, outlet or "") -> ranked passages
ClaimEvidence = Callable[[str, list[str]], tuple[str, list[int]]]  # (claim, outlets) -> (evidence, chunk ids)


@dataclass
class Reading:
    answer: str
    form: str  # "open" | "yes_no" | "abstain"
    context: str = ""
    trace: dict[str, Any] = field(default_factory=dict)


class Reader:
    def __init__(self, llm: LLM, sparse: SparseIndex, outlets: Sequence[str] = (),
                 checker: Optional[Callable[[], LLM]] = None) -> None:
        self.llm = llm
        self.sparse = sparse
        self.outlets = [o for o in outlets if o]
        self._checker = checker  # loads the model that scores yes/no claims (default: ``llm``)

    @property
    def checker(self) -> LLM:
        return self._checker() if self._checker else self.llm

    def read(self, question: str, hits: Sequence[Hit], claim_search: ClaimSearch, extra_blocks: Sequence[str] = (),
             usage: Optional[LLMUsage] = None, on_token: Optional[Callable[[str], None]] = None,
             cancel: Optional[CancelToken] = None) -> Reading:
        """Answer ``question`` from its ranked passages ``hits`` (and ``extra_blocks`` after
        them, e.g. K²RAG's summaries); ``claim_search`` finds passages for one claim."""
        cancel = cancel or CancelToken()
        declined = self.decline(question)
        if declined is not None:
            return declined
        if not hits and not any(b.strip() for b in extra_blocks):
            return Reading(ABSTAIN_ANSWER, "abstain", trace={"form": "abstain", "reason": "no passage matches the question"})
        if answer_form(question) == "yes_no":
            return self.yes_no(question, self.passages_for_claims(claim_search), usage, cancel)
        return self.open(question, hits, extra_blocks, usage, on_token, cancel)

    def decline(self, question: str) -> Optional[Reading]:
        """The abstention owed before any retrieval: the question names publishers the
        collection does not hold. None when there is no such reason."""
        unknown = unknown_outlets(question, self.outlets)
        if not unknown:
            return None
        text = UNKNOWN_OUTLET_ANSWER.format(outlets=_join(unknown))
        return Reading(text, "abstain", trace={"form": "abstain", "unknown_outlets": unknown})

    # -- open questions ------------------------------------------------------------------
    def open(self, question: str, hits: Sequence[Hit], extra_blocks: Sequence[str] = (), usage: Optional[LLMUsage] = None,
             on_token: Optional[Callable[[str], None]] = None, cancel: Optional[CancelToken] = None) -> Reading:
        """A name or short phrase from the question's best sentences (then ``extra_blocks``)."""
        blocks = select_evidence(question, hits, self.sparse, self.llm.count_tokens, READ_BUDGET) if hits else []
        blocks += [b for b in extra_blocks if b.strip()]
        messages = _open_messages("", question)
        budget = max(self.llm.budget(messages, OPEN_ANSWER_TOKENS), 0)
        context, _ = pack_context(self.llm, blocks, min(budget, READ_BUDGET + (SUMMARY_BUDGET if extra_blocks else 0)))
        completion = self.llm.chat(_open_messages(context, question), max_tokens=OPEN_ANSWER_TOKENS, usage=usage,
                                   on_token=on_token, cancel=cancel, stop=["\n"])
        text = completion.text.strip() or ABSTAIN_ANSWER
        return Reading(text, "open", context, {"form": "open", "evidence_tokens": self.llm.count_tokens(context)})

    # -- yes/no questions ----------------------------------------------------------------
    def passages_for_claims(self, claim_search: ClaimSearch) -> ClaimEvidence:
        """A claim's evidence from the collection: the best passages of each outlet it names
        (of any document when it names none), cut to their best sentences."""
        def evidence(claim: str, outlets: list[str]) -> tuple[str, list[int]]:
            found = _merge([claim_search(claim, outlet)[:CLAIM_PASSAGES] for outlet in outlets or [""]])
            text = "\n\n".join(select_evidence(claim, found, self.sparse, self.checker.count_tokens, CLAIM_BUDGET))
            return text, [h.chunk.id for h in found]
        return evidence

    def yes_no(self, question: str, evidence: ClaimEvidence, usage: Optional[LLMUsage] = None,
               cancel: Optional[CancelToken] = None) -> Reading:
        """"Yes." when the evidence supports the question's claims (on average, by more than
        CLAIM_MARGIN), else "No."."""
        cancel = cancel or CancelToken()
        checks = []
        contexts = []
        for outlets, claim in claims(question, self.outlets):
            cancel.check()
            context, chunk_ids = evidence(claim, outlets)
            with_evidence = self._score(context or CLAIM_NO_EVIDENCE, claim, usage, cancel)
            prior = self._score(CLAIM_NO_EVIDENCE, claim, usage, cancel)
            checks.append({"claim": claim, "outlets": outlets, "score": round(with_evidence - prior, 4),
                           "with_evidence": round(with_evidence, 4), "prior": round(prior, 4),
                           "chunk_ids": chunk_ids})
            contexts.append(context)
        support = sum(c["score"] for c in checks) / len(checks) if checks else 0.0
        supported = support > CLAIM_MARGIN
        return Reading("Yes." if supported else "No.", "yes_no", "\n\n".join(c for c in contexts if c),
                       {"form": "yes_no", "checker": self.checker.name, "support": round(support, 4),
                        "margin": CLAIM_MARGIN, "claims": checks})

    def _score(self, context: str, claim: str, usage: Optional[LLMUsage], cancel: CancelToken) -> float:
        """logit("Yes") − logit("No") for the claim over ``context``."""
        messages = [{"role": "user", "content": CLAIM_CHECK_PROMPT.format(context=context, claim=claim)}]
        scores = self.checker.first_token_logits(messages, YES_NO, usage=usage, cancel=cancel)
        return scores["yes"] - scores["no"]


def _open_messages(context: str, question: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": OPEN_ANSWER_PROMPT.format(context=context, question=question)}]


def _merge(rankings: Sequence[Sequence[Hit]]) -> list[Hit]:
    """The rankings interleaved (first of each, then second of each, …), each passage once."""
    out: list[Hit] = []
    seen: set[int] = set()
    for i in range(max((len(r) for r in rankings), default=0)):
        for ranking in rankings:
            if i < len(ranking) and ranking[i].chunk.id not in seen:
                seen.add(ranking[i].chunk.id)
                out.append(ranking[i])
    return out


def _join(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
