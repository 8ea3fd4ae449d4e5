"""A bridge question answered hop by hop: each description asked first and its answer put in its
place, the hops in the trace, a hop the documents do not answer ending the chain with the step
named. The method is stood in for by a table of answers (the real method: tests/test_hops.py)."""

import pytest

from k2desk import prompts
from k2desk.graph.nlp import load_pipeline
from k2desk.hops import answer_by_hops, answer_once_then_hops
from k2desk.types import Answer, Source
from k2desk.verdict import Verdict, declined


@pytest.fixture(scope="module")
def nlp():
    return load_pipeline()


def table(replies):
    """ask(question, last) answering from ``replies`` (question -> answer; None: declined)."""
    asked = []

    def ask(question, last):
        asked.append((question, last))
        reply = replies[question]
        n = len(asked)
        trace = {"reader": {"form": "abstain"}} if reply is None else {"reader": {"form": "short"}}
        return Answer(question, "k2rag", reply or prompts.NOT_IN_DOCUMENTS,
                      [Source(f"doc{n}.md", n, 1.0, f"passage {n}")], trace, {"total": 1.0},
                      verdict=declined("the passages do not mention it") if reply is None else Verdict())
    return ask, asked


def test_a_two_hop_question(nlp):
    ask, asked = table({"Which company salvaged the wreck?": "Nordsee Bergung",
                        "Who founded Nordsee Bergung?": "Karl Imhoff"})
    a = answer_by_hops("Who founded the company that salvaged the wreck?", ask, nlp)
    assert asked == [("Which company salvaged the wreck?", False), ("Who founded Nordsee Bergung?", True)]
    assert (a.question, a.answer, a.outcome) == ("Who founded the company that salvaged the wreck?", "Karl Imhoff", "answered")
    assert [h["question"] for h in a.trace["hops"]] == [q for q, _ in asked]
    assert a.trace["hops"][0]["name"] == "Nordsee Bergung"
    assert a.steps() == "1. Which company salvaged the wreck? → Nordsee Bergung\n2. Who founded Nordsee Bergung? → Karl Imhoff"
    assert [s.document for s in a.sources] == ["doc2.md", "doc1.md"]  # the last hop's passages first
    assert a.timings["total"] == 2.0


def test_a_three_hop_question_reads_the_of_phrase_around_the_first_answer(nlp):
    ask, asked = table({"Which shipyard built the ferry?": "Kolberg yard",
                        "Who or what is the founder of Kolberg yard?": "Hinrich Kolberg",
                        "Where was Hinrich Kolberg born?": "Sandhorst"})
    a = answer_by_hops("Where was the founder of the shipyard that built the ferry born?", ask, nlp)
    assert [q for q, _ in asked] == ["Which shipyard built the ferry?", "Who or what is the founder of Kolberg yard?",
                                     "Where was Hinrich Kolberg born?"]
    assert a.answer == "Sandhorst" and len(a.trace["hops"]) == 3


def test_a_hop_not_in_the_documents_ends_the_chain_and_says_which(nlp):
    ask, asked = table({"Which company salvaged the wreck?": None})
    a = answer_by_hops("Who founded the company that salvaged the wreck?", ask, nlp)
    assert len(asked) == 1 and a.outcome == "declined"
    assert a.answer.startswith("Not in your documents") and "the company that salvaged the wreck (step 1" in a.answer


def test_a_question_without_a_bridge_is_left_to_the_caller(nlp):
    ask, asked = table({})
    assert answer_by_hops("Who leads the Lindenfeld Solar Cooperative?", ask, nlp) is None and asked == []


QUESTION = "Who founded the sailing school whose keelboat was refitted?"


def test_read_once_first_and_kept_where_it_fits(nlp):
    ask, asked = table({QUESTION: "Hester Quiller"})
    a = answer_once_then_hops(QUESTION, ask, nlp)
    assert asked == [(QUESTION, True)] and a.answer == "Hester Quiller"  # streamed, one reading
    assert "hops" not in a.trace and "read_once" not in a.trace


def test_the_middle_entity_read_once_is_read_again_hop_by_hop(nlp):
    ask, asked = table({QUESTION: "Skellmouth Sailing School",
                        "Which sailing school's keelboat was refitted?": "Skellmouth Sailing School",
                        "Who founded Skellmouth Sailing School?": "Hester Quiller"})
    a = answer_once_then_hops(QUESTION, ask, nlp)
    # the first reading streamed; the chain's answer is not streamed a second time
    assert asked == [(QUESTION, True), ("Which sailing school's keelboat was refitted?", False),
                     ("Who founded Skellmouth Sailing School?", False)]
    assert a.answer == "Hester Quiller" and len(a.trace["hops"]) == 2
    assert a.trace["read_once"]["unfit"] == "the description" and a.trace["read_once"]["answer"] == "Skellmouth Sailing School"
    assert a.timings["total"] == 3.0 and a.question == QUESTION


def test_a_declined_reading_and_a_declined_chain_stay_declined(nlp):
    ask, asked = table({QUESTION: None, "Which sailing school's keelboat was refitted?": None})
    a = answer_once_then_hops(QUESTION, ask, nlp)
    assert len(asked) == 2 and a.outcome == "declined" and a.answer == prompts.NOT_IN_DOCUMENTS
    assert len(a.trace["hops_tried"]) == 1 and a.timings["total"] == 2.0


def test_a_decline_for_the_question_itself_is_not_read_again_hop_by_hop(nlp):
    # "no document in this collection is from The Guardian": the bridge's hops would name it too
    def ask(question, last):
        asked.append(question)
        return Answer(question, "k2rag", "Insufficient information.", [], {}, {"total": 0.0},
                      verdict=declined("no document in this collection is from Guardian", settled=True))
    asked: list = []
    a = answer_once_then_hops(QUESTION.replace("Who founded", "According to The Guardian, who founded"), ask, nlp)
    assert asked == [a.question] and a.verdict.settled and "hops_tried" not in a.trace
    # the same decline, not settled, is read again hop by hop (test_a_declined_reading_and_a_declined_chain_...)
    ask2, asked2 = table({QUESTION: None, "Which sailing school's keelboat was refitted?": None})
    assert not answer_once_then_hops(QUESTION, ask2, nlp).verdict.settled and len(asked2) == 2


def test_an_unfit_answer_without_a_bridge_stands(nlp):
    ask, asked = table({"How strong is Lantern Ale?": "Lantern Ale"})
    a = answer_once_then_hops("How strong is Lantern Ale?", ask, nlp)
    assert len(asked) == 1 and a.answer == "Lantern Ale"


def test_an_of_phrase_no_document_names_is_read_as_it_stands(nlp):
    ask, asked = table({"Which lighthouse does Mirela Varga keep?": "Harwick Point Lighthouse",
                        "Who or what is the tower of Harwick Point Lighthouse?": None,
                        "How tall is the tower of Harwick Point Lighthouse?": "31 metres"})
    a = answer_by_hops("How tall is the tower of the lighthouse that Mirela Varga keeps?", ask, nlp)
    assert [q for q, _ in asked] == ["Which lighthouse does Mirela Varga keep?",
                                     "Who or what is the tower of Harwick Point Lighthouse?",
                                     "How tall is the tower of Harwick Point Lighthouse?"]
    assert a.answer == "31 metres" and a.outcome == "answered"
    assert [h["question"] for h in a.trace["hops"]] == [asked[0][0], asked[2][0]]  # the step left out is not shown
    assert a.timings["total"] == 3.0 and [s.document for s in a.sources] == ["doc3.md", "doc1.md"]
