"""The fast graph extractor (spaCy, no LLM): typed entities with their sentence, relations named
by the dependency path between two entities, and a graph the engine builds without one LLM call."""

import shutil
from pathlib import Path

import pytest

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.graph.nlp import MAX_SENTENCE_ENTITIES, NlpExtractor
from k2desk.graph.query import KGSearcher
from k2desk.runtime.device import graph_extractor, summarizer_backend

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TEXT = ("Henrike Albers, the chair of the Lindenfeld Solar Cooperative, signed a contract with Siemens in Berlin "
        "on March 3, 2024. On Monday the cooperative sued the city of Hamburg. The 31-year-old engineer joined in 2019.")


@pytest.fixture(scope="module")
def extractor():
    return NlpExtractor()


def test_entities_are_typed_and_described_by_their_sentence(extractor):
    (ex,) = extractor.extract([TEXT], header="Solar news | Example Times | 2024-03-04")
    types = {e.name: e.type for e in ex.entities}
    assert types["Henrike Albers"] == "person" and types["Lindenfeld Solar Cooperative"] == "organization"
    assert types["Berlin"] == "location" and types["Hamburg"] == "location"
    assert types["March 3, 2024"] == "date" and types["2019"] == "date"
    # a weekday or an age would tie unrelated articles together; the header is not parsed
    assert not {"Monday", "31-year-old", "Example Times", "2024-03-04"} & set(types)
    albers = next(e for e in ex.entities if e.name == "Henrike Albers")
    assert albers.description.startswith("Henrike Albers, the chair of") and albers.description.endswith("2024.")


def test_relations_are_named_by_the_dependency_path(extractor):
    (ex,) = extractor.extract([TEXT])
    rel = {frozenset((r.source, r.target)): r for r in ex.relations}
    chair = rel[frozenset(("Henrike Albers", "Lindenfeld Solar Cooperative"))]
    assert "chair" in chair.keywords.split(", ")
    assert "sign" in rel[frozenset(("Henrike Albers", "Siemens"))].keywords.split(", ")
    assert chair.description == next(e.description for e in ex.entities if e.name == "Henrike Albers")
    # closer in the parse, stronger: the chair relation beats the two objects of "signed"
    assert chair.strength > rel[frozenset(("Lindenfeld Solar Cooperative", "Siemens"))].strength
    # only entities of one sentence are related
    assert frozenset(("Henrike Albers", "Hamburg")) not in rel


def test_a_crowded_sentence_relates_at_most_its_first_entities(extractor):
    names = ["Paris", "London", "Berlin", "Madrid", "Rome", "Vienna", "Prague", "Warsaw"]
    (ex,) = extractor.extract([f"The tour visits {', '.join(names[:-1])} and {names[-1]}."])
    related = {n for r in ex.relations for n in (r.source, r.target)}
    assert len(ex.entities) == len(names)
    assert related == set(names[:MAX_SENTENCE_ENTITIES])
    assert len(ex.relations) == MAX_SENTENCE_ENTITIES * (MAX_SENTENCE_ENTITIES - 1) // 2


def test_auto_is_fast_on_a_cpu_and_explicit_choices_stand(tmp_path):
    cpu = Settings(home=tmp_path, gpu_layers=0)
    assert graph_extractor(cpu) == "fast" and summarizer_backend(cpu) == "extractive"
    chosen = Settings(home=tmp_path, gpu_layers=0, graph_extractor="llm", summarizer="llm")
    assert graph_extractor(chosen) == "llm" and summarizer_backend(chosen) == "llm"


def test_the_default_profile_builds_the_graph_without_the_llm(tmp_path, models_dir, tiny_llm_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("lighthouse.txt", "recipes.md"):
        shutil.copy(FIXTURES / "mixed" / name, docs / name)
    settings = Settings(home=tmp_path / "home", models_dir=models_dir, llm="smollm2-135m", threads=2, gpu_layers=0)
    with Engine(settings, "fast") as engine:
        report = engine.index([docs])
        assert report.failed == [] and len(report.added) == 2
        stage = next(s for s in engine.indexer.stages if s.name == "graph_summary")
        assert stage.stats.usage.calls == 0 and stage.stats.entities > 0  # spaCy, not the LLM
        assert all("graph_summary" in d.stages and d.status == "done" for d in engine.documents())
        found = KGSearcher(engine.db, engine.embedder).search("Who keeps the Harwick Point lighthouse?", "summary",
                                                              count_tokens=engine.embedder.count_tokens)
        assert found.entities and any("lighthouse" in e["name"].lower() or "harwick" in e["name"].lower()
                                      for e in found.to_trace()["entities"])
