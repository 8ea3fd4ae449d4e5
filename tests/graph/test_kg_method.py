"""The graph through the Engine: index the mixed fixture folder with the tiny LLM (one extraction
per graph chunk), ask with --method kg, then remove a document and check the graph forgets it
and nothing else. One slow test builds the lighthouse graph with the default 0.5B model."""

import shutil
from pathlib import Path

import pytest

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.graph.query import KGSearcher, question_keywords
from k2desk.store.graph import GraphStore, normalize_name

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GOOD = {"lighthouse.txt", "recipes.md", "report.pdf", "minutes.docx", "garden.html", "chess_club.txt"}


def make_engine(tmp_path, models_dir, llm):
    """Profile "raw": the raw-text vectors and the raw-text graph (the `kg` baseline's, extracted by the
    LLM), no summaries."""
    return Engine(Settings(home=tmp_path / "home", models_dir=models_dir, llm=llm, threads=2, build_profile="raw",
                           graph_extractor="llm"), "graph")


def graph_rows(engine):
    q = lambda sql, *p: engine.db.all(sql, p)  # noqa: E731
    return {
        "entities": {r[0] for r in q("SELECT id FROM entities WHERE source = 'text'")},
        "relations": {r[0] for r in q("SELECT id FROM relations WHERE source = 'text'")},
        "vec_entities": {r[0] for r in q("SELECT id FROM vec_entities")} if engine.db.table_exists("vec_entities") else set(),
        "vec_relations": {r[0] for r in q("SELECT id FROM vec_relations")} if engine.db.table_exists("vec_relations") else set(),
        "mentions": set(q("SELECT entity_id, chunk_id, document_id, description FROM entity_mentions")),
        "relation_mentions": set(q("SELECT relation_id, chunk_id, document_id, description FROM relation_mentions")),
    }


def test_question_keywords_without_llm():
    kws = question_keywords("Who is the keeper of the Harwick Point lighthouse?")
    assert kws == ["Harwick Point", "Harwick Point lighthouse", "keeper", "lighthouse"]
    kws = question_keywords('Did "Sam Bankman-Fried" found FTX in 2019?')
    assert kws[0] == "Sam Bankman-Fried" and "FTX" in kws and "2019" in kws
    assert question_keywords("What is it?") == []


def test_index_ask_kg_then_remove_a_document(tmp_path, models_dir, tiny_llm_path):
    folder = tmp_path / "docs"
    shutil.copytree(FIXTURES / "mixed", folder)
    with make_engine(tmp_path, models_dir, "smollm2-135m") as engine:
        report = engine.index([folder])
        assert {Path(k).name for k in report.added} == GOOD and "graph" in report.stage_seconds
        docs = {Path(d.key).name: d for d in engine.documents()}
        assert all("graph_text" in docs[n].stages and docs[n].status == "done" for n in GOOD)
        graph_chunks = engine.db.one("SELECT count(*) FROM chunks WHERE profile = 'graph' AND source = 'text'")[0]
        assert graph_chunks >= len(GOOD)
        before = graph_rows(engine)
        assert before["entities"], "the tiny model extracted no entity from the whole folder"
        assert before["vec_entities"] == before["entities"] and before["vec_relations"] == before["relations"]

        answer = engine.ask("Who keeps the Harwick Point lighthouse?", method="kg")
        trace = answer.to_json()["trace"]
        assert trace["source"] == "text"
        assert {"keywords", "entities", "relations", "kg_results"} <= set(trace)
        assert "Harwick Point" in trace["keywords"]
        assert trace["kg_results"].startswith("Entities:") and trace["entities"]
        assert answer.sources and all(s.chunk_id and 0 < s.score <= 1 for s in answer.sources)
        assert answer.sources[0].score == 1.0
        assert answer.llm.calls == 1 and answer.timings["total"] >= answer.timings["retrieve"]
        assert answer.answer

        # remove the document with the most mentions: its mentions and its own entities go
        counts = dict(engine.db.all("SELECT document_id, count(*) FROM entity_mentions GROUP BY document_id"))
        victim = max(docs.values(), key=lambda d: counts.get(d.id, 0))
        only_victim = {r[0] for r in engine.db.all(
            "SELECT entity_id FROM entity_mentions GROUP BY entity_id HAVING min(document_id) = ? AND max(document_id) = ?",
            (victim.id, victim.id))}
        assert only_victim
        assert engine.remove(victim.key) == [victim.key]
        after = graph_rows(engine)
        assert not any(m[2] == victim.id for m in after["mentions"] | after["relation_mentions"])
        assert after["entities"] == before["entities"] - only_victim
        assert {m for m in before["mentions"] if m[2] != victim.id} == after["mentions"]
        assert {m for m in before["relation_mentions"] if m[2] != victim.id} == after["relation_mentions"]
        assert after["vec_entities"] == after["entities"] and after["vec_relations"] == after["relations"]
        assert engine.db.one("SELECT count(*) FROM chunks WHERE document_id = ?", (victim.id,))[0] == 0
        orphans = engine.db.one("SELECT count(*) FROM entities e "
                                "WHERE NOT EXISTS (SELECT 1 FROM entity_mentions m WHERE m.entity_id = e.id)")[0]
        assert orphans == 0


@pytest.mark.slow
def test_default_model_builds_the_lighthouse_graph(tmp_path, models_dir, model_store):
    from k2desk.errors import ModelError

    try:
        model_store.resolve_llm("qwen2.5-coder-0.5b")
    except ModelError as exc:
        pytest.fail(str(exc))
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(FIXTURES / "mixed" / "lighthouse.txt", folder)
    with make_engine(tmp_path, models_dir, "qwen2.5-coder-0.5b") as engine:
        engine.index([folder])
        graph = GraphStore(engine.db)
        ents = {e.name: e for e in (graph.entity(i) for i, in engine.db.all("SELECT id FROM entities"))}
        find = lambda phrase: [e for k, e in ents.items() if f" {normalize_name(phrase)} " in f" {k} "]  # noqa: E731
        assert find("Harwick Point"), sorted(ents)
        assert find("Mirela Varga"), sorted(ents)
        people = {e.id for e in find("Mirela Varga")}
        places = {e.id for e in find("Harwick Point") + find("lighthouse")}
        linked = [r for r in graph.relations_of(people) if {r.src_id, r.dst_id} & places]
        assert linked, [(r.src, r.dst) for r in graph.relations_of(people)]
        result = KGSearcher(engine.db, engine.embedder).search("Who is the keeper of the Harwick Point lighthouse?")
        assert any("Mirela Varga" in h.entity.display for h in result.entities + result.neighbours)
        assert "Mirela Varga" in result.text
