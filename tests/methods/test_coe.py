"""Chain of Explorations on the test world: the multi-hop path, hypernodes as nodes, the
refinement limit and dead ends (the model's decisions scripted), then the real tiny model."""

from k2desk.graph.vectors import GraphVectors
from k2desk.methods.coe import CoEMethod, plan_schema, selection_schema
from k2desk.prompts import COE_APOLOGY
from k2desk.store.graph import GraphStore
from tests.methods.support import ScriptedLLM, build_world, scripted_context
from tests.methods.support import schema_props as props

QUESTION = "Who leads the company that acquired the maker of the Harwick Point lighthouse's lens?"




def script(plan, pick, decide, answer="Anneli Korhonen"):
    """A reply function: ``plan`` (dict, or a list used one per planning call), ``pick(names,
    prompt)`` -> chosen names, ``decide(prompt, choices)`` -> decision."""
    plans = plan if isinstance(plan, list) else None

    def reply(prompt, schema):
        if schema is None:
            return answer
        p = props(schema)
        if "start" in p:
            return plans.pop(0) if plans else plan
        if "selected" in p:
            return {"selected": pick(p["selected"]["items"]["enum"], prompt)}
        return {"decision": decide(prompt, p["decision"]["enum"])}
    return reply


def first_matching(*words):
    def pick(names, prompt):
        chosen = [n for n in names if any(w in n for w in words)]
        return chosen[:1] or names[:1]
    return pick


def kinds(llm):
    out = []
    for _, schema, _ in llm.calls:
        p = props(schema) if schema else {}
        out.append("plan" if "start" in p else "select" if "selected" in p else "evaluate" if "decision" in p else "answer")
    return out


def test_schemas_bound_every_choice():
    plan = props(plan_schema(3))
    assert plan["steps"]["maxItems"] == 3 and plan["start"]["maxLength"] <= 80
    sel = props(selection_schema(["a", "b"], 2))["selected"]
    assert sel["items"]["enum"] == ["a", "b"] and sel["minItems"] == 1 and sel["maxItems"] == 2


def test_multi_hop_path_then_respond(world):
    plan = {"start": "Harwick Point Lighthouse", "steps": [
        {"kind": "relation", "query": "who made the lens"},
        {"kind": "relation", "query": "acquired by which company"},
        {"kind": "relation", "query": "chief executive of the company"}]}
    picks = iter([("Harwick Point Lighthouse",), ("Orrin Glassworks",), ("acquisition",), ("Anneli Korhonen",)])
    llm = ScriptedLLM(script(plan, lambda names, prompt: first_matching(*next(picks))(names, prompt),
                             lambda prompt, choices: "respond" if "Anneli Korhonen" in prompt else "continue"))
    result = CoEMethod(scripted_context(world, llm)).ask(QUESTION)
    assert result.answer == "Anneli Korhonen"
    trace = result.trace
    assert trace["outcome"] == "respond" and trace["failed_tries"] == 0 and len(trace["attempts"]) == 1
    steps = trace["attempts"][0]["steps"]
    assert [s["kind"] for s in steps] == ["node", "relation", "relation", "relation"]
    assert steps[0]["selected"] == ["Harwick Point Lighthouse"]
    assert steps[1]["selected"] == ["Orrin Glassworks -[supplier]-> Harwick Point Lighthouse"]
    assert steps[2]["selected"] == ["Quillfeather Robotics -[acquisition]-> Orrin Glassworks"]
    assert steps[3]["selected"] == ["Anneli Korhonen -[leadership]-> Quillfeather Robotics"]
    assert [s["evaluation"]["decision"] for s in steps] == ["continue", "continue", "continue", "respond"]
    assert steps[-1]["evaluation"]["choices"] == ["respond", "needs refinement"]  # last step: nothing to continue to
    assert ("Quillfeather Robotics -[acquisition]-> Orrin Glassworks"
            ": Quillfeather Robotics acquired Orrin Glassworks in 2023.") in trace["path"]
    assert "Knowledge graph path:" in trace["context"] and "Anneli Korhonen" in trace["context"]
    assert {s.document.rsplit("/", 1)[-1] for s in result.sources} == {"harbour.txt", "robots.txt"}
    assert kinds(llm) == ["plan"] + ["select", "evaluate"] * 4 + ["answer"]
    assert result.llm.calls == len(llm.calls) == 10


def test_node_step_finds_a_triple_hypernode_and_its_qualifier(world):
    plan = {"start": "Quillfeather Robotics acquired Orrin Glassworks", "steps": [{"kind": "relation", "query": "in which year"}]}
    llm = ScriptedLLM(script(plan, first_matching("-[acquisition]->", "2023"),
                             lambda prompt, choices: "respond" if "-[in]-> (2023)" in prompt else choices[0]))
    result = CoEMethod(scripted_context(world, llm)).ask("When did Quillfeather Robotics acquire Orrin Glassworks?")
    first, second = result.trace["attempts"][0]["steps"]
    assert "(Quillfeather Robotics) -[acquisition]-> (Orrin Glassworks)" in {c["name"] for c in first["candidates"]}
    assert first["selected"] == ["(Quillfeather Robotics) -[acquisition]-> (Orrin Glassworks)"]
    assert second["selected"][0].endswith("-[in]-> 2023")
    assert result.trace["outcome"] == "respond"
    assert ("(Quillfeather Robotics) -[acquisition]-> (Orrin Glassworks) "
            "-[in]-> (2023): The year of the acquisition.") in result.trace["path"]


def test_refinement_limit_ends_in_the_apology(world):
    plans = [{"start": "Harwick Point Lighthouse", "steps": [{"kind": "relation", "query": f"try {n}"}]} for n in range(5)]
    llm = ScriptedLLM(script(plans, lambda names, prompt: names[:1], lambda prompt, choices: "needs refinement"))
    result = CoEMethod(scripted_context(world, llm)).ask(QUESTION)
    assert result.answer == COE_APOLOGY and result.sources == []
    trace = result.trace
    assert trace["outcome"] == "refinement limit" and trace["failed_tries"] == 3
    assert len(trace["attempts"]) == 3  # the first plan and two re-plans; the third failure ends it
    assert kinds(llm) == ["plan", "select", "evaluate"] * 3  # no answer call: the apology is not generated
    assert "did not work" in llm.calls[3][0]  # the re-plan prompt shows the failed plan


def test_dead_end_counts_as_a_failed_try(tmp_path, models_dir):
    engine = build_world(tmp_path, models_dir)  # plus an entity with no relations: nothing to follow from it
    doc = engine.documents()[0]
    with engine.db.transaction():
        GraphStore(engine.db).upsert_entity("text", "Lamp Room", None, "location", "A room.", engine.docs.chunk_ids(doc.id)[0], doc.id)
        lamp = engine.db.one("SELECT id FROM entities WHERE name = 'lamp room'")[0]
        GraphVectors(engine.db, engine.embedder).refresh([lamp], [], "text")
    plan = {"start": "Lamp Room", "steps": [{"kind": "relation", "query": "anything"}]}
    llm = ScriptedLLM(script(plan, first_matching("Lamp Room"), lambda prompt, choices: "continue"))
    result = CoEMethod(scripted_context(engine, llm), max_failed_tries=1).ask("What is in the lamp room?")
    steps = result.trace["attempts"][0]["steps"]
    assert steps[0]["selected"] == ["Lamp Room"]
    assert steps[1]["evaluation"] == {"decision": "needs refinement", "auto": "dead end"}
    assert result.answer == COE_APOLOGY and result.trace["outcome"] == "refinement limit"


def test_unparseable_plan_falls_back_to_the_question_keywords(world):
    llm = ScriptedLLM(script("not json", lambda names, prompt: names[:1], lambda prompt, choices: "respond"))
    result = CoEMethod(scripted_context(world, llm)).ask("Who keeps the Harwick Point lighthouse?")
    attempt = result.trace["attempts"][0]
    assert attempt["plan_fallback"] and attempt["plan"][0] == "node: Harwick Point"
    assert result.trace["outcome"] == "respond"


def test_real_tiny_model_end_to_end(world):
    result = world.ask("Who keeps the Harwick Point lighthouse?", method="coe")
    trace = result.trace
    assert trace["attempts"] and trace["attempts"][0]["steps"][0]["kind"] == "node"
    assert trace["outcome"] in ("respond", "exhausted", "refinement limit")
    assert result.answer.strip()
    assert 2 <= result.llm.calls <= 1 + 3 * (1 + 2 * 4) + 1
    if trace["outcome"] != "respond":
        assert result.answer == COE_APOLOGY
