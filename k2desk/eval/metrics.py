"""Answer-quality metrics: pure functions of a prediction and a gold answer (no engine, no model).

Definitions (also written into every report):

- ``normalize_answer``: SQuAD's — lowercase, drop punctuation (ASCII and Unicode), drop the
  articles a/an/the, collapse whitespace. "Sam Bankman-Fried" → "sam bankmanfried".
- ``exact_match``: 1 when the normalized strings are equal, else 0.
- ``token_f1``: SQuAD token F1 over normalized tokens (bag of words with counts); when either
  side has no tokens, 1 if both are empty else 0.
- abstention: the normalized prediction is empty or contains one of ``ABSTAIN_PHRASES``
  (normalized in turn: "insufficient information", "I don't know", "cannot be determined", the
  CoE apology "I am sorry, I could not find an answer", …).
- accuracy (``judge``), by the kind of question:
  * null (gold normalizes to "insufficient information"): correct iff the prediction abstains;
  * any other question answered with an abstention: wrong;
  * multiple choice: the prediction is mapped to an option (exact normalized match, else a bare
    option letter "B" / "(B)" / "B)", else the option with the highest token F1 > 0; ties: the
    first) and is correct iff that is the gold option;
  * Yes/No (the normalized gold's first word is "yes" or "no"): correct iff the first "yes"/"no"
    word of the normalized prediction has the same polarity;
  * otherwise (KG-RAG paper): correct iff prediction and gold share at least one normalized word.
- content words (``content_words``): the normalized words (``normalize_answer``, each dash read
  as a space first, so "Bankman-Fried" is "bankman fried"; a number word up to twenty as its
  digits, so "seven" is "7"; "%" and "per cent" as "percent") that are not in ``STOP_WORDS``, a
  small English list of function words, or a title before a name ("Dr", "Mrs"); numbers are
  content words.
- gold-token recall (``gold_token_recall``): the share of the gold's distinct content words that
  are among the prediction's words (normalized the same way); a gold without content words
  scores its exact match.
- strict accuracy (``Judgement.strict``): as ``judge``'s accuracy for null, multiple-choice and
  Yes/No questions and for abstentions; an open answer is right iff it holds EVERY content word
  of the gold (gold-token recall 1). "Abdelkarim Erradi University" for "Qatar University"
  shares a word (correct) but lacks "qatar" (not strict).
- hallucinated: the prediction does not abstain and is not correct ("answered, but wrong";
  for a null question any non-abstaining answer). Rates in the report divide by all questions N:
  accuracy + hallucination rate + (abstained on an answerable question) = 1.
- ``answer_similarity`` (K²RAG eq. 6): cosine of the two embedding vectors; 0 when one is zero.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Iterable, Optional, Sequence

import numpy as np

from k2desk.text.values import normal_values

NULL_ANSWER = "Insufficient information."
ABSTAIN_PHRASES = (
    "insufficient information",
    "not enough information",
    "no information",
    "I don't know",
    "I do not know",
    "cannot be determined",
    "can not be determined",
    "cannot determine",
    "unable to determine",
    "I am sorry, I could not find an answer",
    "could not find an answer",
    "cannot answer",
    "not in your documents",  # the reader's decline (prompts.NOT_IN_DOCUMENTS)
    "unable to answer",
)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_ASCII_PUNCT = frozenset(string.punctuation)
_OPTION_LETTER = re.compile(r"^\s*(?:option\s+)?\(?([A-Z])(?:\)|[.:]|\s*$)")
# function words that do not make an answer right (normalized: no apostrophes; a/an/the are
# already gone); negations, yes/no and numbers are not among them
STOP_WORDS = frozenset("""
and or but nor of in on at to for from by with about as into onto than
is are was were be been being am do does did has have had will would can could
it its this that these those he she they them his her their there here
which who whom whose what when where why how i we you me us our your my
""".split())
# the titles written before a name: "Dr. Clara Weissmüller" is answered by "Clara Weissmüller"
HONORIFICS = frozenset("dr mr mrs ms mx prof".split())
_PERCENT = re.compile(r"\s*%|\bper\s+cent\b", re.IGNORECASE)  # "3.5%", "3.5 per cent": "3.5 percent"


def _is_punct(ch: str) -> bool:
    return ch in _ASCII_PUNCT or unicodedata.category(ch).startswith("P")


def normalize_answer(text: Optional[str]) -> str:
    s = (text or "").lower()
    s = "".join(ch for ch in s if not _is_punct(ch))
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


_ABSTAIN_NORMALIZED = tuple(normalize_answer(p) for p in ABSTAIN_PHRASES)


def answer_tokens(text: Optional[str]) -> list[str]:
    return normalize_answer(text).split()


def exact_match(pred: str, gold: str) -> float:
    return float(normalize_answer(pred) == normalize_answer(gold))


def token_f1(pred: str, gold: str) -> float:
    p, g = answer_tokens(pred), answer_tokens(gold)
    if not p or not g:
        return float(p == g)
    common = Counter(p) & Counter(g)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision, recall = same / len(p), same / len(g)
    return 2 * precision * recall / (precision + recall)


def word_overlap(pred: str, gold: str) -> bool:
    """KG-RAG's accuracy test: any normalized word in common."""
    return bool(set(answer_tokens(pred)) & set(answer_tokens(gold)))


def _dashes_as_spaces(text: Optional[str]) -> str:
    return "".join(" " if unicodedata.category(ch) == "Pd" else ch for ch in (text or ""))


def _words(text: Optional[str]) -> list[str]:
    """Normalized words with each dash (Unicode Pd: hyphen, en dash, …) read as a space, values in
    their normal form (text/values.py: "seven" is "7", "€380" is "380 euros") and a percent sign
    as the word "percent"."""
    return normalize_answer(_dashes_as_spaces(_PERCENT.sub(" percent", normal_values(text or "")))).split()


def content_words(text: Optional[str]) -> list[str]:
    """The words of ``text`` that carry content: ``_words`` minus ``STOP_WORDS`` and the titles
    before a name (``HONORIFICS``); numbers stay."""
    return [w for w in _words(text) if w not in STOP_WORDS and w not in HONORIFICS]


def gold_token_recall(pred: str, gold: str) -> float:
    """Share of the gold's distinct content words among the prediction's words; a gold without
    content words scores its exact match."""
    needed = set(content_words(gold))
    if not needed:
        return exact_match(pred, gold)
    return len(needed & set(_words(pred))) / len(needed)


def strict_match(pred: str, gold: str) -> bool:
    """The strict test of an open answer: it holds every content word of the gold."""
    return gold_token_recall(pred, gold) == 1.0


def gold_polarity(gold: str) -> Optional[str]:
    """"yes"/"no" when the normalized gold answer starts with (or is) yes or no, else None."""
    toks = answer_tokens(gold)
    return toks[0] if toks and toks[0] in ("yes", "no") else None


def prediction_polarity(pred: str) -> Optional[str]:
    """The first "yes" or "no" word of the normalized prediction, else None."""
    for tok in answer_tokens(pred):
        if tok in ("yes", "no"):
            return tok
    return None


def is_null_gold(gold: str) -> bool:
    return normalize_answer(gold) == normalize_answer(NULL_ANSWER)


def is_abstention(pred: Optional[str]) -> bool:
    norm = normalize_answer(pred)
    if not norm:
        return True
    padded = f" {norm} "
    return any(f" {phrase} " in padded for phrase in _ABSTAIN_NORMALIZED)


def choose_option(pred: str, options: Sequence[str]) -> Optional[int]:
    """Index of the option a free-text prediction names, or None."""
    norm = normalize_answer(pred)
    if norm:
        for i, opt in enumerate(options):
            if normalize_answer(opt) == norm:
                return i
    m = _OPTION_LETTER.match(pred or "")
    if m and ord(m.group(1)) - 65 < len(options):
        return ord(m.group(1)) - 65
    best, best_f1 = None, 0.0
    for i, opt in enumerate(options):
        f1 = token_f1(pred, opt)
        if f1 > best_f1:
            best, best_f1 = i, f1
    return best


def question_kind(gold: str, options: Optional[Sequence[str]] = None) -> str:
    if is_null_gold(gold):
        return "null"
    if options:
        return "choice"
    if gold_polarity(gold) is not None:
        return "yes_no"
    return "open"


@dataclass
class Judgement:
    kind: str  # null | choice | yes_no | open
    em: float
    f1: float
    correct: bool  # the word-overlap rule (KG-RAG) for open answers: comparable with earlier runs
    abstained: bool
    hallucinated: bool  # not abstained and not ``correct``
    strict: bool  # every gold content word for open answers; otherwise the same as ``correct``
    recall: float  # gold-token recall
    chosen: Optional[int] = None  # the option picked, for multiple choice

    def to_json(self) -> dict:
        return asdict(self)


def judge(
    pred: str,
    gold: str,
    options: Optional[Sequence[str]] = None,
    gold_index: Optional[int] = None,
) -> Judgement:
    """Score one prediction against its gold answer (see the module docstring)."""
    pred = pred or ""
    kind = question_kind(gold, options)
    abstained = is_abstention(pred)
    chosen = None
    if kind == "null":
        correct = abstained
    elif abstained:
        correct = False
    elif kind == "choice":
        chosen = choose_option(pred, options or [])
        if gold_index is not None:
            correct = chosen is not None and chosen == gold_index
        else:
            correct = chosen is not None and exact_match(options[chosen], gold) == 1.0  # type: ignore[index]
    elif kind == "yes_no":
        correct = prediction_polarity(pred) == gold_polarity(gold)
    else:
        correct = word_overlap(pred, gold)
    strict = strict_match(pred, gold) if kind == "open" and not abstained else correct
    return Judgement(
        kind=kind,
        em=exact_match(pred, gold),
        f1=token_f1(pred, gold),
        correct=bool(correct),
        abstained=abstained,
        hallucinated=(not abstained) and not correct,
        strict=bool(strict),
        recall=gold_token_recall(pred, gold),
        chosen=chosen,
    )


def answer_similarity(a: Iterable[float], b: Iterable[float]) -> float:
    """Cosine similarity of two embedding vectors (K²RAG eq. 6)."""
    va = np.asarray(a, dtype=np.float64).ravel()
    vb = np.asarray(b, dtype=np.float64).ravel()
    na, nb = float(np.linalg.norm(va)), float(np.linalg.norm(vb))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return float(np.dot(va, vb) / (na * nb))


def _finite(values: Iterable[Optional[float]]) -> np.ndarray:
    arr = np.asarray([v for v in values if v is not None], dtype=np.float64)
    return arr[np.isfinite(arr)]


def percentile(values: Iterable[Optional[float]], q: float) -> float:
    """numpy's linear percentile over the finite values; NaN when there are none."""
    arr = _finite(values)
    return float(np.percentile(arr, q)) if arr.size else float("nan")


def mean(values: Iterable[Optional[float]]) -> float:
    arr = _finite(values)
    return float(arr.mean()) if arr.size else float("nan")


def std(values: Iterable[Optional[float]], ddof: int = 1) -> float:
    arr = _finite(values)
    return float(arr.std(ddof=ddof)) if arr.size > ddof else float("nan")


def quartiles(values: Iterable[Optional[float]]) -> dict[str, float]:
    """Q1, mean, median and Q3 (numpy percentiles, linear interpolation); NaN when empty."""
    arr = _finite(values)
    if not arr.size:
        nan = float("nan")
        return {"q1": nan, "mean": nan, "median": nan, "q3": nan}
    q1, med, q3 = np.percentile(arr, [25, 50, 75])
    return {"q1": float(q1), "mean": float(arr.mean()), "median": float(med), "q3": float(q3)}


def auc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """Probability that a random positive outscores a random negative (ties count half);
    NaN without both."""
    if not positives or not negatives:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))
