"""What a question's own wording says about the answer it wants, read without a model.

* ``answer_form``: "yes_no" for a true polar question ("Does …?", "Between A and B, was there
  …?"), "open" otherwise (forms.py reads the form: a request such as "Can you summarize …?"
  is not polar, nor is one that offers its own alternatives, "…, or are they aligned?").
* ``named_outlets``: the publishers a question says its facts come from ("an article by The New
  York Times", "a 'TechCrunch' report", "as reported by The Verge"). When a collection records
  its documents' outlets and the question names one it does not hold, the documents cannot
  answer it, and the assistant says so instead of answering from another outlet's article.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Optional

from k2desk.methods.forms import ask_form

AUX = r"(?:does|did|do|is|was|were|are|has|have|had|can|could|would|will|should)"


def answer_form(question: str) -> str:
    """"yes_no" or "open": how the reader answers (forms.ask_form reads the question's form)."""
    return ask_form(question).answer_form


# An outlet is named as the author of an article/report: "(article|report|piece…) by/from/in X",
# "X article/report", "reported/covered/discussed by X", "according to X".
_NAME = r"((?:[Tt]he\s+)?['‘\"“]?[A-Z][\w&.\-]*(?:\s+(?:[A-Z][\w&.\-]*|of|&))*['’\"”]?)"
_DOC = r"(?:article|articles|report|reports|piece|story|review|coverage|post|one|another)"
_NOT_POSSESSIVE = r"(?![\w&.\-]|\s*['’]s\b|['’](?!\w)|\s+[A-Z])"  # "a report on Google's …" names a topic, not an outlet
_OUTLET_PATTERNS = [
    re.compile(rf"\b{_DOC}\s+(?:by|from|in)\s+{_NAME}{_NOT_POSSESSIVE}"),
    re.compile(rf"\b(?:article|another|one)\s+on\s+{_NAME}{_NOT_POSSESSIVE}"
               r"(?=\s+(?:about|discussing|regarding|concerning|detailing|covering|that|and)\b|\s*[,.?]|\s*$)"),
    re.compile(rf"\b(?:reported|covered|discussed|published|featured)\s+(?:by|in)\s+{_NAME}{_NOT_POSSESSIVE}"),
    re.compile(rf"\b(?:a|an|the|both|two)\s+{_NAME}\s+{_DOC}\b"),
]
_NOT_OUTLETS = {"the", "a", "an", "both", "another", "other", "same", "second", "first", "former", "latter",
                "january", "february", "march", "april", "may", "june", "july", "august", "september",
                "october", "november", "december"}


def _clean(name: str) -> str:
    name = name.strip(" '‘’\"“”.,")
    return re.sub(r"^(?:[Tt]he)\s+", "", name).strip()


def named_outlets(question: str) -> list[str]:
    """The publishers the question names as its sources, in order, without "The"."""
    spots: list[tuple[int, str]] = []
    for pattern in _OUTLET_PATTERNS:
        for m in pattern.finditer(question):
            name = _clean(m.group(1))
            if name and name.lower() not in _NOT_OUTLETS:
                spots.append((m.start(1), name))
    found: list[str] = []
    for _, name in sorted(spots):
        if name not in found:
            found.append(name)
    return found


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", name.lower()).strip()


def outlet_known(name: str, outlets: Iterable[str]) -> bool:
    """Whether ``name`` is one of the collection's ``outlets`` (case and "The" ignored; a
    collection outlet such as "Cnbc | World Business News Leader" is known as "CNBC")."""
    key = _key(_clean(name))
    for outlet in outlets:
        whole = _key(_clean(outlet))
        parts = [whole] + [_key(_clean(p)) for p in re.split(r"[|:–—-]", outlet)]
        if key and any(key == p or (p and (key.startswith(p + " ") or p.startswith(key + " "))) for p in parts):
            return True
    return False


def unknown_outlets(question: str, outlets: Iterable[str], in_titles: Optional[Callable[[str], bool]] = None) -> list[str]:
    """The outlets the question names that the collection does not hold (none when the
    collection records no outlet at all: then nothing can be said). A name that a document's
    title holds (``in_titles``) is what a review or an article is about, not its publisher:
    "the Steam Deck OLED review" names the review titled "Steam Deck OLED review: …"."""
    outlets = [o for o in outlets if o]
    if not outlets:
        return []
    return [name for name in named_outlets(question)
            if not outlet_known(name, outlets) and not (in_titles and in_titles(name))]


# A comparison names one claim per article and joins them: "Does A claim X, while B alleges Y,
# and does C also say Z?". Each part is checked against its own article's evidence. "while",
# "whereas", "unlike" join two claims only when the second is attributed to a source of its own
# ("while the Fortune article reports …"); "Did the ferry start running while the observatory
# was being built?" is one temporal claim.
_CLAIM_JOINS = re.compile(
    rf"(\s*(?:,\s*|\s+)(?:while|whereas|and\s+(?:{AUX})\b|in\s+contrast\s+to|contrary\s+to|unlike)\s+)", re.I)
_ATTRIBUTED = re.compile(r"\b(?:article|articles|report|reports|piece|story|coverage|post|source|outlet|"
                         r"(?:says?|claims?|suggests?|reports?|reported|alleges?|argues?|states?|implies?|indicates?|notes?|"
                         r"accuses?|discusses?|highlights?|mentions?|asserts?|contends?|describes?|portrays?))\b", re.I)
_LEAD_AUX = re.compile(rf"^\W*{AUX}\s+", re.I)


def mentioned_outlets(text: str, outlets: Iterable[str]) -> list[str]:
    """The collection ``outlets`` that ``text`` mentions, in order of first mention."""
    found = []
    for outlet in outlets:
        names = {_clean(outlet)} | {_clean(p) for p in re.split(r"[|:–—]", outlet) if _clean(p)}
        spots = [m.start() for n in names for m in re.finditer(rf"(?<!\w){re.escape(n)}(?!\w)", text, re.I)]
        if spots:
            found.append((min(spots), outlet))
    return [o for _, o in sorted(found)]


def claims(question: str, outlets: Iterable[str] = ()) -> list[tuple[list[str], str]]:
    """(outlets, claim) for each part of a polar question joined by "while", "whereas",
    "and does …", "in contrast to"; one part for a question without joins. The outlets are
    those of the collection's ``outlets`` the part mentions (none: any document)."""
    outlets = [o for o in outlets if o]
    body = question.strip().rstrip("?").strip()
    pieces = _CLAIM_JOINS.split(body)  # text, join, text, join, …
    parts = [pieces[0]]
    for join, text in zip(pieces[1::2], pieces[2::2]):
        attributive = re.match(r"\s*,?\s*(?:and|in\s+contrast|contrary)\b", join, re.I)
        if attributive or _ATTRIBUTED.search(text) or mentioned_outlets(text, outlets):
            parts.append(text)
        else:  # a temporal or descriptive "while": the same claim goes on
            parts[-1] += join + text
    parts = [p.strip(" ,;") for p in parts if p and p.strip(" ,;")]
    out = []
    for part in parts:
        text = _LEAD_AUX.sub("", part).strip()
        out.append((mentioned_outlets(part, outlets), text[:1].upper() + text[1:]))
    return out
