"""A bridge question answered hop by hop with the default settings and models (issue 55): read
once, declined, then read again hop by hop (the acquirer found first, then its managing director,
both hops in the trace); hop by hop first where ``hops_first`` asks for it; a question without a
bridge, an answer that fits, and the setting turned off read the question once. Since session 58
the answer read once is checked through the entity in the middle (``linked_support``): the
managing director's question is then answered at once, and the chain is tested with it off."""

from pathlib import Path

import pytest

from k2desk.eval.metrics import strict_match

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "hops"
SAMPLE = Path(__file__).resolve().parents[1] / "resources" / "sample"
QUESTION = "In which town is the company that acquired Brenholt Logistics headquartered?"
DECLINED_ONCE = "Who is the managing director of the company that acquired Brenholt Logistics?"


@pytest.fixture(scope="module")
def engine(tmp_path_factory, indexed_with_defaults):
    with indexed_with_defaults(tmp_path_factory.mktemp("hops"), FIXTURE, "hops") as e:
        yield e


@pytest.mark.slow
def test_a_two_hop_question_declined_once_is_answered_hop_by_hop(engine):
    engine.settings.linked_support = False  # her sentence does not mention the acquisition: declined
    try:
        a = engine.ask(DECLINED_ONCE)
    finally:
        engine.settings.linked_support = True
    assert strict_match(a.answer, "Ilka Sommerfeld"), a.trace
    assert a.trace["read_once"]["unfit"] == "declined"
    first, last = a.trace["hops"]
    assert first["question"] == "Which company acquired Brenholt Logistics?" and first["name"] == "Varnstedt Maritime"
    assert last["question"] == "Who is the managing director of Varnstedt Maritime?"
    assert {"harbour-news.md", "varnstedt-maritime.md"} <= {Path(s.document).name for s in a.sources}
    assert a.notes()[-1].startswith("Step by step (read once, it was declined):\n1. Which company acquired")
    assert a.to_json()["question"] == DECLINED_ONCE


@pytest.mark.slow
def test_hops_first_reads_a_bridge_hop_by_hop_before_reading_it_once(engine):
    once = engine.ask(QUESTION)  # the default order: read once, and its answer fits
    assert strict_match(once.answer, "Eckernwalde") and "hops" not in once.trace and "read_once" not in once.trace
    engine.settings.hops_first = True
    try:
        a = engine.ask(QUESTION)
    finally:
        engine.settings.hops_first = False
    assert strict_match(a.answer, "Eckernwalde"), a.trace.get("hops")
    first, last = a.trace["hops"]
    assert first["question"] == "Which company acquired Brenholt Logistics?" and first["name"] == "Varnstedt Maritime"
    assert last["question"] == "In which town is Varnstedt Maritime headquartered?"


@pytest.mark.slow
def test_without_a_bridge_or_with_hops_off_the_question_is_read_once(engine):
    plain = engine.ask("Who is the managing director of Varnstedt Maritime?")
    assert "hops" not in plain.trace and strict_match(plain.answer, "Ilka Sommerfeld")
    engine.settings.hops = False
    engine.settings.linked_support = False
    try:
        once = engine.ask(DECLINED_ONCE)
    finally:
        engine.settings.hops = engine.settings.linked_support = True
    assert "hops" not in once.trace and once.outcome == "declined"


@pytest.mark.slow
def test_read_once_the_managing_director_is_supported_through_the_acquirer(engine):
    a = engine.ask(DECLINED_ONCE)  # the default settings: the acquisition's sentence names the acquirer
    assert strict_match(a.answer, "Ilka Sommerfeld") and a.outcome == "answered", a.trace.get("reader")
    assert "hops" not in a.trace and "read_once" not in a.trace
    assert any("Varnstedt" in name for name in a.trace["reader"]["answer_support"]["linked"])


@pytest.mark.slow
def test_a_bridge_answer_read_once_is_supported_through_the_entity_in_the_middle(tmp_path_factory, indexed_with_defaults):
    # "The cooperative is led by its chair, Henrike Albers" names neither the ferry nor its drive;
    # "… an electric drive charged by the Lindenfeld Solar Cooperative" does, and the cooperative's
    # name joins the two sentences (support.linked_support)
    question = "Who chairs the cooperative that will charge the electric drive of the Altmoor-Weyden river ferry?"
    with indexed_with_defaults(tmp_path_factory.mktemp("linked"), SAMPLE, "sample") as engine:
        a = engine.ask(question)
        assert strict_match(a.answer, "Henrike Albers") and a.outcome == "answered", a.trace.get("reader")
        support = a.trace["reader"]["answer_support"]
        assert any("Lindenfeld" in name for name in support["linked"]) and "ferri" in support["direct_missing"]
        assert "hops" not in a.trace  # read once: the answer fits
        engine.settings.linked_support = False
        try:
            plain = engine.ask(question)
        finally:
            engine.settings.linked_support = True
        assert strict_match(plain.answer, "Henrike Albers") and plain.outcome == "cautioned"
        assert "linked" not in plain.trace["reader"]["answer_support"]
