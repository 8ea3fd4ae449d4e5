"""Whether the evidence supports an answer: "not in your documents" read from the passages.

A question names what it asks about (the subject, "Altmoor") and what it asks for (the
attribute, "mayor"). The documents answer it only where both stand together: a passage that
names the ferry's captain and, two paragraphs away, the town does not say who the town's mayor
is. So support is measured on sentence windows (a sentence with its neighbours, plus its
document's "title | outlet | date" line and file name, which every sentence of a document shares):

* ``coverage(question, hits)`` — before any answer: the share of the question's terms (weighted
  by inverse document frequency, a term the collection never uses weighing most) that occur
  anywhere in the passages. A question whose attribute the documents never mention ("mayor")
  scores low.
* ``answer_support(question, answer, hits)`` — after a short answer: the windows that hold the
  answer, and the share of the question's terms found in them (each term in any of them, so a
  multi-hop answer named in several articles gathers its terms from each). "2 euros" for "How
  much did the Margarethe II cost to build?" stands beside "crossing" and "costs", not beside
  "Margarethe II" or "built": low support. An answer the passages do not contain at all: 0.

Terms are the sparse index's own (stemmed), after values are put in one normal form
(text/values.py: "seven minutes" is "7 minutes", "€1,180" is "1180 euros") and irregular forms
are mapped to their lemma ("led" → "lead", "built" → "build") with spaCy's English exception
tables, so "Who leads …?" meets "… is led by …".

A number the question names ("in 2023", "the 5 km race") is a condition, not a word: an answer
whose windows lack it (the 2024 income for "What was the income in 2023?") is not supported
whatever else they hold (``Support.missing_values``).

* ``linked_support(question, answer, support, hits, description)`` — a bridge question read once
  ("Who chairs the cooperative that will charge the ferry's electric drive?") has its evidence in
  two sentences joined by the entity in the middle: the words of its description may stand in a
  window that names a name the answer's passages name; what is asked of the answer must still
  stand beside it.

* ``meaning_support(question, support, embed)`` — the words' support cannot see a synonym ("the
  boss" for "managing director") nor a sentence that names the question's words but says
  something else; the embedder can, a little: the cosine between the question and the sentence
  windows that hold the answer (the best of them).

The thresholds that turn a score into "not in your documents" are
measured (docs/eval/abstain/), not assumed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePath
from typing import Callable, Optional, Sequence

import numpy as np

from k2desk.methods.forms import unwrap
from k2desk.methods.retrieval import Hit
from k2desk.runtime.summarizer import STOPWORDS, split_sentences
from k2desk.store.sparse import SparseIndex
from k2desk.text.headers import chunk_header
from k2desk.text.values import cardinals, normal_values
from k2desk.text.values import numbers as value_numbers

WINDOW = 1  # sentences on each side of a sentence that belong to its window
# English question words: how a question asks (its wh-word, its auxiliary, a request's verb, "what
# kind of", "called"), not what about; they need not occur in the passages. Nothing else: a word
# the passages lack counts against them, save the noun a wh-word opens (``answer_types``: "which
# company"), and a question in other words is passed by its meaning (``meaning_coverage``).
# Measured without the answer types and sources this list once held ("company", "article",
# "reported", …): docs/eval/abstain/.
QUESTION_WORDS = frozenset("""
who whom whose which what where when why how many much name names named called call kind type sort
does did do tell give show list describe explain please know find mention mentioned say according get
""".split())
# "How big / large / long / old / far ...": the word after "how" names the kind of measure asked
# for ("How big is the dataset?" is answered by "171 accounts"), as a question word is.
_HOW_WHAT = re.compile(r"\bhow\s+([A-Za-z]+)", re.I)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*")
_COMPOUND = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")  # "semi-character", "e-mail": also read as one word


@lru_cache(maxsize=1)
def irregular_lemmas() -> dict[str, str]:
    """Irregular word forms → lemma ("led" → "lead", "children" → "child"), from the exception
    tables of spaCy's English pipeline (the fast graph's dependency); {} without it."""
    try:
        from k2desk.graph.nlp import load_pipeline

        lemmatizer = load_pipeline().get_pipe("lemmatizer")
        table = lemmatizer.lookups.get_table("lemma_exc")
    except Exception:  # noqa: BLE001 - no spaCy model: stems alone
        return {}
    out: dict[str, str] = {}
    for pos in ("verb", "noun", "adj"):
        for form, lemmas in dict(table.get(pos, {})).items():
            if lemmas and form.isalpha() and lemmas[0] != form:
                out.setdefault(form, lemmas[0])
    return out


@lru_cache(maxsize=256)
def answer_types(question: str) -> frozenset[str]:
    """The nouns a wh-determiner opens ("Which company …?", "what language pairs …?" → "pairs",
    "Whose book …?"): they name the kind of answer asked for, as a question word does, and the
    passages name the answer itself. Read from spaCy's parse (the noun "which" / "what" / "whose"
    depends on); none without the pipeline."""
    try:
        from k2desk.graph.nlp import load_pipeline

        doc = load_pipeline()(question)
    except Exception:  # noqa: BLE001 - no spaCy model: every noun counts
        return frozenset()
    return frozenset(t.head.lower_ for t in doc if t.lower_ in ("which", "what", "whose") and t.dep_ in ("det", "poss")
                     and t.head.pos_ in ("NOUN", "PROPN") and t.head is not t)


def lemmatized(text: str) -> str:
    """``text`` with its values in the normal form and irregular word forms replaced by their lemma."""
    text = normal_values(text)
    table = irregular_lemmas()
    if not table:
        return text
    return _WORD.sub(lambda m: table.get(m.group(0).lower(), m.group(0)), text)


def question_terms(question: str, sparse: SparseIndex) -> list[str]:
    """The index terms of what the question is about and asks for (no stop or question words, no
    lone letter: the "s" of "the ferry's", the "t" of "don't")."""
    measures = {m.group(1).lower() for m in _HOW_WHAT.finditer(question)}
    skip = set(sparse.terms_of(" ".join(STOPWORDS | QUESTION_WORDS | measures)))
    return list(dict.fromkeys(t for t in sparse.terms_of(lemmatized(question))
                              if t not in skip and not (len(t) == 1 and t.isalpha())))


def excused_terms(question: str, sparse: SparseIndex) -> set[str]:
    """The question's terms that count only where the passages have them: the kind of answer a
    wh-word asks for (``answer_types``: "which company" is answered by the company's name)."""
    return set(sparse.terms_of(" ".join(answer_types(question))))


@dataclass
class Support:
    score: float  # idf-weighted share of the question's terms found (0 … 1)
    missing: list[str] = field(default_factory=list)  # question terms not found
    found_answer: bool = True  # the answer occurs in the passages (answer_support only)
    restates: bool = False  # the answer has no words of its own beyond the question's ("7" for "season 7")
    held: list[str] = field(default_factory=list)  # the sentence windows that hold the answer (answer_support)
    missing_values: list[str] = field(default_factory=list)  # numbers the question names that they lack ("2023")
    linked: list[str] = field(default_factory=list)  # names joining other windows to the answer's (linked_support)
    direct_missing: Optional[list[str]] = None  # with ``linked``: the terms missing beside the answer itself

    def to_trace(self) -> dict:
        return {"score": round(self.score, 4), "missing": self.missing, "found_answer": self.found_answer,
                "restates": self.restates, **({"missing_values": self.missing_values} if self.missing_values else {}),
                **({"linked": self.linked, "direct_missing": self.direct_missing} if self.linked else {})}


Windows = list[tuple[set[str], str]]


def passage_terms(text: str, sparse: SparseIndex) -> set[str]:
    """The index terms of a passage's ``text``, a hyphenated compound also as one word (a question
    may write "semicharacter" or "email" where the text has "semi-character", "e-mail")."""
    joined = " ".join(m.group(0).replace("-", "") for m in _COMPOUND.finditer(text))
    return set(sparse.terms_of(f"{lemmatized(text)} {joined}"))  # one pass of the tokenizer


def sentence_windows(hits: Sequence[Hit], sparse: SparseIndex) -> Windows:
    """(terms, text) of every sentence window of the passages (the document line's terms
    included in each)."""
    return [(window, text) for window, text, _, _ in _passage_windows(hits, sparse)]


def _passage_windows(hits: Sequence[Hit], sparse: SparseIndex) -> list[tuple[set[str], str, int, set[str]]]:
    """``sentence_windows`` with the index of each window's passage in ``hits`` and the terms of
    its sentences alone (without the document line's)."""
    out = []
    for n, hit in enumerate(hits):
        name = PurePath(hit.chunk.document.split("#", 1)[0]).stem.replace("-", " ").replace("_", " ")
        header = passage_terms(f"{chunk_header(hit.chunk.title, hit.chunk.meta)} {name}", sparse)
        sentences = split_sentences(hit.chunk.text)
        terms = [passage_terms(s, sparse) for s in sentences]
        for i in range(len(sentences)):
            said = set().union(*terms[max(0, i - WINDOW): i + WINDOW + 1])
            out.append((said | header, " ".join(sentences[max(0, i - WINDOW): i + WINDOW + 1]), n, said))
    return out


def _share(terms: Sequence[str], found: set[str], sparse: SparseIndex, excused: set[str] = frozenset(),
           idf: Optional[dict[str, float]] = None) -> Support:
    """The idf-weighted share of ``terms`` in ``found`` (an ``excused`` term counted only where
    found); ``idf``: the terms' idf when the caller scores many windows with them."""
    terms = [t for t in terms if t in found or t not in excused]
    if not terms:
        return Support(1.0)
    idf = idf if idf is not None else sparse.idf(set(terms))
    total = sum(idf[t] for t in terms)
    have = sum(idf[t] for t in terms if t in found)
    return Support(have / total if total else 1.0, [t for t in terms if t not in found])


def coverage(question: str, hits: Sequence[Hit], sparse: SparseIndex, windows: Optional[Windows] = None) -> Support:
    """The share of the question's terms that occur anywhere in the passages (idf-weighted);
    ``windows``: the passages' sentence windows when the caller has them already."""
    found: set[str] = set()
    for window, _ in windows if windows is not None else sentence_windows(hits, sparse):
        found |= window
    return _share(question_terms(question, sparse), found, sparse, excused_terms(question, sparse))


def answer_support(question: str, answer: str, hits: Sequence[Hit], sparse: SparseIndex,
                   windows: Optional[Windows] = None) -> Support:
    """The share of the question's terms found in the sentence windows that hold ``answer``
    (its own words beyond the question's: at least half of them, by idf, and every number it
    names, whole: "3.5" is not held by a window with "3.2 megawatts" and "2022")."""
    q_terms = question_terms(question, sparse)
    skip = set(sparse.terms_of(" ".join(STOPWORDS)))
    own = [t for t in dict.fromkeys(sparse.terms_of(lemmatized(answer))) if t not in skip and t not in q_terms]
    if not own:  # the answer only restates the question: nothing in it to find
        return Support(0.0, q_terms, found_answer=False, restates=True)
    idf = sparse.idf(set(own))
    need = sum(idf[t] for t in own) / 2
    found: set[str] = set()
    hit_any = False
    numbers = value_numbers(answer)
    held = []
    for window, text in windows if windows is not None else sentence_windows(hits, sparse):
        if sum(idf[t] for t in own if t in window) >= need and numbers <= value_numbers(text):
            hit_any = True
            found |= window
            held.append(text)
    if not hit_any:
        return Support(0.0, q_terms, found_answer=False)
    share = _share(q_terms, found, sparse, excused_terms(question, sparse))
    share.held = held
    asked = set(sparse.terms_of(" ".join(sorted(cardinals(question)))))
    share.missing_values = [t for t in share.missing if t in asked]
    return share


def linked_support(question: str, answer: str, support: Support, hits: Sequence[Hit], sparse: SparseIndex,
                   description: str) -> Support:
    """``support`` (``answer_support``'s) with the terms of the question's ``description`` (a
    bridge the grammar found: "the cooperative that will charge the ferry's electric drive") also
    sought in the sentence windows linked to the answer's: those whose sentences name a name that
    the passages holding the answer name (spaCy's entities), other than the answer's and the
    question's own. A two-hop question's evidence is two sentences joined by the entity in the
    middle: "The cooperative is led by its chair, Henrike Albers" (in "The Lindenfeld Solar
    Cooperative") holds the answer and what is asked of it ("chairs"), "the ferry's electric drive
    will be charged by the Lindenfeld Solar Cooperative" holds the description, and the
    cooperative's name joins them. The rest of the question must still stand beside the answer:
    a near miss ("Who chairs X?" where only another body's chair is named) finds no chair through
    a link. One link, never a chain; ``Support.linked`` names the links used. The answer itself is
    no link (every window that holds it is the answer's already), and a number the question names
    must stand beside the answer (``Support.missing_values``)."""
    described = set(sparse.terms_of(lemmatized(description)))
    if not support.found_answer or not described & set(support.missing) or not support.held:
        return support
    try:
        from k2desk.graph.nlp import LABELS, load_pipeline

        nlp = load_pipeline()
    except Exception:  # noqa: BLE001 - no spaCy model: no names to link by
        return support
    held = set(support.held)
    windows = _passage_windows(hits, sparse)  # (terms, text, its passage's index in hits, its sentences' terms)
    passages = sorted({i for _, text, i, _ in windows if text in held})
    skip = set(sparse.terms_of(" ".join(STOPWORDS))) | set(question_terms(question, sparse))
    skip |= set(sparse.terms_of(lemmatized(answer)))
    names: dict[str, frozenset[str]] = {}
    for doc in nlp.pipe([hits[i].chunk.text for i in passages]):
        for ent in doc.ents:
            if ent.label_ in LABELS and ent.label_ != "DATE":
                own = frozenset(sparse.terms_of(lemmatized(ent.text))) - skip
                if own:
                    names.setdefault(" ".join(ent.text.split()), own)
    if not names:
        return support
    asked = set(sparse.terms_of(" ".join(sorted(cardinals(question)))))
    found: set[str] = set()
    used: list[str] = []
    for window, text, _, said in windows:  # ``said``: the sentences' own words, not their document's title line
        if text in held:
            found |= window
            continue
        links = [name for name, own in names.items() if own <= said]
        adds = (window & described) - asked  # the description's words, and no number the question names
        if links and adds:
            found |= adds
            used += [n for n in links if n not in used]
    if not used:
        return support
    share = _share(question_terms(question, sparse), found, sparse, excused_terms(question, sparse))
    share.held, share.found_answer, share.restates, share.linked = support.held, True, support.restates, used
    share.direct_missing = support.missing
    share.missing_values = [t for t in share.missing if t in asked]
    return share


def asked_together(question: str, sparse: SparseIndex, windows: Windows) -> float:
    """The largest share of the question's terms (idf-weighted) that one sentence window holds:
    whether some passage says what is asked, its subject and its attribute together, whichever
    answer the model picked. A near miss's terms stand apart ("teachers" in one passage, the school
    in another); an answerable question's stand together in the sentence that answers it, also
    when the model named a neighbouring name."""
    return max((share for share, _ in _together(question, sparse, windows)), default=0.0)


def _together(question: str, sparse: SparseIndex, windows: Windows) -> list[tuple[float, str]]:
    """(share of the question's terms, text) of each window; the terms' idf read once for all."""
    terms, excused = question_terms(question, sparse), excused_terms(question, sparse)
    idf = sparse.idf(set(terms))
    return [(_share(terms, window, sparse, excused, idf).score, text) for window, text in windows]


_WHO = re.compile(r"^\s*who(?:m|'s|’s)?\b", re.I)
_NAME = re.compile(r"\b[A-Z][\w'’\-]*")


def names_only_asked(question: str, answer: str) -> bool:
    """Whether ``answer`` to a who-question names only whom the question itself names ("Hedda
    Marchbank" for "Who was mayor before Hedda Marchbank?", "The Wheelers were founded in 1952"
    for "Who founded the Wheelers?"): it has capitalized words and every one of them is a word of
    the question. Not an answer to what was asked; a lower-case answer ("the mayor") is left to
    the other checks."""
    question = unwrap(question)[0]  # "Can you tell me who …" asks who
    if not _WHO.match(question):
        return False
    asked = {_bare(w) for w in re.findall(r"[\w'’\-]+", question)}
    names = [_bare(m.group(0)) for m in _NAME.finditer(answer)]
    return bool(names) and all(n in asked for n in names)


def date_not_amount(answer: str, sentence: str) -> bool:
    """Whether the bare number ``answer`` is a year wherever it stands in ``sentence``: four digits
    that spaCy's entities read as (part of) a date each time ("1978" in "was built in 1978"), not
    an amount ("2000" in "About 2000 people attended"; "12" in "12 marshals on 12 October"). No
    answer to a question that asks how much or how many."""
    number = answer.strip()
    if not (len(number) == 4 and number.isdigit()) or not sentence:
        return False
    from k2desk.graph.nlp import load_pipeline

    spots = [t for t in load_pipeline()(sentence) if t.text == number]
    return bool(spots) and all(t.ent_type_ in ("DATE", "TIME") for t in spots)


def _bare(word: str) -> str:
    """A word in lower case without its possessive ("Lowri's" is "lowri")."""
    return re.sub(r"['’]s?$", "", word.lower())


MEANING_WINDOWS = 12  # the windows that hold an answer whose meaning is compared (in passage order)
COVERAGE_WINDOWS = 64  # the passages' first windows whose meaning ``meaning_coverage`` compares


def meaning_coverage(question: str, windows: Windows, embed: Callable[[list[str]], np.ndarray]) -> float:
    """The cosine between ``question`` and the closest of the passages' first sentence windows: a
    question worded with other words than the passages' ("the boss" for "managing director") can
    still be close in meaning to one of them."""
    texts = list(dict.fromkeys(text for _, text in windows))[:COVERAGE_WINDOWS]
    if not texts:
        return 0.0
    vectors = embed([question, *texts])
    return float(np.max(vectors[1:] @ vectors[0]))


def passage_phrases(windows: Windows) -> list[str]:
    """The noun phrases and named entities of the passages' first sentence windows (spaCy's
    parse; [] without the pipeline): what the passages name, to hold a comparison's sides to."""
    try:
        from k2desk.graph.nlp import load_pipeline

        nlp = load_pipeline()
    except Exception:  # noqa: BLE001 - no spaCy model: the windows' meaning alone
        return []
    texts = list(dict.fromkeys(text for _, text in windows))[:COVERAGE_WINDOWS]
    found: dict[str, None] = {}
    for doc in nlp.pipe(texts):
        for span in (*doc.noun_chunks, *doc.ents):
            name = " ".join(span.text.split())
            if any(c.isalnum() for c in name):
                found.setdefault(name)
    return list(found)


def phrase_coverage(phrase: str, phrases: Sequence[str], embed: Callable[[list[str]], np.ndarray]) -> float:
    """The cosine between a short ``phrase`` (a comparison's side: "the ferry service") and the
    closest of the passages' own ``phrases`` ("the ferry"): a phrase is compared with phrases, a
    question with sentences (``meaning_coverage``)."""
    if not phrases:
        return 0.0
    vectors = embed([phrase, *phrases])
    return float(np.max(vectors[1:] @ vectors[0]))


def meaning_support(question: str, support: Support, embed: Callable[[list[str]], np.ndarray]) -> Optional[float]:
    """The cosine between ``question`` and the best of the sentence windows that hold the answer
    (``support.held``, from ``answer_support``), by the embedder ``embed`` (texts → L2-normalized
    rows); None when no window holds it."""
    held = list(dict.fromkeys(support.held))[:MEANING_WINDOWS]
    if not held:
        return None
    vectors = embed([question, *held])
    return float(np.max(vectors[1:] @ vectors[0]))


_ITEM_SPLIT = re.compile(r"\s*(?:^\s*[-*•]\s|\n\s*[-*•]\s|\n\s*\d+[.)]\s|^\s*\d+[.)]\s|[,;\n•]|\band\b)\s*")


def list_items(answer: str) -> list[str]:
    """A list answer's items ("A, B and C", one per line, bulleted or numbered)."""
    return [item.strip(" .") for item in _ITEM_SPLIT.split(answer) if item and item.strip(" .")]


def list_support(question: str, answer: str, hits: Sequence[Hit], sparse: SparseIndex,
                 windows: Optional[Windows] = None) -> Support:
    """``answer_support`` of a list, item by item: the mean of the items' scores (an item the
    passages do not hold scores 0), the question terms no item's windows hold, and whether any
    item was found."""
    windows = windows if windows is not None else sentence_windows(hits, sparse)
    scored = [answer_support(question, item, hits, sparse, windows) for item in list_items(answer)]
    if not scored:
        return Support(0.0, question_terms(question, sparse), found_answer=False)
    missing = set.intersection(*(set(s.missing) for s in scored))
    return Support(sum(s.score for s in scored) / len(scored), [t for t in scored[0].missing if t in missing],
                   found_answer=any(s.found_answer for s in scored))
