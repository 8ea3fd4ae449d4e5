"""Entity and relation extraction: one LLM call per "graph" chunk (300/100 tokens), under a JSON
schema that bounds every list and string, parsed into typed objects.

What comes out of the model is never trusted as is:
* every string is stripped, whitespace-collapsed and cut to its bound; entity names that are
  empty once normalized are dropped;
* entities whose name is not grounded in the chunk (fewer than half of its words occur in the
  chunk) are dropped: tiny models invent or copy names;
* a relation endpoint that is not one of the chunk's entities is resolved to the one entity whose
  name contains it (or is contained in it) word-wise, e.g. "Harwick Point" -> "Harwick Point
  Lighthouse"; failing that it is ADDED as an entity of type "other" when grounded in the chunk,
  else the relation is dropped. Self-relations are dropped; duplicates within a chunk merge;
* output cut by ``max_tokens`` is salvaged: the entities and relations completed before the cut
  are kept (a JSON prefix closed at the last complete object). Output that still does not parse
  yields an empty extraction (logged), never an exception.
"""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any, Optional, Protocol, Sequence

from k2desk.progress import CancelToken
from k2desk.prompts import GRAPH_EXTRACTION_PROMPT
from k2desk.text.names import ENTITY_TYPES, normalize_name
from k2desk.types import LLMUsage

log = logging.getLogger(__name__)

MAX_ENTITIES = 12
MAX_RELATIONS = 12
NAME_MAX = 60
DESCRIPTION_MAX = 100
KEYWORDS_MAX = 80
MAX_TOKENS = 700  # a complete answer of a 0.5B model on a 300-token chunk is ~250-600 tokens
DEFAULT_STRENGTH = 5.0


def _string(max_len: int, min_len: int = 0) -> dict:
    return {"type": "string", "minLength": min_len, "maxLength": max_len}


def ordered_object(*properties: tuple[str, dict]) -> dict:
    """An object schema whose grammar writes the properties in the order given. They are listed
    through ``allOf`` because llama-cpp-python's schema-to-grammar converter keeps the order of
    ``allOf`` items but the (alphabetical, once serialized with sorted keys) order of a
    ``properties`` mapping: a model must write an entity's name before its description."""
    return {"type": "object", "allOf": [{"properties": {name: schema}, "required": [name]} for name, schema in properties]}


EXTRACTION_SCHEMA: dict = ordered_object(
    ("entities", {
        "type": "array",
        "maxItems": MAX_ENTITIES,
        "items": ordered_object(
            ("name", _string(NAME_MAX, 1)),
            ("type", {"enum": list(ENTITY_TYPES)}),
            ("description", _string(DESCRIPTION_MAX)),
        ),
    }),
    ("relations", {
        "type": "array",
        "maxItems": MAX_RELATIONS,
        "items": ordered_object(
            ("source", _string(NAME_MAX, 1)),
            ("target", _string(NAME_MAX, 1)),
            ("description", _string(DESCRIPTION_MAX)),
            ("keywords", _string(KEYWORDS_MAX)),
            ("strength", {"enum": list(range(1, 11))}),  # the grammar cannot bound numbers
        ),
    }),
)


@dataclass(frozen=True)
class ExtractedEntity:
    name: str  # as written (bounded); the store derives the normalized key
    type: str
    description: str


@dataclass(frozen=True)
class ExtractedRelation:
    source: str  # entity names as in the chunk's entity list
    target: str
    description: str
    keywords: str
    strength: float


@dataclass
class Extraction:
    entities: list[ExtractedEntity] = field(default_factory=list)
    relations: list[ExtractedRelation] = field(default_factory=list)
    parsed: bool = True  # False: the output did not parse (nothing extracted)
    salvaged: bool = False  # the output was cut by max_tokens; complete items were kept
    dropped: int = 0  # items dropped by the checks above
    seconds: float = 0.0
    completion_tokens: int = 0


def clean(value: Any, max_len: int) -> str:
    """A model string stripped, whitespace collapsed, cut to ``max_len`` characters."""
    if value is None:
        return ""
    text = " ".join(str(value).split())
    return text[:max_len].strip()


def extraction_messages(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": GRAPH_EXTRACTION_PROMPT.format(text=text)}]


class Extractor(Protocol):
    """What the graph stage extracts with: ``LLMExtractor`` (one LLM call per chunk, the "deep"
    mode) or ``k2desk.graph.nlp.NlpExtractor`` (spaCy, no LLM: the "fast" mode)."""

    name: str

    def extract(self, texts: Sequence[str], header: str = "", usage: Optional[LLMUsage] = None,
                cancel: Optional[CancelToken] = None) -> list[Extraction]:
        """One extraction per chunk text; ``header`` is the document's "title | outlet | date"."""
        ...


class LLMExtractor:
    """One schema-constrained LLM call per chunk (Settings.graph_extractor "llm")."""

    name = "llm"

    def __init__(self, llm) -> None:
        self.llm = llm

    def extract(self, texts: Sequence[str], header: str = "", usage: Optional[LLMUsage] = None,
                cancel: Optional[CancelToken] = None) -> list[Extraction]:
        """Each chunk is read under the document's header (names the outlet and the date)."""
        out = []
        for text in texts:
            if cancel is not None:
                cancel.check()
            out.append(extract(self.llm, f"{header}\n{text}" if header else text, usage=usage, cancel=cancel))
        return out


def extract(llm, text: str, usage: Optional[LLMUsage] = None, cancel: Optional[CancelToken] = None,
            max_tokens: int = MAX_TOKENS) -> Extraction:
    """Entities and relations of one chunk (one LLM call). ``llm`` is a k2desk LLM.

    Calls ``LLM.chat`` with the schema (same grammar and usage accounting as ``LLM.json``) to
    keep the raw text: ``LLM.json`` returns None for output cut by ``max_tokens``, which would
    lose the items completed before the cut."""
    t0 = time.perf_counter()
    out = llm.chat(extraction_messages(text), max_tokens=max_tokens, schema=EXTRACTION_SCHEMA, usage=usage, cancel=cancel)
    data, salvaged = parse_json(out.text)
    if data is None:
        log.warning("graph extraction: unparseable output (%d tokens, %s); nothing extracted", out.completion_tokens, out.finish_reason)
        result = Extraction(parsed=False)
    else:
        result = parse_extraction(data, text)
        result.salvaged = salvaged
    result.seconds = time.perf_counter() - t0
    result.completion_tokens = out.completion_tokens
    return result


# -- parsing ---------------------------------------------------------------------------------
def parse_json(text: str) -> tuple[Optional[Any], bool]:
    """(value, salvaged): the JSON in ``text``, or the longest prefix that ends with a complete
    object and parses once its open brackets are closed; (None, False) if there is none."""
    try:
        return json.loads(text), False
    except ValueError:
        pass
    stack: list[str] = []
    cuts: list[tuple[int, str]] = []  # (end index after a '}', closing brackets needed there)
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            stack.append("]" if ch == "[" else "}")
        elif ch in "]}":
            if not stack:
                break
            stack.pop()
            if ch == "}" and stack:
                cuts.append((i + 1, "".join(reversed(stack))))
    for end, closers in reversed(cuts):
        try:
            return json.loads(text[:end] + closers), True
        except ValueError:
            continue
    return None, False


_WORD = re.compile(r"\w+")


def _grounded(key: str, chunk_words: set[str]) -> bool:
    words = key.split()
    return bool(words) and 2 * sum(w in chunk_words for w in words) >= len(words)


def _contains(outer: str, inner: str) -> bool:
    return f" {inner} " in f" {outer} "


def parse_extraction(data: Any, chunk_text: str) -> Extraction:
    """Typed, bounded, deduplicated entities and relations from the model's JSON value."""
    result = Extraction()
    if not isinstance(data, dict):
        result.parsed = False
        return result
    chunk_words = set(normalize_name(chunk_text).split())
    entities: dict[str, ExtractedEntity] = {}
    raw_entities = data.get("entities") if isinstance(data.get("entities"), list) else []
    for item in raw_entities[:MAX_ENTITIES]:
        if not isinstance(item, dict):
            result.dropped += 1
            continue
        name = clean(item.get("name"), NAME_MAX)
        key = normalize_name(name)
        if not key or not _grounded(key, chunk_words):
            result.dropped += 1
            continue
        etype = str(item.get("type") or "other").strip().lower()
        etype = etype if etype in ENTITY_TYPES else "other"
        desc = clean(item.get("description"), DESCRIPTION_MAX)
        if key in entities:  # the same entity twice: keep the first, add a new description
            old = entities[key]
            if desc and normalize_name(desc) not in normalize_name(old.description):
                desc = clean(f"{old.description.rstrip('.')}. {desc}" if old.description else desc, DESCRIPTION_MAX)
                entities[key] = ExtractedEntity(old.name, old.type, desc)
            result.dropped += 1
            continue
        entities[key] = ExtractedEntity(name, etype, desc)

    relations: dict[frozenset, ExtractedRelation] = {}
    raw_relations = data.get("relations") if isinstance(data.get("relations"), list) else []
    for item in raw_relations[:MAX_RELATIONS]:
        if not isinstance(item, dict):
            result.dropped += 1
            continue
        ends = [_resolve(clean(item.get(k), NAME_MAX), entities, chunk_words) for k in ("source", "target")]
        if ends[0] is None or ends[1] is None or ends[0] == ends[1]:
            result.dropped += 1
            continue
        pair = frozenset(ends)
        if pair in relations:
            result.dropped += 1
            continue
        try:
            strength = float(item.get("strength", DEFAULT_STRENGTH))
        except (TypeError, ValueError):
            strength = DEFAULT_STRENGTH
        relations[pair] = ExtractedRelation(entities[ends[0]].name, entities[ends[1]].name,
                                            clean(item.get("description"), DESCRIPTION_MAX),
                                            clean(item.get("keywords"), KEYWORDS_MAX), min(10.0, max(1.0, strength)))
    result.entities = list(entities.values())
    result.relations = list(relations.values())
    return result


def _resolve(name: str, entities: dict[str, ExtractedEntity], chunk_words: set[str]) -> Optional[str]:
    """The key of the chunk entity a relation endpoint names; may add the endpoint as an entity."""
    key = normalize_name(name)
    if not key:
        return None
    if key in entities:
        return key
    near = [k for k in entities if _contains(k, key) or _contains(key, k)]
    if len(near) == 1:
        return near[0]
    if _grounded(key, chunk_words):
        entities[key] = ExtractedEntity(name, "other", "")
        return key
    return None
