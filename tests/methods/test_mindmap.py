"""Mapping the Mind on the test world: sub-query cap and fallback, depth limit, the no-revisit
rule, top_k chunks per sub-query, the multi-hop path and the LLM call bound (the model's
decisions scripted), then the real tiny model."""

import pytest

from k2desk.errors import Cancelled
from k2desk.methods.mindmap import QUERY_MAX, REASONING_MAX, MindMapMethod, step_schema, sub_queries_schema
from k2desk.progress import CancelToken
from k2desk.store.vectors import VectorIndex
from tests.methods.support import DOCUMENTS, ScriptedLLM, scripted_context
from tests.methods.support import schema_props as props

QUESTION = "Who leads the company that acquired the maker of the Harwick Point lighthouse's lens?"




def script(queries, explore=lambda offered, prompt: offered, answer="Anneli Korhonen"):
    """A reply function: ``queries`` (a list, or a str sent as is) for the sub-query call,
    ``explore(offered names, prompt)`` -> names for each step, ``answer`` for the final call."""
    def reply(prompt, schema):
        if schema is None:
            return answer
        p = props(schema)
        if "sub_queries" in p:
            return queries if isinstance(queries, str) else {"reasoning": "Step by step.", "sub_queries": queries}
        out = {"summary": f"summary of {prompt.rsplit('Sub-query: ', 1)[-1]}"}
        if "explore" in p:
            out["explore"] = explore(p["explore"]["items"]["enum"], prompt)
        return out
    return reply


def run(world, reply, **options):
    llm = ScriptedLLM(reply)
    return MindMapMethod(scripted_context(world, llm), **options).ask(QUESTION), llm


def step_calls(llm):
    return [(prompt, schema) for prompt, schema, _ in llm.calls if schema is not None and "summary" in props(schema)]


def test_schemas_bound_every_string_and_list():
    sq = props(sub_queries_schema(3))
    assert list(sq) == ["reasoning", "sub_queries"] and sq["reasoning"]["maxLength"] == REASONING_MAX
    assert sq["sub_queries"]["maxItems"] == 3 and sq["sub_queries"]["items"]["maxLength"] == QUERY_MAX
    step = props(step_schema(["Orrin Glassworks", "Saltmere Bay"]))
    assert list(step) == ["summary", "explore"] and step["summary"]["maxLength"] > 0
    assert step["explore"]["items"]["enum"] == ["Orrin Glassworks", "Saltmere Bay"] and step["explore"]["maxItems"] <= 3
    assert list(props(step_schema([]))) == ["summary"]


def test_sub_query_cap_and_call_bound(world):
    five = ["Harwick Point Lighthouse", "Quillfeather Robotics", "Anneli Korhonen", "Saltmere Council", "Tampere"]
    result, llm = run(world, script(five))
    assert [q["query"] for q in result.trace["sub_queries"]] == five[:3]
    assert result.trace["sub_query_fallback"] is False
    assert result.llm.calls == len(llm.calls) <= 1 + 3 * 2 + 1
    assert llm.calls[-1][1] is None and result.answer == "Anneli Korhonen"
    assert "Sub-query: Quillfeather Robotics" in result.trace["context"]


def test_unparseable_sub_queries_fall_back_to_the_question(world):
    result, _ = run(world, script("not json at all"))
    assert [q["query"] for q in result.trace["sub_queries"]] == [QUESTION]
    assert result.trace["sub_query_fallback"] is True


@pytest.mark.parametrize("max_depth", [1, 2, 3])
def test_depth_limit(world, max_depth):
    result, llm = run(world, script(["Harwick Point Lighthouse", "Quillfeather Robotics"]), max_depth=max_depth)
    for record in result.trace["sub_queries"]:
        assert [s["depth"] for s in record["steps"]] == list(range(1, len(record["steps"]) + 1))
        assert 1 <= len(record["steps"]) <= max_depth
        assert all(s["explore"] == [] for s in record["steps"] if s["depth"] == max_depth)
    assert len(step_calls(llm)) <= 2 * max_depth
    if max_depth == 1:  # nothing to explore beyond the last depth: only a summary is asked
        assert all("explore" not in props(schema) for _, schema in step_calls(llm))


def test_no_entity_is_visited_twice(world):
    """A script that always explores everything it is offered: no entity is queried twice, a
    second sub-query about a visited entity does not re-explore it, and the enum offered never
    holds an entity already visited."""
    queries = ["Harwick Point Lighthouse", "Who keeps the Harwick Point Lighthouse?", "Orrin Glassworks"]
    result, llm = run(world, script(queries), max_depth=3)
    visited = result.trace["visited"]
    assert len(visited) == len(set(visited)) and "Harwick Point Lighthouse" in visited
    seen: list[str] = []
    for record in result.trace["sub_queries"]:
        for step in record["steps"]:
            assert not set(step["entities"]) & set(seen)
            seen += step["entities"]
            assert not set(step["offered"]) & set(seen)
            assert set(step["explore"]) <= set(step["offered"])
    assert seen == visited
    first, second, third = result.trace["sub_queries"]
    assert first["steps"][0]["entities"][0] == "Harwick Point Lighthouse"
    assert all("Harwick Point Lighthouse" not in s["entities"] for s in second["steps"] + third["steps"])
    assert all("Orrin Glassworks" not in s["entities"] for s in third["steps"])
    offered = [props(schema)["explore"]["items"]["enum"] for _, schema in step_calls(llm) if "explore" in props(schema)]
    assert offered == [s["offered"] for r in result.trace["sub_queries"] for s in r["steps"] if s["offered"]]


def test_multi_hop_path(world):
    """Harwick Point Lighthouse -> (explore) Orrin Glassworks -> its acquirer Quillfeather Robotics."""
    path = iter(["Orrin Glassworks", "Quillfeather Robotics"])

    def explore(offered, prompt):
        name = next(path, None)
        return [name] if name in offered else []
    result, llm = run(world, script(["Harwick Point Lighthouse"], explore), max_depth=3)
    steps = result.trace["sub_queries"][0]["steps"]
    assert steps[0]["entities"] == ["Harwick Point Lighthouse"] and steps[0]["explore"] == ["Orrin Glassworks"]
    assert steps[1]["entities"] == ["Orrin Glassworks"] and "Quillfeather Robotics" in steps[1]["offered"]
    assert "Quillfeather Robotics acquired Orrin Glassworks" in step_calls(llm)[1][0]
    assert steps[2]["entities"] == ["Quillfeather Robotics"] and "Anneli Korhonen" in step_calls(llm)[2][0]
    assert result.trace["visited"] == ["Harwick Point Lighthouse", "Orrin Glassworks", "Quillfeather Robotics"]
    assert "summary of Harwick Point Lighthouse" in result.trace["context"]


@pytest.mark.parametrize("top_k", [1, 3])
def test_top_k_source_chunks_per_sub_query(world, top_k):
    n_chunks = VectorIndex(world.db, "chunks").count("text")
    result, _ = run(world, script(["Harwick Point Lighthouse", "Quillfeather Robotics"]), top_k=top_k)
    for record in result.trace["sub_queries"]:
        assert len(record["chunks"]) == min(top_k, n_chunks)
    ids = [s.chunk_id for s in result.sources]
    assert len(ids) == len(set(ids)) and set(ids) == {c for r in result.trace["sub_queries"] for c in r["chunks"]}
    assert all(s.text in DOCUMENTS.values() for s in result.sources)
    if top_k == 1:  # each sub-query's closest chunk is its own document's
        assert result.sources[0].document.endswith("harbour.txt") and result.sources[-1].document.endswith("robots.txt")


def test_sub_query_without_entities_still_fetches_chunks(world):
    result, llm = run(world, script(["What is the weather on Mars?"]))
    record = result.trace["sub_queries"][0]
    assert record["steps"] == [] and len(record["chunks"]) >= 1
    assert result.trace["visited"] == [] and len(llm.calls) == 2


def test_cancel_before_an_llm_call(world):
    cancel = CancelToken()
    cancel.cancel()
    llm = ScriptedLLM(script(["Harwick Point Lighthouse"]))
    with pytest.raises(Cancelled):
        MindMapMethod(scripted_context(world, llm)).ask(QUESTION, cancel=cancel)
    assert llm.calls == []


def test_real_tiny_model_end_to_end(world):
    stages = []
    result = world.ask(QUESTION, method="mindmap", progress=lambda stage, done, total: stages.append(stage))
    trace = result.trace
    assert trace["source"] == "text" and 1 <= len(trace["sub_queries"]) <= 3
    assert all(q["query"].strip() for q in trace["sub_queries"])
    assert len(trace["visited"]) == len(set(trace["visited"]))
    assert result.sources and all(s.text in DOCUMENTS.values() for s in result.sources)
    assert 2 <= result.llm.calls <= 1 + 3 * 2 + 1
    assert result.answer.strip() and "generate" in stages
    assert result.timings["total"] > 0
