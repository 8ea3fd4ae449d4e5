"""A bridge question answered hop by hop with the default settings and models (issue 55): read
once, declined, then read again hop by hop (the acquirer found first, then its managing director,
both hops in the trace); hop by hop first where ``hops_first`` asks for it; a question without a
bridge, an answer that fits, and the setting turned off read the question once."""

from pathlib import Path

import pytest

from k2desk.eval.metrics import strict_match

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "hops"
QUESTION = "In which town is the company that acquired Brenholt Logistics headquartered?"
DECLINED_ONCE = "Who is the managing director of the company that acquired Brenholt Logistics?"


@pytest.fixture(scope="module")
def engine(tmp_path_factory, indexed_with_defaults):
    with indexed_with_defaults(tmp_path_factory.mktemp("hops"), FIXTURE, "hops") as e:
        yield e


@pytest.mark.slow
def test_a_two_hop_question_declined_once_is_answered_hop_by_hop(engine):
    a = engine.ask(DECLINED_ONCE)
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
    try:
        once = engine.ask(DECLINED_ONCE)
    finally:
        engine.settings.hops = True
    assert "hops" not in once.trace and once.outcome == "declined"
