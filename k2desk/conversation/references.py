"""What a message leaves open, read from spaCy's parse (grammar, not word lists): third-person
pronouns ("it", "its", "she"), demonstratives ("that report", "there"), the pro-form "one" with a
determiner ("the second one"), fragments with no verb ("And the treasurer?") and a message that
opens with a coordinating conjunction ("And how long does it take?": it goes on from what came
before). And the names an earlier turn offers to close them."""

from __future__ import annotations

import re
from typing import Any, Optional, Sequence

from k2desk.conversation.turns import Turn
from k2desk.text.values import normal_values

CONTENT_POS = ("NOUN", "PROPN", "VERB", "ADJ", "NUM")
NOT_THINGS = {"PERSON", "DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY"}
NAME_WORDS = 8  # a short answer of at most this many tokens may itself be the antecedent


def parse(nlp, text: str):
    return nlp(text)


def kind_of(t) -> str:
    """The reference a token leaves open: person / person_poss / thing / thing_poss / place /
    demonstrative / one; "" when none."""
    morph = t.morph
    if t.tag_ in ("PRP", "PRP$") and "3" in morph.get("Person") and t.dep_ != "expl":
        poss = t.tag_ == "PRP$" or "Yes" in morph.get("Poss")
        who = "person" if set(morph.get("Gender")) & {"Fem", "Masc"} else "thing"
        return who + ("_poss" if poss else "")
    if "Dem" in morph.get("PronType") and t.tag_ != "EX":
        if t.pos_ == "ADV":
            return "place" if t.dep_ == "advmod" and t.lower_ != "then" else ""
        return "demonstrative"
    if t.lemma_.lower() == "one" and t.pos_ in ("NUM", "NOUN", "PRON") and any(c.dep_ in ("det", "amod") for c in t.children):
        return "one"
    return ""


def is_fragment(doc) -> bool:
    """No verb at all: "And the treasurer?", "What about in 2019?"."""
    return len(doc) > 0 and not any(t.pos_ in ("VERB", "AUX") for t in doc)


def as_written(t, kind: str) -> str:
    """The reference ``t`` (of ``kind_of``'s ``kind``) as written: "its", "that report", "the second one"."""
    doc = t.doc
    if kind == "demonstrative" and t.pos_ == "DET" and t.head.i > t.i:
        return doc[t.i:t.head.i + 1].text
    if kind == "one":  # "the second one": from its determiner
        start = min([c.i for c in t.children if c.dep_ in ("det", "amod") and c.i < t.i] or [t.i])
        return doc[start:t.i + 1].text
    return t.text


def open_references(doc) -> list[str]:
    """The references ``doc`` leaves open, as written ("its", "that report", "ellipsis")."""
    out = [as_written(t, kind) for t in doc if (kind := kind_of(t))]
    if is_fragment(doc):
        out.append("ellipsis")
    elif not out and len(doc) > 1 and doc[0].pos_ == "CCONJ":  # "And how long …": goes on from the last turn
        out.append(f"{doc[0].text} …")
    return out


def content_words(doc) -> set[str]:
    return {t.lemma_.lower() for t in doc if t.pos_ in CONTENT_POS and not t.is_stop and t.is_alpha or t.like_num}


def _without_article(span) -> str:
    words = [t for t in span if not (t.i == span.start and t.pos_ == "DET")]
    return "".join(t.text_with_ws for t in words).strip()


def _thing_of(doc) -> str:
    """The named thing a question is about: its first named entity that is no person, date or
    amount, else its first noun phrase holding a proper noun, else its first noun phrase."""
    for chunk in doc.noun_chunks:
        if any(t.pos_ == "PROPN" for t in chunk) and not all(t.ent_type_ in NOT_THINGS for t in chunk if t.pos_ == "PROPN"):
            return chunk.text
    for e in doc.ents:
        if e.label_ not in NOT_THINGS:
            return e.text
    for chunk in doc.noun_chunks:  # not what the question asks for ("what date", "which team")
        if chunk.root.pos_ in ("NOUN", "PROPN") and not any(t.tag_ in ("WP", "WDT", "WP$") for t in chunk):
            return chunk.text
    return ""


def _person_of(doc) -> str:
    for e in doc.ents:
        if e.label_ == "PERSON":
            return _without_article(e)
    return ""


def _place_of(doc) -> str:
    for e in doc.ents:
        if e.label_ in ("GPE", "LOC", "FAC"):
            return e.text
    return ""


def is_name(doc) -> bool:
    """A short answer made of a name ("Henrike Albers", "Acme Salvage")."""
    words = [t for t in doc if not t.is_punct]
    return 0 < len(words) <= NAME_WORDS and any(t.pos_ == "PROPN" for t in words) and \
        all(t.pos_ in ("PROPN", "DET", "ADP", "CCONJ", "NOUN", "ADJ", "PART") for t in words)


def antecedents(turns: Sequence[Turn], nlp: Any) -> dict[str, str]:
    """The person, thing and place the last turns offer, the latest first: a short answer that
    is a name is what a following pronoun most often means ("Who founded it?" after "Acme"); else
    the last question's subject ("What is its main telescope?" after "When did X open?")."""
    found: dict[str, str] = {}
    for turn in reversed(list(turns)[-2:]):
        answer: Optional[Any] = parse(nlp, turn.answer[:300]) if turn.answer else None
        question = parse(nlp, turn.question)
        if answer is not None and is_name(answer):
            person = _person_of(answer)
            if person or any(t.ent_type_ == "PERSON" for t in answer):
                found.setdefault("person", person or answer.text.strip(" ."))
            elif any(t.ent_type_ and t.ent_type_ not in NOT_THINGS for t in answer) or not _person_of(question):
                found.setdefault("thing", answer.text.strip(" ."))
        for key, value in (("person", _person_of(question)), ("thing", _thing_of(question)),
                           ("place", (_place_of(answer) if answer is not None else "") or _place_of(question))):
            if value:
                found.setdefault(key, value)
        if answer is not None and "person" not in found:
            person = _person_of(answer)
            if person:
                found["person"] = person
    return found


# a source named by the number the answer listed it under: "[2]", "source 2", "passage #3", "the
# second source" (the words the app and the terminal label them with)
_NUMBERED = re.compile(r"\[(\d{1,2})\]|\b(?:source|passage)\s*#?(\d{1,2})\b|\bthe\s+(\w+)\s+(?:source|passage)\b",
                       re.IGNORECASE)
_ORDINAL = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)$")


def numbered_source(message: str) -> Optional[tuple[int, int, int]]:
    """The source of the last answer that ``message`` names by its number ("What does [2] say
    about …", "In source 2, …", "the second source"): (number, start, end of the words that name
    it); None when it names none."""
    for m in _NUMBERED.finditer(message):
        if m.group(3):
            ordinal = _ORDINAL.match(normal_values(m.group(3)).strip())  # "second" is "2nd"
            if not ordinal:
                continue  # "the cited source", "the original source"
            number = int(ordinal.group(1))
        else:
            number = int(m.group(1) or m.group(2))
        if number > 0:
            return number, m.start(), m.end()
    return None
