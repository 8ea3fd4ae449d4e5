"""A fragment completed from the last question's frame, by grammar (spaCy's parse), where the
model's rewrite was refused: "And Google?" after "How much did Amazon invest in Anthropic?" asks
the last question about Google; "And in what year?" after "Where was X founded?" asks "In what
year was X founded?"; "And the salt?" after "How much flour goes into the loaf?" asks "How much
salt goes into the loaf?"; "What about the Kestrel dataset?" after "How many tokens does the
OpenSub corpus contain?" asks it of the Kestrel dataset.

Each completion is a phrase of the fragment put in place of one phrase of the last question, the
rest of the question kept as it was: a name of the same entity label, else a named phrase for a
named phrase, a question phrase for the question phrase, a common noun for the noun asked for.
"" where the frame gives no such place (the message is then asked as typed)."""

from __future__ import annotations

from typing import Any, Optional

from k2desk.conversation.references import is_fragment, is_name, parse

WH_TAGS = ("WDT", "WP", "WP$", "WRB")
_LIFTS = ("det", "advmod", "amod", "npadvmod", "poss")  # "what" in "what year", "how" in "how many …"


def _core(doc) -> Optional[Any]:
    """The fragment's own words: without a leading conjunction, its punctuation, and a "what
    about" / "how about" frame around a phrase (the phrase is then the content)."""
    tokens = [t for t in doc if not t.is_punct]
    while tokens and tokens[0].pos_ == "CCONJ":
        tokens = tokens[1:]
    if len(tokens) >= 3 and tokens[0].tag_ in WH_TAGS and tokens[1].pos_ == "ADP" and \
            any(c.dep_ == "pobj" and c.tag_ not in WH_TAGS for c in tokens[1].children):
        tokens = tokens[2:]
    if not tokens:
        return None
    return doc[tokens[0].i:tokens[-1].i + 1]


def reads_as_fragment(doc) -> bool:
    """No verb, or a short message after "and" whose one verb has no subject, object or auxiliary
    of its own ("and butter?", where the parser reads "butter" as a verb)."""
    if is_fragment(doc):
        return True
    words = [t for t in doc if not t.is_punct]
    return 1 < len(words) <= 3 and words[0].pos_ == "CCONJ" and \
        not any(t.dep_ in ("nsubj", "nsubjpass", "dobj", "attr", "aux", "auxpass") for t in doc)


def _is_wh(span) -> bool:
    return any(t.tag_ in WH_TAGS for t in span)


def _wh_phrase(last) -> Optional[tuple[int, int]]:
    """The last question's fronted question phrase as (start, end) token offsets: "Where", "In
    which year", "How long"; None where it is the question's subject ("Who founded …": a phrase
    put there would leave no subject) or there is none."""
    wh = next((t for t in last if t.tag_ in WH_TAGS), None)
    if wh is None:
        return None
    x = wh
    while x.dep_ in _LIFTS and x.head.i != x.i and x.head.pos_ in ("NOUN", "PROPN", "ADJ", "ADV", "NUM"):
        x = x.head
    if x.dep_ == "pobj" and x.head.pos_ == "ADP":
        x = x.head
    if x.dep_ in ("nsubj", "nsubjpass", "ROOT") or x.i > 2:
        return None
    sub = list(x.subtree)
    return sub[0].i, sub[-1].i + 1


def _asked_noun(last) -> Optional[tuple[int, int]]:
    """The noun the last question asks for, after its question word ("rate" of "What dropout
    rate", "flour" of "How much flour"), with its own modifiers, as (start, end) offsets."""
    for chunk in last.noun_chunks:
        if chunk.root.pos_ != "NOUN" or not _is_wh(chunk):
            continue
        keep = [t for t in chunk if t.i != chunk.root.i and (t.tag_ in WH_TAGS or any(w.tag_ in WH_TAGS for w in t.subtree))]
        start = (max(t.i for t in keep) + 1) if keep else chunk.start
        if start <= chunk.root.i:
            return start, chunk.root.i + 1
    return None


def _named_phrase(last) -> Optional[tuple[int, int]]:
    """The last question's first named phrase that is not what it asks for. A question's final
    verb misread as the phrase's last noun ("How many languages does the X corpus cover?", where
    only "does" is read as a verb) stays out of it."""
    words = [t for t in last if not t.is_punct]
    main_verbs = [t for t in last if t.pos_ in ("VERB", "AUX") and t.lemma_.lower() != "do"]
    for chunk in last.noun_chunks:
        if any(t.pos_ == "PROPN" for t in chunk) and not _is_wh(chunk):
            end = chunk.end
            if len(chunk) > 1 and words and chunk.end - 1 == words[-1].i and not main_verbs:
                end -= 1
            return chunk.start, end
    return None


def _put(last, start: int, end: int, text: str) -> str:
    before = last[:start].text_with_ws if start else ""
    after = last[end:].text_with_ws if end < len(last) else ""
    out = (before + text + (" " if after and after[:1] not in ("?", ".", ",") else "") + after.lstrip()).strip()
    out = out[0].upper() + out[1:] if out else out
    return out if out.endswith("?") else out.rstrip(".") + "?"


def _without_det(span) -> str:
    tokens = [t for t in span if not (t.i == span.start and t.pos_ == "DET")]
    return "".join(t.text_with_ws for t in tokens).strip()


def swap_name(core, last) -> str:
    """A fragment that is one name (or one number) put in place of the last question's first name
    of the same entity label (its last number): "And Google?" -> "How much did Google invest in
    Anthropic?", "What about 2022?" -> "What was the revenue in 2022?"."""
    words = [t for t in core if t.pos_ not in ("DET", "ADP")]
    if len(words) == 1 and words[0].like_num:
        number = next((t for t in reversed(last) if t.like_num), None)
        if number is None:
            return ""
        return last.text[:number.idx] + words[0].text + last.text[number.idx + len(number.text):]
    ents = [e for e in core.doc.ents if e.end > core.start and e.start < core.end]
    if len(ents) != 1 or any(t.i not in range(ents[0].start, ents[0].end) for t in words):
        return ""  # a phrase with words of its own ("the Tessel benchmark") goes in whole
    name = ents[0]
    inside = [t for t in words if t.i in range(name.start, name.end)]
    if not inside:
        return ""
    text = core.doc[inside[0].i:inside[-1].i + 1].text
    same = next((e for e in last.ents if e.label_ == name.label_ and e.text != text), None)
    if same is None:
        return ""
    return last.text[:same.start_char] + text + last.text[same.end_char:]


def _of_answer(last, core, answer) -> str:
    """A question phrase asked of the last question's answer where that question asked for its
    subject: "Who founded the X?" answered "Eliza Marsh", then "In what year?" -> "In what year
    did Eliza Marsh found the X?"."""
    wh = next((t for t in last if t.tag_ in WH_TAGS), None)
    if wh is None or wh.dep_ != "nsubj" or wh.head.dep_ != "ROOT" or not is_name(answer):
        return ""
    verb = wh.head
    aux = {"VBD": "did", "VBZ": "does", "VBP": "do"}.get(verb.tag_)
    if aux is None or verb.pos_ != "VERB":
        return ""
    rest = last[verb.i + 1:].text if verb.i + 1 < len(last) else ""
    return _put(last.doc, 0, len(last), f"{core.text} {aux} {answer.text.strip(' .')} {verb.lemma_} {rest}".strip())


def complete_fragment(doc, last_question: str, nlp, last_answer: str = "") -> str:
    """The fragment ``doc`` completed from ``last_question`` and its answer (see the module's
    doc); "" where the message is no fragment or the frame has no place for it."""
    if not reads_as_fragment(doc) or not last_question:
        return ""
    core = _core(doc)
    if core is None:
        return ""
    last = parse(nlp, last_question)
    if _is_wh(core):  # "In what year?", "Since when?": in place of the last question phrase
        place = _wh_phrase(last)
        if place:
            return _put(last, *place, core.text)
        return _of_answer(last, core, parse(nlp, last_answer[:300])) if last_answer else ""
    swapped = swap_name(core, last)
    if swapped:
        return swapped
    if any(t.pos_ == "PROPN" for t in core):  # a named phrase for a named phrase
        place = _named_phrase(last)
        return _put(last, *place, core.text) if place else ""
    place = _asked_noun(last)  # "And the salt?": a common noun for the noun asked for
    return _put(last, *place, _without_det(core)) if place else ""
