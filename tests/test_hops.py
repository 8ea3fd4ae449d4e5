"""A bridge question answered hop by hop with the default settings and models (issue 55): the
acquirer found first, then its headquarters town, both hops in the trace; a question without a
bridge and the setting turned off read the question once."""

from pathlib import Path

import pytest

from k2desk.eval.metrics import strict_match

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "hops"
QUESTION = "In which town is the company that acquired Brenholt Logistics headquartered?"


@pytest.fixture(scope="module")
def engine(tmp_path_factory, indexed_with_defaults):
    with indexed_with_defaults(tmp_path_factory.mktemp("hops"), FIXTURE, "hops") as e:
        yield e


@pytest.mark.slow
def test_a_two_hop_question_is_answered_hop_by_hop(engine):
    a = engine.ask(QUESTION)
    assert strict_match(a.answer, "Eckernwalde"), a.trace.get("hops")
    first, last = a.trace["hops"]
    assert first["question"] == "Which company acquired Brenholt Logistics?" and first["name"] == "Varnstedt Maritime"
    assert last["question"] == "In which town is Varnstedt Maritime headquartered?"
    assert {"harbour-news.md", "varnstedt-maritime.md"} <= {Path(s.document).name for s in a.sources}
    assert a.to_json()["question"] == QUESTION


@pytest.mark.slow
def test_without_a_bridge_or_with_hops_off_the_question_is_read_once(engine):
    plain = engine.ask("Who is the managing director of Varnstedt Maritime?")
    assert "hops" not in plain.trace and strict_match(plain.answer, "Ilka Sommerfeld")
    engine.settings.hops = False
    try:
        once = engine.ask(QUESTION)
    finally:
        engine.settings.hops = True
    assert "hops" not in once.trace
