"""LightRAG on the test world: what each mode retrieves for dictated keywords (the keyword call
scripted), the keyword fallback, the packed three-part context, exactly two LLM calls; then the
real tiny model end to end, and the incremental update of a raw-text graph."""

import pytest

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.graph.profiles import entity_profile, relation_profile
from k2desk.methods.lightrag import KEYWORD_CHARS, KEYWORDS_SCHEMA, MAX_KEYWORDS, LightRAGMethod, round_robin
from k2desk.store.graph import GraphStore
from tests.methods.support import DOCUMENTS, ScriptedLLM, scripted_context
from tests.methods.support import schema_props as props

QUESTION = "Which company bought the maker of the lighthouse's lens?"




def keywords(low, high, answer="Quillfeather Robotics"):
    """A reply function: the keyword call gets ``{"low_level_keywords": low, ...}``, the answer call ``answer``."""
    def reply(prompt, schema):
        if schema is None:
            return answer
        return {"high_level_keywords": high, "low_level_keywords": low}
    return reply


def ask(world, mode, reply, top_k=None, question=QUESTION):
    llm = ScriptedLLM(reply)
    return LightRAGMethod(scripted_context(world, llm), mode=mode, top_k=top_k).ask(question), llm


def part(context, title):
    """The lines of one labelled part of the context."""
    block = next(b for b in context.split("\n\n") if b.startswith(f"{title}:\n"))
    return block.split("\n")[1:]


def test_keyword_schema_bounds_both_lists():
    p = props(KEYWORDS_SCHEMA)
    assert list(p) == ["high_level_keywords", "low_level_keywords"]
    for words in p.values():
        assert words["maxItems"] == MAX_KEYWORDS == 5 and words["items"]["maxLength"] == KEYWORD_CHARS == 40


def test_profiles(world):
    graph = GraphStore(world.db)
    orrin = graph.find("text", ["Orrin Glassworks"])[0]
    profile = entity_profile(orrin)
    assert profile.keys == ("Orrin Glassworks",)
    assert profile.value.startswith("Orrin Glassworks (organization): ") and "acquired by Quillfeather" in profile.value
    rel = next(r for r in graph.relations_of([orrin.id]) if r.keywords == "supplier, lens")
    profile = relation_profile(rel)
    assert profile.keys == ("supplier", "lens", "Orrin Glassworks", "Harwick Point Lighthouse")
    assert "[supplier, lens]" in profile.value and "strength 8/10" in profile.value
    assert "made the lighthouse's new lens" in profile.value


def test_local_finds_the_entity_and_its_relations(world):
    result, llm = ask(world, "local", keywords(["Orrin Glassworks"], ["lens supply"]), top_k=1)
    assert len(llm.calls) == 2 and result.llm.calls == 2
    trace = result.trace
    assert trace["mode"] == "local" and trace["source"] == "text"
    assert trace["keywords"] == {"low_level": ["Orrin Glassworks"], "high_level": ["lens supply"], "fallback": False}
    assert trace["entities"][0]["name"] == "Orrin Glassworks" and trace["entities"][0]["match"] == "vector"
    assert {e["name"] for e in trace["entities"][1:]} == {"Quillfeather Robotics", "Harwick Point Lighthouse"}
    assert {(r["src"], r["dst"]) for r in trace["relations"]} == {
        ("Quillfeather Robotics", "Orrin Glassworks"), ("Orrin Glassworks", "Harwick Point Lighthouse")}
    # ranked by strength: the acquisition (9) before the lens (8)
    assert trace["relations"][0]["keywords"] == "acquisition"
    context = trace["context"]
    assert part(context, "Entities")[0].startswith("Orrin Glassworks (organization)")
    assert any("[supplier, lens]" in line for line in part(context, "Relationships"))
    assert {s.document.rsplit("/", 1)[-1] for s in result.sources} == {"harbour.txt", "robots.txt"}  # both mention Orrin
    # the answer call got the packed context and the question
    assert context in llm.calls[1][0] and QUESTION in llm.calls[1][0] and result.answer == "Quillfeather Robotics"
    assert set(result.timings) >= {"keywords", "retrieve", "generate", "total"}


def test_global_finds_the_acquisition(world):
    result, llm = ask(world, "global", keywords(["lighthouse"], ["company acquisition"]), top_k=1)
    assert len(llm.calls) == 2
    trace = result.trace
    assert [(r["src"], r["dst"], r["keywords"], r["match"]) for r in trace["relations"]] == [
        ("Quillfeather Robotics", "Orrin Glassworks", "acquisition", "vector")]
    assert {e["name"] for e in trace["entities"]} == {"Quillfeather Robotics", "Orrin Glassworks"}
    assert [s.document.rsplit("/", 1)[-1] for s in result.sources] == ["robots.txt"]  # the chunk that states it
    assert "Lighthouse" not in part(trace["context"], "Relationships")[0]


def test_hybrid_holds_both(world):
    result, llm = ask(world, "hybrid", keywords(["Mirela Varga"], ["company acquisition"]), top_k=1)
    assert len(llm.calls) == 2
    trace = result.trace
    names = [e["name"] for e in trace["entities"]]
    assert names[0] == "Mirela Varga" and {"Quillfeather Robotics", "Orrin Glassworks"} <= set(names)
    assert len(names) == len(set(names))
    rels = [(r["src"], r["dst"]) for r in trace["relations"]]
    assert ("Quillfeather Robotics", "Orrin Glassworks") in rels and ("Tobias Varga", "Mirela Varga") in rels
    assert len(rels) == len(set(rels))
    assert {s.document.rsplit("/", 1)[-1] for s in result.sources} == {"harbour.txt", "robots.txt"}
    context = trace["context"]
    assert [block.split("\n")[0] for block in context.split("\n\n")] == ["Entities:", "Relationships:", "Sources:"]
    sources = part(context, "Sources")
    texts = {s.text for s in result.sources}
    assert texts <= set(DOCUMENTS.values()) and len(sources) == len(result.sources)
    assert all(" ".join(s.text.split()) in line for s, line in zip(result.sources, sources))


@pytest.mark.parametrize("reply", ["not json at all", {"high_level_keywords": [], "low_level_keywords": ["  "]}])
def test_unusable_keywords_fall_back(world, reply):
    result, llm = ask(world, "hybrid", lambda prompt, schema: reply if schema else "Anneli Korhonen",
                      question="Who leads Quillfeather Robotics?")
    assert len(llm.calls) == 2
    kw = result.trace["keywords"]
    assert kw["fallback"] is True and kw["high_level"] == ["Who leads Quillfeather Robotics?"]
    assert "Quillfeather Robotics" in kw["low_level"]
    assert result.trace["entities"][0]["name"] == "Quillfeather Robotics"


def test_budget_is_shared_between_the_parts(world):
    class Small(ScriptedLLM):
        def budget(self, messages, max_tokens):
            return 120

    llm = Small(keywords(["Orrin Glassworks"], ["company acquisition"]))
    result = LightRAGMethod(scripted_context(world, llm), mode="hybrid").ask(QUESTION)
    context = result.trace["context"]
    assert llm.count_tokens(context) <= 120
    assert [block.split("\n")[0] for block in context.split("\n\n")][:2] == ["Entities:", "Relationships:"]
    assert len(result.trace["entities"]) == len(part(context, "Entities")) < result.trace["retrieved"]["entities"]


def test_empty_graph_answers_from_nothing(world):
    llm = ScriptedLLM(keywords(["Orrin Glassworks"], ["acquisition"], answer="Insufficient information."))
    result = LightRAGMethod(scripted_context(world, llm), mode="hybrid", source="summary").ask(QUESTION)
    assert result.answer == "Insufficient information." and len(llm.calls) == 2
    assert result.sources == [] and result.trace["entities"] == [] and result.trace["context"] == ""


def test_round_robin_keeps_first_place_and_best_score():
    assert round_robin({1: 0.9, 2: 0.5}, {3: 0.8, 1: 0.95, 4: 0.1}) == {1: 0.95, 3: 0.8, 2: 0.5, 4: 0.1}


# -- the real tiny model --------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["local", "global", "hybrid"])
def test_real_model_end_to_end(world, tiny_llm_path, mode):
    result = world.ask("Who is the chief executive of Quillfeather Robotics?", method=f"lightrag-{mode}")
    assert result.method == f"lightrag-{mode}" and result.llm.calls == 2
    kw = result.trace["keywords"]
    assert kw["low_level"] and kw["high_level"] and isinstance(kw["fallback"], bool)
    assert result.trace["context"] and result.sources and isinstance(result.answer, str)


def test_incremental_update_extracts_only_the_new_document(tmp_path, models_dir, tiny_llm_path):
    """Issue acceptance: adding a document to an indexed collection makes LLM calls only for the
    new document's chunks; the graph is the union, the first document's mentions untouched."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "robots.txt").write_text(DOCUMENTS["robots.txt"], encoding="utf-8")
    settings = Settings(home=tmp_path / "home", models_dir=models_dir, llm="smollm2-135m", threads=2, build_profile="raw",
                        graph_extractor="llm")
    with Engine(settings, "incremental") as engine:
        assert engine.index([folder]).failed == []
        (first,) = engine.documents()
        mentions = lambda doc: (  # noqa: E731
            engine.db.all("SELECT entity_id, chunk_id, type, description FROM entity_mentions "
                          "WHERE document_id = ? ORDER BY 1, 2", (doc,)),
            engine.db.all("SELECT relation_id, chunk_id, description, keywords FROM relation_mentions WHERE document_id = ? "
                          "ORDER BY 1, 2", (doc,)))
        before = mentions(first.id)
        calls = engine.llm.total.calls

        (folder / "harbour.txt").write_text(DOCUMENTS["harbour.txt"], encoding="utf-8")
        report = engine.index([folder])
        assert report.failed == [] and len(report.added) == 1
        second = next(d for d in engine.documents() if d.id != first.id)
        graph_chunks = engine.db.one("SELECT count(*) FROM chunks WHERE document_id = ? AND source = 'text' "
                                     "AND profile = 'graph'", (second.id,))[0]
        assert graph_chunks >= 1
        assert engine.llm.total.calls - calls == graph_chunks
        assert mentions(first.id) == before
        docs = {r[0] for r in engine.db.all("SELECT DISTINCT document_id FROM entity_mentions")}
        assert docs == {first.id, second.id}

        result = engine.ask("Who acquired Orrin Glassworks?", method="lightrag-hybrid")
        assert result.llm.calls == 2 and result.trace["source"] == "text"
