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
   by more than the calibration's ``claim_margin`` (the average separated the gold answers better than the weakest
   claim, with gold and with retrieved evidence: one badly retrieved claim does not decide).
   The decision is what the evidence changes (the claim's own prior is subtracted, so no
   wording or base-rate bias decides it); how well it separates the gold answers (AUC) is in
   docs/eval/reader/. The checker may be a larger model than the answering one
   (Settings.check_llm).
4. **The form a person asks in** (forms.py): a request is read as what it requests ("Can you
   tell me who …" is not yes/no), a summary request is answered from the corpus summaries
   (``summaries``, summaries.py), an explanation, a list or a comparison get their own
   instruction and length, and each part of a multi-part question is retrieved for and answered
   on its own.
5. **Not in your documents, from the evidence** (support.py measures, k2desk.verdict decides
   with the reading model's calibration): before the model is asked, the question's terms must
   occur in the passages; after a short answer, the question's terms must stand in the sentences
   that hold it, or, when the model checks its answer against the evidence, that check and the
   words' support together, every number the question names among them. Three outcomes (the
   reading's ``verdict``): answered; declined when the passages do not hold the answer or the
   check and the words' support are clearly against it, and the answer then says the documents
   do not say, the closest passages its sources; else shown with a caution and the sentence that
   holds it (the signals disagree, or a number the question names is missing).
   A who-question's answer that names only whom the question names ("Hedda Marchbank" for
   "Who was mayor before Hedda Marchbank?") is declined before the check; one made only of the
   question's words that the check declines ("FTX" for "Which company … kept FTX's books?") is
   asked for once more, the reply barred from beginning as that one did (``_again`` keeps the
   higher-ranked of the two). The decline or caution says why (the verdict's ``reason``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence, Union

from k2desk.methods.base import LLMUsage, Source
from k2desk.methods.forms import DATE_KIND, DEFAULT_ANSWER_KIND, NUMBER_KIND, Form, answer_kind, ask_form
from k2desk.methods.generate import pack_context
from k2desk.methods.question import claims, unknown_outlets
from k2desk.methods.retrieval import Hit
from k2desk.methods.select import select_evidence
from k2desk.methods.support import (
    Support,
    Windows,
    answer_support,
    asked_together,
    coverage,
    date_not_amount,
    linked_support,
    list_support,
    meaning_coverage,
    meaning_support,
    names_only_asked,
    passage_phrases,
    phrase_coverage,
    sentence_windows,
)
from k2desk.progress import CancelToken, Progress, progress_or_noop
from k2desk.prompts import (
    ABSTAIN_ANSWER,
    CLAIM_CHECK_PROMPT,
    CLAIM_NO_EVIDENCE,
    COMPARE_ANSWER_PROMPT,
    EXPLAIN_ANSWER_PROMPT,
    LIST_ANSWER_PROMPT,
    NOT_IN_DOCUMENTS,
    OPEN_ANSWER_PROMPT,
    UNKNOWN_OUTLET_ANSWER,
    VERIFY_PROMPT,
)
from k2desk.runtime.llm import LLM
from k2desk.runtime.summarizer import STOPWORDS
from k2desk.store.sparse import SparseIndex
from k2desk.text.values import completable, normal_values, with_full_date, with_unit
from k2desk.verdict import (
    DEFAULTS,
    OUTCOMES,
    Calibration,
    Signals,
    Verdict,
    close_in_meaning,
    covered,
    declined,
    says_yes,
    short_answer,
    short_outcome,
)

READ_BUDGET = 1000  # tokens of evidence an open answer reads
SUMMARY_BUDGET = 400  # tokens beside them for K²RAG's KG summary and sub-answers
CLAIM_BUDGET = 300  # tokens of evidence per checked claim
CLAIM_PASSAGES = 3  # passages a claim's evidence is selected from
OPEN_ANSWER_TOKENS = 32
# Each form's instruction and answer length (tokens); "factoid" is the name-or-phrase answer.
FORM_PROMPTS = {"factoid": (OPEN_ANSWER_PROMPT, OPEN_ANSWER_TOKENS), "explain": (EXPLAIN_ANSWER_PROMPT, 96),
                "list": (LIST_ANSWER_PROMPT, 80), "compare": (COMPARE_ANSWER_PROMPT, 48)}
PART_PASSAGES = 6  # passages retrieved for each part of a multi-part question
UNIT_STOPWORDS = frozenset(STOPWORDS)  # a word after a number that is no unit ("38 and", "1983 the")
YES_NO = {"yes": ["Yes", "yes"], "no": ["No", "no"]}

ClaimSearch = Callable[[str, str, int], list[Hit]]  # (claim or question, outlet or "", k) -> ranked passages
ClaimEvidence = Callable[[str, list[str]], tuple[str, list[int]]]  # (claim, outlets) -> (evidence, chunk ids)


@dataclass
class Reading:
    answer: str
    form: str  # "open" | "yes_no" | "abstain" | "summary" | "multi"
    context: str = ""
    trace: dict[str, Any] = field(default_factory=dict)
    sources: Optional[list[Source]] = None  # when the reading chose its own (a summary, a multi-part answer)
    verdict: Verdict = field(default_factory=Verdict)  # answered, cautioned or declined, and why


class Reader:
    def __init__(self, llm: Union[LLM, Callable[[], LLM]], sparse: SparseIndex, outlets: Sequence[str] = (),
                 checker: Optional[Callable[[], LLM]] = None, summaries: Optional[Callable[[Form], Reading]] = None,
                 outlet_rule: bool = True, final: Optional[Callable[[], LLM]] = None, verify: bool = False,
                 embed: Optional[Callable[[list[str]], Any]] = None, in_titles: Optional[Callable[[str], bool]] = None,
                 describe: Optional[Callable[[str], str]] = None, calibration: Calibration = DEFAULTS,
                 claim_calibration: Optional[Calibration] = None) -> None:
        self._llm = llm  # the model, or what loads it when a question first needs it (a summary does not)
        self.sparse = sparse
        self.outlets = [o for o in outlets if o]
        self._checker = checker  # loads the model that scores yes/no claims (default: ``llm``)
        self._final = final  # loads the model that writes a final open answer (default: ``llm``)
        self.summaries = summaries  # answers a summary request from the corpus summaries
        self.outlet_rule = outlet_rule  # decline questions naming publishers the collection lacks
        self.in_titles = in_titles  # whether a document's title holds a name (then it is a topic, not a publisher)
        self.verify = verify  # ask the answer's model whether the evidence says it (the calibration's check_min)
        self.embed = embed  # texts → L2-normalized embeddings: the meaning's support (support.meaning_support)
        self.calibration = calibration  # the thresholds of the model that writes and checks answers (k2desk.verdict)
        self.claim_calibration = claim_calibration or calibration  # ... of the model that checks yes/no claims
        # a question → the clause that describes an entity it does not name ("" for none): its words
        # may stand in a sentence linked to the answer's (support.linked_support); None: never
        self.describe = describe

    @property
    def llm(self) -> LLM:
        return self._llm if hasattr(self._llm, "chat") else self._llm()  # type: ignore[operator,return-value]

    @property
    def checker(self) -> LLM:
        return self._checker() if self._checker else self.llm

    @property
    def final_llm(self) -> LLM:
        return self._final() if self._final else self.llm

    def read(self, question: str, hits: Sequence[Hit], claim_search: ClaimSearch, extra_blocks: Sequence[str] = (),
             usage: Optional[LLMUsage] = None, on_token: Optional[Callable[[str], None]] = None,
             cancel: Optional[CancelToken] = None) -> Reading:
        """Answer ``question`` from its ranked passages ``hits`` (and ``extra_blocks`` after
        them, e.g. K²RAG's summaries); ``claim_search`` finds passages for one claim or part."""
        cancel = cancel or CancelToken()
        declined = self.decline(question)
        if declined is not None:
            return declined
        form = ask_form(question)
        if form.kind == "summary" and self.summaries is not None:
            return self.summaries(form)
        if not hits and not any(b.strip() for b in extra_blocks):
            return Reading(ABSTAIN_ANSWER, "abstain", trace={"form": "abstain"}, verdict=declined("no passage matches the question"))
        if form.kind == "multi":
            return self.parts(form, claim_search, usage, cancel)
        if form.kind == "yes_no":
            reading = self.yes_no(form.text, self.passages_for_claims(claim_search), usage, cancel)
        else:
            reading = self.open(question, hits, extra_blocks, usage, on_token, cancel, form=form)
        reading.trace["asked"] = form.to_trace()
        return reading

    def parts(self, form: Form, search: ClaimSearch, usage: Optional[LLMUsage] = None,
              cancel: Optional[CancelToken] = None) -> Reading:
        """Each part of a multi-part question retrieved for and answered on its own, one line each."""
        lines, traces, sources, contexts = [], [], {}, []
        for part in form.parts:
            (cancel or CancelToken()).check()
            hits = search(part.text, "", PART_PASSAGES)
            reading = self.read(part.text, hits, search, usage=usage, cancel=cancel)
            lines.append(f"{part.text} {reading.answer}")
            traces.append({"question": part.text, "answer": reading.answer, **reading.trace})
            contexts.append(reading.context)
            for s in reading.sources if reading.sources is not None else [h.source() for h in hits]:
                sources.setdefault(s.chunk_id, s)
        return Reading("\n".join(lines), "multi", "\n\n".join(c for c in contexts if c),
                       {"form": "multi", "asked": form.to_trace(), "parts": traces}, list(sources.values()))

    def decline(self, question: str) -> Optional[Reading]:
        """The abstention owed before any retrieval: the question names publishers the
        collection does not hold. None when there is no such reason."""
        unknown = unknown_outlets(question, self.outlets, self.in_titles) if self.outlet_rule else []
        if not unknown:
            return None
        text = UNKNOWN_OUTLET_ANSWER.format(outlets=_join(unknown))
        return Reading(text, "abstain", trace={"form": "abstain", "unknown_outlets": unknown},
                       verdict=declined(f"no document in this collection is from {_join(unknown)}", settled=True))

    # -- open questions ------------------------------------------------------------------
    def open(self, question: str, hits: Sequence[Hit], extra_blocks: Sequence[str] = (), usage: Optional[LLMUsage] = None,
             on_token: Optional[Callable[[str], None]] = None, cancel: Optional[CancelToken] = None,
             form: Optional[Form] = None, check: bool = True) -> Reading:
        """The answer in the question's form (a name or short phrase, an explanation, a list, a
        comparison) from the question's best sentences (then ``extra_blocks``); with ``check``,
        "not in your documents" when the passages do not support one (support.py)."""
        form = form or ask_form(question)
        kind = form.kind if form.kind in FORM_PROMPTS else "factoid"
        asked = form.text
        trace: dict[str, Any] = {"form": "open", "kind": kind}
        windows = sentence_windows(hits, self.sparse) if check and hits else None  # read once for both checks
        if check and hits:
            declined = self.not_supported(form, hits, trace, windows)
            if declined is not None:
                return declined
        prompt, max_tokens = FORM_PROMPTS[kind]
        llm = self.final_llm if check else self.llm  # a checked answer is one a person reads
        blocks = select_evidence(asked, hits, self.sparse, llm.count_tokens, READ_BUDGET) if hits else []
        blocks += [b for b in extra_blocks if b.strip()]
        wanted = answer_kind(asked)
        messages = _open_messages(prompt, "", asked, wanted)
        budget = max(llm.budget(messages, max_tokens), 0)
        context, _ = pack_context(llm, blocks, min(budget, READ_BUDGET + (SUMMARY_BUDGET if extra_blocks else 0)))
        messages = _open_messages(prompt, context, asked, wanted)
        completion = llm.chat(messages, max_tokens=max_tokens, usage=usage, on_token=on_token, cancel=cancel,
                              stop=["\n"] if kind != "list" else ["\n\n"])
        reply = completion.text.strip()
        text = reply or ABSTAIN_ANSWER
        dated = wanted == DATE_KIND
        trace["evidence_tokens"] = llm.count_tokens(context)
        if check and says_nothing(text):  # "None", "Not mentioned": the model found no answer in the passages
            return self._not_in_documents({**trace, "candidate": text}, "the passages do not give an answer", context)
        if check and hits and kind == "list" and text != ABSTAIN_ANSWER:
            # a list none of whose items the passages hold is not read from them (the one-score check
            # of a short answer, applied to lists, declined good lists too: docs/eval/abstain/)
            after = list_support(asked, text, hits, self.sparse, windows)
            trace["answer_support"] = after.to_trace()
            if not after.found_answer:
                return self._not_in_documents({**trace, "candidate": text}, "the passages hold none of its items", context)
        sentence = ""  # the one that holds a bare number or part date, read once to complete it
        if kind == "factoid" and hits:
            text, sentence = self._complete(text, hits, context, dates=dated)
        if check and hits and kind == "factoid" and names_only_asked(asked, text):
            # "Hedda Marchbank" for "Who was mayor before Hedda Marchbank?": not what was asked
            return self._not_in_documents({**trace, "candidate": text}, "it names only whom the question names", context)
        if (check and hits and kind == "factoid" and wanted == NUMBER_KIND
                and date_not_amount(text, sentence)):
            # "1978" ("was built in 1978") for "How much did the ferry cost to build?"
            return self._not_in_documents({**trace, "candidate": text}, "it is a date, and the question asks for an amount",
                                          context)
        if check and hits and kind == "factoid" and text != ABSTAIN_ANSWER:
            checked = self._check(asked, text, hits, windows, context, llm, usage, cancel)
            trace.update(checked.to_trace())
            if checked.support.restates and checked.outcome(self.calibration) == "declined":
                # an answer made only of the question's words ("FTX" for "Which company … kept FTX's
                # books clean?") answers nothing: the model answers once more from the same passages,
                # its reply not to begin as that one did (docs/eval/abstain/)
                again = llm.chat(messages, max_tokens=max_tokens, usage=usage, cancel=cancel, stop=["\n"],
                                 avoid=reply).text.strip()
                text, checked = self._again(asked, text, checked, self._complete(again, hits, context, dates=dated)[0],
                                            hits, windows, context, llm, usage, cancel, trace)
            signals = checked.signals()
            cautioned = short_outcome(signals, self.calibration) == "cautioned"
            verdict = short_answer(signals, self.calibration, self._sentence(text, hits, context) if cautioned else "")
            if verdict.declined:
                return self._declined({**trace, "candidate": text}, verdict, context)
            return Reading(text, "open", context, trace, verdict=verdict)
        return Reading(text, "open", context, trace)

    def _again(self, question: str, text: str, checked: "Checked", again: str, hits: Sequence[Hit],
               windows: Optional[Windows], context: str, llm: LLM, usage: Optional[LLMUsage],
               cancel: Optional[CancelToken], trace: dict[str, Any]) -> tuple[str, "Checked"]:
        """The answer of two that the signals rank higher: ``again`` (the model's answer asked once
        more after a restating one) is checked on ``context`` and replaces ``text`` when its outcome
        ranks above ``checked``'s and it does not restate the question itself; the trace keeps it
        under "again", and the first answer under "first"."""
        trace["again"] = {"candidate": again}
        if not again or says_nothing(again) or normal_values(again).lower() == normal_values(text).lower():
            return text, checked
        second = self._check(question, again, hits, windows, context, llm, usage, cancel)
        trace["again"].update(second.to_trace())
        if second.rank(self.calibration) <= checked.rank(self.calibration) or second.support.restates:
            return text, checked
        trace.setdefault("first", {"candidate": text, **checked.to_trace()})
        trace.update(second.to_trace(), read="again")
        return again, second

    @staticmethod
    def _sentence(answer: str, hits: Sequence[Hit], context: str) -> str:
        """The sentence that holds ``answer``: from a passage (they keep their lines: a sheet's row,
        a photo's line), else from the packed ``context`` (which joins them)."""
        return next((found for found in (evidence_sentence(h.chunk.text, answer) for h in hits) if found),
                    evidence_sentence(context, answer))

    @classmethod
    def _complete(cls, answer: str, hits: Sequence[Hit], context: str, dates: bool = False) -> tuple[str, str]:
        """A bare amount with the unit its sentence gives it ("380" → "380 euros"); with ``dates``
        (the question asks when), a year or a month with the whole date its sentence gives ("2009"
        → "12 September 2009"; text/values.py). With the sentence read ("" when none was looked
        for: a name or a phrase), which the year rule reads too."""
        if not completable(answer, dates):  # a name or a phrase: no sentence to look for
            return answer, ""
        sentence = cls._sentence(answer, hits, context)
        completed = with_unit(answer, sentence, UNIT_STOPWORDS)
        return (with_full_date(completed, sentence) if dates else completed), sentence

    def _check(self, question: str, answer: str, hits: Sequence[Hit], windows: Optional[Windows], context: str,
               llm: LLM, usage: Optional[LLMUsage], cancel: Optional[CancelToken]) -> "Checked":
        """The signals on a short ``answer``: its words' support, its meaning's, the model's check."""
        after = answer_support(question, answer, hits, self.sparse, windows)
        description = self.describe(question) if self.describe is not None else ""
        if description:  # "Who chairs [the cooperative that …]?": the description may stand beside the link
            after = linked_support(question, answer, after, hits, self.sparse, description)
        meaning = meaning_support(question, after, self.embed) if self.embed is not None else None
        verify = self._verify(llm, context, question, answer, usage, cancel) if self.verify else None
        together = asked_together(question, self.sparse, windows if windows is not None else
                                  sentence_windows(hits, self.sparse))
        return Checked(after, verify, meaning, together)

    @staticmethod
    def _verify(llm: LLM, context: str, question: str, candidate: str, usage: Optional[LLMUsage],
                cancel: Optional[CancelToken]) -> float:
        """logit("Yes") - logit("No"): does ``context`` say that ``candidate`` answers ``question``?"""
        messages = [{"role": "user", "content": VERIFY_PROMPT.format(context=context, question=question, answer=candidate)}]
        scores = llm.first_token_logits(messages, YES_NO, usage=usage, cancel=cancel)
        return scores["yes"] - scores["no"]

    def not_supported(self, form: Form, hits: Sequence[Hit], trace: Optional[dict[str, Any]] = None,
                      windows: Optional[Windows] = None) -> Optional[Reading]:
        """"Not in your documents" before any model call, when the passages do not mention what
        the question asks about (the calibration's coverage); None when they may answer it. ``trace``
        receives the coverage either way."""
        trace = trace if trace is not None else {"form": "open", "kind": form.kind}
        windows = windows if windows is not None else sentence_windows(hits, self.sparse)
        if form.sides:  # a comparison: a fact on each side it names, whatever word compares them
            trace["sides"] = {}
            phrases: list[list[str]] = []  # the passages' phrases, read once and only when a side needs them

            def side_meaning(side: str) -> float:  # "the ferry service" for the passages' "the ferry"
                if not phrases:
                    phrases.append(passage_phrases(windows))
                return phrase_coverage(side, phrases[0], self.embed)

            for side in form.sides:
                why, score = self._uncovered(side, hits, trace["sides"].setdefault(side, {}), windows, side_meaning, True)
                if why:
                    return self._not_in_documents(trace, why, signals=Signals(coverage=score))
            return None
        why, score = self._uncovered(form.text, hits, trace, windows, lambda text: meaning_coverage(text, windows, self.embed))
        return self._not_in_documents(trace, why, signals=Signals(coverage=score)) if why else None

    def _uncovered(self, text: str, hits: Sequence[Hit], trace: dict[str, Any], windows: Windows,
                   meaning: Callable[[str], float], side: bool = False) -> tuple[str, float]:
        """Why the passages do not mention what ``text`` asks about ("" when they do): its words'
        coverage, else (with an embedder) ``meaning(text)`` (``side``: a comparison's side), each
        against the calibration; with the words' coverage. ``trace`` receives both."""
        before = coverage(text, hits, self.sparse, windows)
        trace["coverage"] = before.to_trace()
        if covered(before.score, self.calibration):
            return "", before.score
        if self.embed is not None:  # other words, the same meaning ("the boss" for "managing director")
            close = meaning(text)
            trace["coverage_meaning"] = round(close, 4)
            if close_in_meaning(close, self.calibration, side):
                return "", before.score
        return "the passages do not mention " + ", ".join(before.missing), before.score

    def _not_in_documents(self, trace: dict[str, Any], reason: str, context: str = "",
                          signals: Optional[Signals] = None) -> Reading:
        return self._declined(trace, declined(reason, signals, self.calibration.label), context)

    @staticmethod
    def _declined(trace: dict[str, Any], verdict: Verdict, context: str = "") -> Reading:
        """"Not in your documents", the closest passages its sources, with the ``verdict`` saying why."""
        return Reading(NOT_IN_DOCUMENTS, "abstain", context, {**trace, "form": "abstain"}, verdict=verdict)

    # -- yes/no questions ----------------------------------------------------------------
    def passages_for_claims(self, claim_search: ClaimSearch) -> ClaimEvidence:
        """A claim's evidence from the collection: the best passages of each outlet it names
        (of any document when it names none), cut to their best sentences."""
        def evidence(claim: str, outlets: list[str]) -> tuple[str, list[int]]:
            found = _merge([claim_search(claim, outlet, CLAIM_PASSAGES)[:CLAIM_PASSAGES] for outlet in outlets or [""]])
            text = "\n\n".join(select_evidence(claim, found, self.sparse, self.checker.count_tokens, CLAIM_BUDGET))
            return text, [h.chunk.id for h in found]
        return evidence

    def yes_no(self, question: str, evidence: ClaimEvidence, usage: Optional[LLMUsage] = None,
               cancel: Optional[CancelToken] = None, progress: Optional[Progress] = None) -> Reading:
        """"Yes." when the evidence supports the question's claims (on average, by more than
        the checker's calibrated ``claim_margin``), else "No."; ``progress`` hears of each claim."""
        cancel = cancel or CancelToken()
        progress = progress_or_noop(progress)
        checks = []
        contexts = []
        split = claims(question, self.outlets)
        for n, (outlets, claim) in enumerate(split):
            progress(f"checking claim {n + 1} of {len(split)}", n, len(split))
            cancel.check()
            context, chunk_ids = evidence(claim, outlets)
            with_evidence = self._score(context or CLAIM_NO_EVIDENCE, claim, usage, cancel)
            prior = self._score(CLAIM_NO_EVIDENCE, claim, usage, cancel)
            checks.append({"claim": claim, "outlets": outlets, "score": round(with_evidence - prior, 4),
                           "with_evidence": round(with_evidence, 4), "prior": round(prior, 4),
                           "chunk_ids": chunk_ids})
            contexts.append(context)
        progress("checking the claims", len(split), len(split))
        support = sum(c["score"] for c in checks) / len(checks) if checks else 0.0
        cal = self.claim_calibration
        return Reading("Yes." if says_yes(support, cal) else "No.", "yes_no", "\n\n".join(c for c in contexts if c),
                       {"form": "yes_no", "checker": self.checker.name, "support": round(support, 4),
                        "margin": cal.claim_margin, "claims": checks},
                       verdict=Verdict(signals=Signals(claim_support=support), calibration=cal.label))

    def _score(self, context: str, claim: str, usage: Optional[LLMUsage], cancel: CancelToken) -> float:
        """logit("Yes") − logit("No") for the claim over ``context``."""
        messages = [{"role": "user", "content": CLAIM_CHECK_PROMPT.format(context=context, claim=claim)}]
        scores = self.checker.first_token_logits(messages, YES_NO, usage=usage, cancel=cancel)
        return scores["yes"] - scores["no"]


@dataclass
class Checked:
    """The signals on one short answer (``signals`` for k2desk.verdict, which decides)."""
    support: Support
    verify: Optional[float] = None
    meaning: Optional[float] = None
    together: Optional[float] = None  # the best window's share of the question's terms (support.asked_together)

    def signals(self) -> Signals:
        s = self.support
        return Signals(support=s.score, verify=self.verify, meaning=self.meaning, together=self.together,
                       found_answer=s.found_answer, restates=s.restates, missing=list(s.missing),
                       direct_missing=s.direct_missing, missing_values=list(s.missing_values))

    def outcome(self, cal: Calibration) -> str:
        return short_outcome(self.signals(), cal)

    def rank(self, cal: Calibration) -> int:
        return OUTCOMES.index(self.outcome(cal))

    def to_trace(self) -> dict[str, Any]:
        out: dict[str, Any] = {"answer_support": self.support.to_trace()}
        if self.meaning is not None:
            out["meaning"] = round(self.meaning, 4)
        if self.verify is not None:
            out["verify"] = round(self.verify, 4)
        if self.together is not None:
            out["together"] = round(self.together, 4)
        return out


NOTHING = frozenset({"none", "n a", "na", "unknown", "not mentioned", "not specified", "not stated", "not given",
                     "not provided", "not available", "no answer", "nothing", "not applicable"})


def says_nothing(answer: str) -> bool:
    """Whether a model's answer is a way of saying there is none ("None.", "N/A", "Not mentioned")."""
    return " ".join("".join(c if c.isalnum() else " " for c in answer.lower()).split()) in NOTHING


_SENTENCE_END = re.compile(r"(?<=\.)\s+|\n")


def evidence_sentence(context: str, answer: str, limit: int = 300) -> str:
    """The sentence of ``context`` that holds ``answer`` (case-insensitive, values in their normal
    form: "7 minutes" is held by "seven minutes"; a line of a sheet or a slide is a sentence), cut
    to ``limit`` characters; "" when the context does not hold it."""
    wanted = " ".join(normal_values(answer).lower().split())
    if not wanted:
        return ""
    for part in _SENTENCE_END.split(context):
        sentence = " ".join(part.split())
        if wanted in " ".join(normal_values(sentence).lower().split()):
            return sentence if len(sentence) <= limit else sentence[: limit - 1] + "…"
    return ""


def _open_messages(prompt: str, context: str, question: str, answer: str = DEFAULT_ANSWER_KIND) -> list[dict[str, str]]:
    return [{"role": "user", "content": prompt.format(context=context, question=question, answer=answer)}]


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
