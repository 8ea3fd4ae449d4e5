"""Extraction: the schema-bounded LLM call with the real tiny model (2 calls), and the parsing and
salvage rules on hand-written model output (no LLM)."""

import json

import pytest

from k2desk.graph.extract import (
    DESCRIPTION_MAX,
    EXTRACTION_SCHEMA,
    KEYWORDS_MAX,
    MAX_ENTITIES,
    MAX_RELATIONS,
    NAME_MAX,
    ExtractedEntity,
    ExtractedRelation,
    Extraction,
    extract,
    parse_extraction,
    parse_json,
)
from k2desk.methods.base import LLMUsage
from k2desk.store.graph import ENTITY_TYPES, normalize_name

CHUNK = ("The Harwick Point lighthouse was built in 1887 on a granite headland at the northern end of Saltmere Bay. "
         "The current keeper, Mirela Varga, has looked after the light since 1998. She took over from her uncle, "
         "Tobiás Varga.")


@pytest.fixture(scope="module")
def llm(tiny_llm_path):
    from k2desk.runtime.llm import LLM

    model = LLM(tiny_llm_path, n_ctx=2048, threads=2)
    yield model
    model.close()


def check_bounds(ex: Extraction, chunk: str):
    names = {normalize_name(e.name) for e in ex.entities}
    words = set(normalize_name(chunk).split())
    for e in ex.entities:
        assert isinstance(e, ExtractedEntity)
        assert e.name == e.name.strip() and 0 < len(e.name) <= NAME_MAX and normalize_name(e.name)
        assert e.type in ENTITY_TYPES and len(e.description) <= DESCRIPTION_MAX
        key = normalize_name(e.name).split()
        assert 2 * sum(w in words for w in key) >= len(key)  # grounded in the chunk
    assert len(names) == len(ex.entities)  # no duplicates
    for r in ex.relations:
        assert isinstance(r, ExtractedRelation)
        assert normalize_name(r.source) in names and normalize_name(r.target) in names
        assert normalize_name(r.source) != normalize_name(r.target)
        assert len(r.description) <= DESCRIPTION_MAX and len(r.keywords) <= KEYWORDS_MAX and 1 <= r.strength <= 10


def test_tiny_model_extraction_is_typed_and_bounded(llm):
    usage = LLMUsage()
    ex = extract(llm, CHUNK, usage=usage)
    assert ex.parsed and usage.calls == 1 and usage.completion_tokens == ex.completion_tokens > 0
    assert ex.entities, "the tiny model names at least one grounded entity in this chunk"
    check_bounds(ex, CHUNK)


def test_output_cut_before_any_item_extracts_nothing(llm):
    usage = LLMUsage()
    ex = extract(llm, CHUNK, usage=usage, max_tokens=6)  # '{"entities": [{"name": "…' is cut
    assert ex.entities == [] and ex.relations == [] and not ex.parsed
    assert usage.calls == 1


def test_schema_bounds_every_list_and_string():
    text = json.dumps(EXTRACTION_SCHEMA)
    assert f'"maxItems": {MAX_ENTITIES}' in text and f'"maxItems": {MAX_RELATIONS}' in text

    def strings(node):
        if isinstance(node, dict):
            if node.get("type") == "string":
                yield node
            for v in node.values():
                yield from strings(v)
        elif isinstance(node, list):
            for v in node:
                yield from strings(v)

    assert all("maxLength" in s for s in strings(EXTRACTION_SCHEMA))


def test_truncated_output_keeps_complete_items():
    full = {"entities": [{"name": "Mirela Varga", "type": "person", "description": "The keeper."},
                         {"name": "Harwick Point", "type": "location", "description": "A headland."}],
            "relations": [{"source": "Mirela Varga", "target": "Harwick Point", "description": "She keeps its light.",
                           "keywords": "keeper", "strength": 9}]}
    text = json.dumps(full)
    assert parse_json(text) == (full, False)
    cut = text[: text.index('"relations"') + 30]
    value, salvaged = parse_json(cut)
    assert salvaged and value == {"entities": full["entities"]}  # the relation was cut: no relations
    value, salvaged = parse_json(text[: text.index("A headland") + 3])
    assert salvaged and value["entities"] == full["entities"][:1]
    assert parse_json('{"entities": [{"name": "Mir') == (None, False)
    assert parse_json("") == (None, False)


def test_parse_extraction_cleans_resolves_and_drops():
    data = {
        "entities": [
            {"name": "  Mirela   Varga ", "type": "person", "description": "  The keeper\n of the light. " + "x" * 300},
            {"name": "mirela varga", "type": "location", "description": "Writes a logbook."},  # duplicate
            {"name": "Harwick Point Lighthouse", "type": "building", "description": ""},  # unknown type
            {"name": "John Smith", "type": "person", "description": "Invented."},  # not in the chunk
            {"name": "!!!", "type": "other", "description": ""},  # empty once normalized
            "not an object",
        ],
        "relations": [
            {"source": "Mirela Varga", "target": "Harwick Point", "description": "Keeps it.", "keywords": "keeper", "strength": 14},
            {"source": "Mirela Varga", "target": "Tobiás Varga", "description": "Niece.", "keywords": "family", "strength": "x"},
            {"source": "Mirela Varga", "target": "mirela varga", "description": "self", "keywords": "", "strength": 5},
            {"source": "Harwick Point Lighthouse", "target": "Mirela Varga", "description": "dup", "keywords": "", "strength": 5},
            {"source": "Mirela Varga", "target": "Atlantis", "description": "ungrounded", "keywords": "", "strength": 5},
        ],
    }
    ex = parse_extraction(data, CHUNK)
    by_key = {normalize_name(e.name): e for e in ex.entities}
    assert list(by_key) == ["mirela varga", "harwick point lighthouse", "tobias varga"]
    mirela = by_key["mirela varga"]
    assert mirela.name == "Mirela Varga" and mirela.type == "person" and len(mirela.description) <= DESCRIPTION_MAX
    assert mirela.description.startswith("The keeper of the light.")
    assert by_key["harwick point lighthouse"].type == "other"
    assert by_key["tobias varga"].type == "other" and by_key["tobias varga"].name == "Tobiás Varga"  # added endpoint
    rels = [(r.source, r.target, r.strength) for r in ex.relations]
    # "Harwick Point" resolves to the one entity containing it; strengths are clamped / defaulted
    assert rels == [("Mirela Varga", "Harwick Point Lighthouse", 10.0), ("Mirela Varga", "Tobiás Varga", 5.0)]
    assert ex.dropped == 7
    assert parse_extraction(["not", "a", "dict"], CHUNK).parsed is False
