"""Bridges found in a question's grammar (spaCy's parse; no word lists): a description that stands
for an entity the question does not name, which must be found before the question can be asked.

- A relative clause on a noun that is not what the question asks for: "Who founded [the company
  that salvaged the wreck]?", "Who runs [the institute whose vessel found the reef]?", "Where is
  the headquarters of [the company that Acme acquired]?".
- A reduced relative (a participle with its own words): "Which company acquired [the firm founded
  by Hanna Ostrowski]?".
- Once a description is resolved, the "of" or possessive phrase around its answer, when that
  phrase is itself not what the question asks for: "Where was [the founder of <the shipyard>]
  born?" (the second hop of a three-reading question).

``find_bridge`` returns the innermost one with the factoid question that names it ("Which company
salvaged the wreck?"); the caller answers that, puts the answer in the description's place and
looks again. A question without a bridge gets None from one parse (~13 ms on 2 cores).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional, Sequence

WH_TAGS = ("WDT", "WP", "WP$", "WRB")
SUBJECTS = ("nsubj", "nsubjpass")
NOUNS = ("NOUN", "PROPN")
MAX_CLAUSES = 3  # verbs in a question of two nested descriptions ("Where was the founder of the
# yard that built the ship that … born?"); one with more asks several things and is asked as it stands
LOOSE_CLAUSES = 5  # the same bound where reading the question once has already failed (``loose``)


@dataclass(frozen=True)
class Bridge:
    description: str  # as written in the question ("the company that salvaged the wreck")
    question: str  # the factoid question that names what it describes ("Which company salvaged the wreck?")
    kind: str  # "relative", "participle", "of" (an "of"/possessive phrase around an earlier hop's answer)
    start: int = 0  # its characters in the question
    end: int = 0
    noun: str = ""  # the noun it describes ("company"), lower case

    def to_trace(self) -> dict[str, Any]:
        return {"description": self.description, "question": self.question, "kind": self.kind}


def _text(tokens) -> str:
    return "".join(t.text_with_ws for t in tokens).strip()


def _in_relative(t) -> bool:
    """Whether ``t`` is inside a relative or participle clause (its relativizer included)."""
    for a in [t, *t.ancestors]:
        if a.dep_ in ("relcl", "acl"):
            return True
    return False


def _wh_root(doc):
    """The root of the sentence that holds the question's wh-word (the first sentence else)."""
    wh = next((t for t in doc if t.tag_ in WH_TAGS and not _in_relative(t)), None)
    return (wh.sent if wh is not None else doc[:]).root


def _copular(doc) -> bool:
    """The question's root is "be" with no verb outside a relative clause ("Who is …", "Where is
    …"; not "Where was … born", a passive)."""
    root = _wh_root(doc)
    if root.lemma_ != "be" or root.pos_ != "AUX" or _question_participle(doc) is not None:
        return False
    return not any(_clause_verb(t) and not any(_describes(a) for a in (t, *t.ancestors)) for t in doc)


def _clause_verb(t) -> bool:
    """A verb that heads a clause (not "managing" in "the managing director")."""
    return t.pos_ == "VERB" and t.dep_ not in ("amod", "compound")


def _describes(t) -> bool:
    """A relative clause, or a participle with words of its own ("associated with FTX"; not the
    bare "born" spaCy sometimes hangs on a noun)."""
    return t.dep_ == "relcl" or t.dep_ == "acl" and bool(list(t.children))


def _targets(doc) -> set[int]:
    """The nouns the question asks for: the one carrying the wh-word ("which company", "how many
    cars"), and with a copular root the argument on the other side of the wh-word ("Who is [the
    founder of …]"; not where it asks for a property: "How strong is [the ale that …]")."""
    out = set()
    for t in doc:
        if t.pos_ in NOUNS and (t.tag_ in WH_TAGS or any(w.tag_ in WH_TAGS for c in t.lefts for w in c.subtree)):
            out.add(t.i)
    if _copular(doc):
        root = _wh_root(doc)
        # "How strong is [the ale that …]?" asks for a property of its subject, which a description
        # may stand for; "Who is [the founder of …]?" asks for the subject itself
        # "In which city is [the publisher that …] based?" asks where, through a preposition
        asks_where = any(c.dep_ == "prep" and any(w.tag_ in WH_TAGS for w in c.subtree) for c in root.children)
        if not asks_where and not any(c.dep_ == "acomp" and any(w.tag_ in WH_TAGS for w in c.subtree)
                                      for c in root.children):
            out |= {c.i for c in root.children if c.dep_ in ("nsubj", "attr") and c.tag_ not in WH_TAGS}
    return out


def _is_target(head, doc, targets: set[int]) -> bool:
    """Whether the noun ``head`` is what the question asks for, or part of its description ("the
    individual [associated with the company that …]"). A noun reached from a target through "of"
    alone is a step on the way ("the founder of [the company that …]"), not the answer."""
    if head.i in targets:
        return True
    node = head
    root = _wh_root(doc)
    while node.head.i != node.i:
        parent = node.head
        if parent.i == root.i and root.pos_ in NOUNS and node.dep_ == "acl":
            return False  # "Which firm quoted for …": spaCy found no verb root; the participle is the question's verb
        if node.dep_ == "pobj" and parent.lower_ == "of" and parent.head.pos_ in NOUNS and parent.head.i in targets:
            return False
        if parent.i in targets:
            return True
        node = parent
    return False


def _clause_end(verb, doc) -> int:
    """The last token index of a relative clause."""
    return _trimmed(doc, verb.right_edge.i, verb.i)


def _question_participle(doc):
    """The question's own participle where spaCy hung it on a noun inside a description: in a
    question whose root is a bare auxiliary ("When was …", "In which city is …"), a participle
    that ends the question and names no agent ("… rescued the crew born?", "… connected to the
    grid?", "… based?"); None where there is none ("… founded by X" describes)."""
    root = _wh_root(doc)
    if root.pos_ != "AUX" or any(c.pos_ == "VERB" for c in root.children):
        return None
    last = max((t.i for t in doc if not t.is_punct), default=-1)
    return next((t for t in doc if t.tag_ in ("VBN", "VBD") and t.dep_ == "acl" and t.right_edge.i >= last
                 and not any(c.dep_ == "agent" for c in t.children)), None)


def _verb_read_as_noun(doc, i: int) -> bool:
    """Whether the noun at ``i`` is the question's own verb that spaCy read as a noun: a question
    with "do" as its only verb ("Which club did the holder of the record ride for …?") needs one,
    and it is the noun a stranded preposition or the question's end follows."""
    t = doc[i]
    root = _wh_root(doc)
    if t.pos_ != "NOUN" or root.lemma_ != "do" or any(v.pos_ in ("VERB", "AUX") for v in doc if v.i != root.i):
        return False
    after = doc[i + 1] if i + 1 < len(doc) else None
    return after is None or after.is_punct or after.pos_ == "ADP"


def _trimmed(doc, end: int, floor: int) -> int:
    """``end`` without trailing punctuation, and before the question's own participle if spaCy
    hung it inside the description (``_question_participle``)."""
    own = _question_participle(doc)
    if own is not None and floor < own.i <= end:
        end = own.left_edge.i - 1 if own.left_edge.i > floor else own.i - 1
    while end > floor and doc[end].is_punct:
        end -= 1
    return end


def _noun_words(head, clause_start: int) -> str:
    """The described noun without its article: "company", "first Norwegian salvage company",
    "company in Bremen" (what stands between the noun and its clause comes along)."""
    start = head.left_edge.i
    doc = head.doc
    while start < head.i and doc[start].pos_ == "DET":
        start += 1
    return _text(doc[start:clause_start])


def _be(head, past: bool) -> str:
    plural = head.tag_ in ("NNS", "NNPS")
    if past:
        return "were" if plural else "was"
    return "are" if plural else "is"


def _relative_question(head, verb, doc) -> str:
    """"Which company salvaged the wreck?" from "the company that salvaged the wreck"."""
    end = _clause_end(verb, doc)
    clause = list(doc[verb.left_edge.i:end + 1])
    rel = next((t for t in clause if t.tag_ in WH_TAGS and t.head.i in (verb.i, *[c.i for c in verb.children])), None)
    noun = _noun_words(head, verb.left_edge.i)
    if rel is not None and rel.tag_ == "WP$":  # "whose vessel found the reef" -> "Which institute's vessel found …"
        rest = _text([t for t in clause if t.i != rel.i])
        return f"Which {noun}'s {rest}?"
    if rel is not None and rel.tag_ == "WRB":  # "the shop where tickets are sold": no "which" question says it
        return f"What is {_text(doc[head.left_edge.i:end + 1])}?"
    if rel is not None and rel.dep_ in SUBJECTS:  # "that salvaged the wreck"
        return f"Which {noun} {_text([t for t in clause if t.i != rel.i])}?"
    subject = next((c for c in verb.children if c.dep_ in SUBJECTS), None)
    aux = [c for c in verb.children if c.dep_ in ("aux", "auxpass") and c.i < verb.i]
    if subject is not None and subject is not rel and (rel is None or rel.dep_ in ("dobj", "mark")) and \
            verb.tag_ in ("VBD", "VBZ", "VBP", "VBN"):
        # "that Acme acquired" -> "Which company did Acme acquire?"; "that Acme has bought" -> "has Acme bought"
        words = [t for t in clause if rel is None or t.i != rel.i]
        subj = _text(doc[subject.left_edge.i:subject.right_edge.i + 1])
        after = _text([t for t in words if t.i > verb.i])
        if aux:
            middle = _text([t for t in words if t.i not in {a.i for a in aux} and subject.left_edge.i <= t.i <= verb.i
                            and not (subject.left_edge.i <= t.i <= subject.right_edge.i)])
            lead = _text(aux)
            return f"Which {noun} {lead} {subj} {middle} {after}".rstrip() + "?"
        if verb.tag_ != "VBN":
            do = {"VBD": "did", "VBZ": "does", "VBP": "do"}[verb.tag_]
            return f"Which {noun} {do} {subj} {verb.lemma_} {after}".rstrip() + "?"
    return f"What is {_text(doc[head.left_edge.i:end + 1])}?"  # "What is the town in which she grew up?"


def _participle_question(head, verb, doc) -> str:
    """"Which firm was founded by Hanna Ostrowski?" from "the firm founded by Hanna Ostrowski"."""
    end = _clause_end(verb, doc)
    noun = _noun_words(head, verb.i)
    return f"Which {noun} {_be(head, verb.tag_ == 'VBN')} {_text(doc[verb.i:end + 1])}?"


def _span(doc, start: int, end: int) -> tuple[str, int, int]:
    return _text(doc[start:end + 1]), doc[start].idx, doc[end].idx + len(doc[end].text)


def _clause_bridges(doc, targets: set[int]) -> list[Bridge]:
    found = []
    main_verb = _wh_root(doc).pos_ == "VERB"
    for verb in doc:
        if verb.dep_ not in ("relcl", "acl") or verb.pos_ not in ("VERB", "AUX") or verb.head.pos_ not in NOUNS:
            continue
        head = verb.head
        if _is_target(head, doc, targets):
            continue
        if verb.dep_ == "acl":  # a participle is the main verb's stand-in where spaCy found none ("when was X released")
            if not main_verb or verb.tag_ not in ("VBN", "VBG") or \
                    not any(c.dep_ in ("agent", "prep", "dobj", "npadvmod", "xcomp") for c in verb.children):
                continue
            question, kind = _participle_question(head, verb, doc), "participle"
        else:
            question, kind = _relative_question(head, verb, doc), "relative"
        start, end = head.left_edge.i, _clause_end(verb, doc)
        if any(t.text == "," for t in doc[start:end + 1]):  # "the company, which …": it describes, it does not pick out
            continue
        if any(t.tag_ in ("PRP", "PRP$") for t in doc[start:end + 1]):  # "the company that acquired it": not a question of its own
            continue
        description, s, e = _span(doc, start, end)
        found.append(Bridge(description, question, kind, s, e, head.lower_))
    return found


def _names(part) -> bool:
    """Whether the phrase under ``part`` names something (a proper noun of its own)."""
    return any(t.pos_ == "PROPN" for t in part.subtree)


def _of_bridges(doc, resolved: Sequence[str], targets: set[int], loose: bool = False) -> list[Bridge]:
    """An "of" or possessive phrase around an earlier hop's answer ("the founder of Acme Salvage",
    "Acme Salvage's founder") that the question does not ask for. ``loose``: around any name, on
    the question's subject or object ("Who voices [Candace Flynn's best friend]?")."""
    found = []
    for head in doc:
        # the subject of the question's verb ("Where was [the founder of X] born?"); an object may
        # be an event, not an entity ("Who won [the 2023 championship of X]?")
        roles = SUBJECTS + ("dobj", "pobj", "attr") if loose else SUBJECTS
        if head.pos_ != "NOUN" or head.dep_ not in roles or _is_target(head, doc, targets):
            continue
        inner = [c for c in head.children if c.dep_ == "poss"] + \
            [g for c in head.children if c.dep_ == "prep" and c.lower_ == "of" for g in c.children if g.dep_ == "pobj"]
        for part in inner:
            words = _text(doc[part.left_edge.i:part.right_edge.i + 1])
            if not (any(r and r in words for r in resolved) or loose and _names(part) and not _in_relative(head)):
                continue  # (a name's phrase inside a description is that description's business)
            start = head.left_edge.i
            end = head.i if part.dep_ == "poss" else _trimmed(doc, part.right_edge.i, part.i)
            if end > part.left_edge.i and _verb_read_as_noun(doc, end):
                end -= 1  # "Which club did [the holder of the record] ride for …?"
            description, s, e = _span(doc, start, end)
            question = f"Who or what is {description}?"
            found.append(Bridge(description, question, "of", s, e, head.lower_))
    return found


def _relativizer(t) -> bool:
    """A word that opens a relative clause on the noun just before it, read from the tags where
    the parse hung the clause elsewhere ("the co-operative that sponsors …" with "that" on the
    question's verb; "the clinic that the collection went to" with "that" tagged a conjunction).
    The noun may end a hyphenated word ("co-operative", which spaCy splits)."""
    if t.i < 2 or not (t.tag_ in ("WDT", "WP", "WP$") or t.lower_ == "that" and t.pos_ in ("SCONJ", "PRON")):
        return False
    doc = t.doc
    before = doc[t.i - 1]
    hyphened = doc[t.i - 2].text == "-" and not doc[t.i - 2].whitespace_
    return before.pos_ in NOUNS or hyphened and before.pos_ in ("ADJ", "NOUN", "PROPN", "X")


def _phrase_start(end: int, doc) -> int:
    """Where the noun phrase ending at ``end`` begins, read from its words' tags: articles,
    modifiers, names, numbers, possessives and hyphens; -1 where a question word opens it ("which
    company that …" is what the question asks for)."""
    start = end
    while start > 0:
        t = doc[start - 1]
        if t.tag_ in WH_TAGS:
            return -1
        if t.pos_ in ("DET", "ADJ", "NOUN", "PROPN", "NUM") or t.tag_ == "POS" or \
                t.text == "-" and not t.whitespace_ or t.dep_ in ("amod", "compound"):
            start -= 1
            continue
        break
    return start


def _predicate_start(doc, clause_start: int, np_start: int, end: int) -> int:
    """Where the question's own predicate starts inside a tail that the parse gave to the relative
    clause: after a fronted auxiliary with no verb before the description ("In which year was
    [the co-operative that sponsors the race] founded?", "Since when has [the treasurer of the
    festival whose proceeds went to …] sat on the council?"), the last verb that follows a noun,
    other than the clause's own first verb; ``end + 1`` where there is none."""
    aux = [t for t in doc[:np_start] if t.pos_ == "AUX" or t.lemma_ in ("be", "do", "have") and t.pos_ == "VERB"]
    if not aux or any(_clause_verb(t) and t.i > aux[0].i for t in doc[:np_start]):
        return end + 1
    verbs = [t for t in doc[clause_start:end + 1] if _clause_verb(t)]
    if len(verbs) < 2:
        return end + 1
    last = verbs[-1]
    if doc[last.i - 1].pos_ in ("NOUN", "PROPN", "NUM"):
        return last.i
    return end + 1


def _surface_bridges(doc, targets: set[int]) -> list[Bridge]:
    """Relative clauses found from the words' tags where the parse found none (``loose`` only:
    spaCy's small model misattaches long questions' clauses, and the clause then does not hang on
    its noun). The noun phrase before a relativizer is the description's noun; the clause runs to
    a comma, the question's end, or the question's own predicate (``_predicate_start``)."""
    found = []
    last = max((t.i for t in doc if not t.is_punct), default=-1)
    for rel in doc:
        if not _relativizer(rel):
            continue
        noun = doc[rel.i - 1]
        start = _phrase_start(noun.i, doc)
        if start < 0 or _is_target(noun, doc, targets):
            continue
        comma = next((t.i for t in doc[rel.i:last + 1] if t.text == ","), None)
        end = comma - 1 if comma is not None else last
        end = _predicate_start(doc, rel.i, start, end) - 1
        clause = doc[rel.i + 1:end + 1]
        subject = len(clause) and clause[0].pos_ in ("VERB", "AUX")  # "that inked a deal …"
        if not len(clause) or any(t.tag_ == "PRP" or t.tag_ == "PRP$" and not subject for t in doc[start:end + 1]):
            continue  # "the company that acquired it": not a question of its own ("… to license its news": its own)
        first = next((t.i for t in doc[start:noun.i + 1] if t.pos_ != "DET"), noun.i)
        words = _text(doc[first:noun.i + 1])
        if rel.tag_ == "WP$":  # "whose captain was X" -> "Which ferry's captain was X?"
            question = f"Which {words}'s {_text(clause)}?"
        elif subject:  # "that sponsors the race" -> "Which co-operative sponsors the race?"
            question = f"Which {words} {_text(clause)}?"
        else:
            question = f"What is {_text(doc[start:end + 1])}?"
        description, s, e = _span(doc, start, end)
        found.append(Bridge(description, question, "relative", s, e, noun.lower_))
    return found


def _asks(doc, loose: bool) -> bool:
    """Whether the question has a question word of its own: outside a relative clause, or
    (``loose``) opening it or a clause after a comma, where spaCy read it as a relativizer ("In the
    film of X, who played …")."""
    for t in doc:
        if t.tag_ in WH_TAGS and (not _in_relative(t) or loose and (t.i == 0 or doc[t.i - 1].text == ",")):
            return True
    return False


def _after_frame(doc):
    """The question word right after an opening frame ("In the 2017 film, who plays …?",
    "On the 1998 tour, which band …?"): a phrase that opens with a preposition and ends at a comma,
    which spaCy reads as the head of a relative clause; None where there is none."""
    if not len(doc) or doc[0].pos_ != "ADP":
        return None
    comma = next((t for t in doc if t.text == ","), None)
    if comma is None or comma.i + 1 >= len(doc) or doc[comma.i + 1].tag_ not in WH_TAGS:
        return None
    return doc[comma.i + 1]


def _framed_bridge(doc, wh, resolved: Sequence[str]) -> Optional[Bridge]:
    """The bridge of a framed question read in the question proper (parsed alone from its
    question word), its hop asked in the frame ("In the 2017 film, which character was portrayed
    by Emma Watson?")."""
    from k2desk.graph.nlp import load_pipeline

    frame = doc.text[:wh.idx].rstrip()
    bridge = find_bridge(load_pipeline()(doc.text[wh.idx:]), resolved, loose=True)
    if bridge is None:
        return None
    question = f"{frame} {bridge.question[0].lower()}{bridge.question[1:]}"
    return Bridge(bridge.description, question, bridge.kind, bridge.start + wh.idx, bridge.end + wh.idx, bridge.noun)


def find_bridge(doc, resolved: Sequence[str] = (), loose: bool = False) -> Optional[Bridge]:
    """The innermost bridge of the parsed question ``doc`` (None: the question is asked as it
    stands). ``resolved``: the answers of the hops before (their "of" phrases are bridges too).
    ``loose``: where the question read once was not answered, or answered with what does not fit
    it: an "of" or possessive phrase around any name counts too, and a question may have more
    clauses (reading it hop by hop is then its second chance, not its first reading)."""
    if not _asks(doc, loose):
        return None  # yes/no questions and requests are asked as they stand
    wh = _after_frame(doc) if loose else None
    if wh is not None:
        return _framed_bridge(doc, wh, resolved)
    if sum(_clause_verb(t) for t in doc) > (LOOSE_CLAUSES if loose else MAX_CLAUSES):
        return None  # more clauses than a chain of descriptions has: a question of several parts
    targets = _targets(doc)
    found = _clause_bridges(doc, targets) + (_of_bridges(doc, resolved, targets, loose) if resolved or loose else [])
    if not found and loose:
        found = _surface_bridges(doc, targets)
    if not found:
        return None
    innermost = [b for b in found if not any(o is not b and b.start <= o.start and o.end <= b.end for o in found)]
    return min(innermost, key=lambda b: (b.end - b.start, b.start))


def substitute(question: str, bridge: Bridge, name: str) -> str:
    """The question with ``name`` in the description's place."""
    return question[:bridge.start] + name + question[bridge.end:]


@lru_cache(maxsize=256)
def clause_description(question: str) -> str:
    """The clause a bridge question puts in place of an entity ("the cooperative that will charge
    the ferry's electric drive", "the firm founded by …"; ``find_bridge``'s loose reading);
    "" where the grammar shows none, where it is an "of" or possessive phrase ("a bottle of
    Tanners Pale", "Cressida Lovering's grandfather": a thing's own attribute, not a second fact),
    or where there is no spaCy model."""
    try:
        from k2desk.graph.nlp import load_pipeline

        bridge = find_bridge(load_pipeline()(question), loose=True)
    except Exception:  # noqa: BLE001 - no spaCy model: no bridge to read
        return ""
    return bridge.description if bridge is not None and bridge.kind != "of" else ""
