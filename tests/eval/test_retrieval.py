"""Retrieval metrics by MultiHop-RAG's rule, pinned on hand-made rankings."""

import json

import pytest

from k2desk.eval.datasets import Question
from k2desk.eval.retrieval import Passage, run_retrieval, score_question, summarize, table

FACTS = ["The tunnel cost 3.1 billion francs.", "Freight trains start in January."]
URLS = ["https://a.example/1", "https://b.example/2"]


def p(text: str, url: str) -> Passage:
    return Passage(text, f"/corpus.jsonl#{url}")


def test_a_fact_is_found_with_spaces_and_newlines_removed():
    ranked = [p("nothing here", URLS[0]), p("Intro.\nThe tunnel cost 3.1 billion\nfrancs. More.", URLS[0])]
    m = score_question(ranked, FACTS, URLS)
    assert m["hits4"] == m["hits10"] == 1.0
    assert m["mrr10"] == pytest.approx(1 / 2)
    assert m["map10"] == pytest.approx((1 / 2) / 2)  # one of two facts, found at rank 2
    assert m["all_docs10"] == 0.0  # article b never came


def test_ranks_beyond_four_and_ten_and_every_article():
    filler = [p(f"filler {i}", URLS[0]) for i in range(4)]
    ranked = filler + [p("Freight trains start in January.", URLS[1]), p("The tunnel cost 3.1 billion francs.", URLS[0])]
    m = score_question(ranked, FACTS, URLS)
    assert (m["hits4"], m["hits10"], m["all_docs4"], m["all_docs10"]) == (0.0, 1.0, 0.0, 1.0)
    assert m["mrr10"] == pytest.approx(1 / 5)
    assert m["map10"] == pytest.approx((1 / 5 + 1 / 6) / 2)
    beyond = [p(f"filler {i}", URLS[0]) for i in range(10)] + ranked[-2:]
    assert score_question(beyond, FACTS, URLS) == {"hits4": 0.0, "hits10": 0.0, "map10": 0.0, "mrr10": 0.0,
                                                   "all_docs4": 0.0, "all_docs10": 0.0}


def test_a_passage_holding_both_facts_counts_each_once():
    both = p("The tunnel cost 3.1 billion francs. Freight trains start in January.", URLS[0])
    m = score_question([both, both], FACTS, URLS)
    assert m["map10"] == pytest.approx((2 / 1) / 2) and m["mrr10"] == 1.0


def test_run_keeps_rows_by_id_and_resumes(tmp_path):
    ev = [{"fact": FACTS[0], "url": URLS[0]}, {"fact": FACTS[1], "url": URLS[1]}]
    qs = [Question("q1", "how much did it cost?", "3.1 billion", "inference_query", evidence_list=ev),
          Question("q2", "what is unknown?", "Insufficient information.", "null_query")]
    calls = []

    def good(q):
        calls.append(q)
        return [p(FACTS[0], URLS[0]), p(FACTS[1], URLS[1])]

    rows = run_retrieval(qs, {"good": good}, tmp_path)
    assert [r["id"] for r in rows] == ["q1"] and calls == ["how much did it cost?"]  # null questions left out
    assert "tunnel" not in (tmp_path / "retrieval.jsonl").read_text()  # no benchmark text kept
    assert run_retrieval(qs, {"good": good}, tmp_path) == rows and len(calls) == 1  # resumed, not asked again
    s = summarize(rows)
    assert s["good"]["all"]["hits4"] == 1.0 and s["good"]["inference_query"]["n"] == 1
    assert "| good | all | 1 | 1.000 |" in table(s, ["good"])
    assert json.loads((tmp_path / "retrieval.jsonl").read_text())["method"] == "good"
