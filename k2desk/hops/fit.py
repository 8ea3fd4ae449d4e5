"""Whether a question read once was answered with something that fits it (issue 55's second chance).

A bridge question read once fails in two ways the answer itself shows. Either the reader declines
("not in your documents": the support check misses the first hop's words in the last hop's
sentence), or it answers the entity in the middle, which then rarely fits what was asked: "How strong is the
ale that …?" answered "Lantern Ale" (no amount for a "how strong"), "Who founded the sailing
school whose …?" answered "Skellmouth Sailing School" (the description's own noun), or an answer
whose sentences hold the description's words and lack the rest of the question's (the reader's
support check). Read from spaCy's parse and entities and the support check's terms (no word
lists); the caller reads such a question again hop by hop.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from k2desk.methods.support import lemmatized
from k2desk.types import Answer

# entity labels of spaCy's English pipeline that are amounts or times
AMOUNTS = frozenset({"DATE", "TIME", "CARDINAL", "QUANTITY", "MONEY", "PERCENT", "ORDINAL"})
# the calendar's and the clock's units: a wh-word on one asks for a time ("what year", "which
# month"; the small pipeline tags a bare "year" as no entity)
TIME_UNITS = frozenset("year month week day date time hour century decade season".split())


def asks_amount(doc) -> bool:
    """Whether the question asks for an amount or a time: "how" on an adjective ("How many /
    much / old / tall / strong …"; not "how often", "how does it work"), the question's own "when"
    (not a clause's), or a wh-word on a unit of time ("what year", "which month")."""
    for t in doc:
        if t.lower_ == "how" and t.head is not t and t.head.pos_ == "ADJ" and t.head.i == t.i + 1:
            return True
        if t.lower_ == "when" and t.tag_ == "WRB" and t.i + 1 < len(doc) and doc[t.i + 1].pos_ in ("AUX", "VERB"):
            # the question's "when" is followed by its inverted auxiliary ("When was …", "Since
            # when has …"); a clause's is not ("When the changes were signed, which …", "… when
            # Altman was ousted")
            return t.i == 0 or doc[t.i - 1].pos_ in ("ADP", "SCONJ", "CCONJ", "PUNCT")
        if t.lower_ in ("what", "which") and t.dep_ == "det" and (t.head.lemma_.lower() in TIME_UNITS
                                                                  or t.head.ent_type_ in ("DATE", "TIME")):
            return True
    return False


def unfit(question_doc, answer: Answer, nlp: Any, description_noun: Optional[str] = None,
          description: str = "", terms: Optional[Callable[[str], list[str]]] = None) -> str:
    """Why ``answer`` does not fit the parsed question ("" when it does): "declined", "no
    amount" (an amount or a time was asked, none given), "the description" (the answer holds
    the noun of the question's description, ``description_noun``: it names the entity in the
    middle), or "the description's answer" (``described_only``)."""
    why = unfit_text(question_doc, answer.outcome, answer.answer, nlp, description_noun)
    if not why and description and terms is not None:
        signals = answer.verdict.signals
        # the terms missing beside the answer itself, not those a linked sentence holds (support.linked_support)
        missing = signals.direct_missing or signals.missing if signals.support is not None else None
        if missing and described_only(missing, description, description_noun or "", terms):
            return "the description's answer"
    return why


def described_only(missing: list[str], description: str, noun: str, terms: Callable[[str], list[str]]) -> bool:
    """Whether the sentences that hold the answer hold the description and not the rest of the
    question: of the question's terms they lack (the reader's support check, ``missing``), some
    are outside the description and none inside it but its own noun ("Who runs the shop where
    tickets … are sold?" answered "Gribble's Fish Shed" from "tickets are sold at Gribble's Fish
    Shed": "run" and "shop" lacking). Such an answer names what the description stands for."""
    inside = set(terms(lemmatized(description)))
    own = set(terms(lemmatized(noun))) if noun else set()
    outside = [m for m in missing if m not in inside]
    return bool(outside) and all(m in own for m in missing if m in inside)


def unfit_text(question_doc, outcome: str, answer: str, nlp: Any, description_noun: Optional[str] = None) -> str:
    """``unfit`` from an answer's outcome and text (a kept evaluation row)."""
    if outcome == "declined":
        return "declined"
    words = nlp(" ".join(answer.split()))  # parsed once for both checks
    if asks_amount(question_doc) and not any(t.like_num or t.ent_type_ in AMOUNTS for t in words):
        return "no amount"
    if description_noun and description_noun.lower() in {t.lower_ for t in words}:
        return "the description"
    return ""
