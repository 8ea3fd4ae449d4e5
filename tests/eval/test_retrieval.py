"""Retrieval metrics by MultiHop-RAG's rule and at document level, pinned on hand-made rankings."""

import json
from types import SimpleNamespace

import pytest

from k2desk.eval.datasets import Question
from k2desk.eval.retrieval import (
    Passage,
    document_scores,
    retrieval_command,
    run_retrieval,
    score_question,
    summarize,
    table,
)

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
                                                   "doc_hits1": 1.0, "doc_hits4": 1.0, "doc_hits10": 1.0, "doc_mrr10": 1.0,
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


PAPERS = [f"leval://scientific_qa/{i}" for i in range(4)]


def test_document_level_counts_each_document_once_at_its_best_rank():
    # documents of the passages: 0 0 1 2 2 3 ...; the evidence is paper 2
    ranked = [p("a", PAPERS[0]), p("b", PAPERS[0]), p("c", PAPERS[1]), p("d", PAPERS[2]), p("e", PAPERS[2]), p("f", PAPERS[3])]
    m = document_scores(ranked, [PAPERS[2]])
    assert m == {"doc_hits1": 0.0, "doc_hits4": 1.0, "doc_hits10": 1.0, "doc_mrr10": pytest.approx(1 / 3)}  # 3rd document
    assert document_scores(ranked, [PAPERS[0]])["doc_mrr10"] == 1.0
    beyond = [p(str(i), PAPERS[0]) for i in range(10)] + [p("late", PAPERS[2])]  # 11th passage: not counted
    assert document_scores(beyond, [PAPERS[2]]) == {"doc_hits1": 0.0, "doc_hits4": 0.0, "doc_hits10": 0.0, "doc_mrr10": 0.0}
    # several evidence documents: any one is a hit; "all of them" is scored beside
    two = document_scores(ranked, [PAPERS[3], PAPERS[1]])
    assert (two["doc_hits1"], two["doc_hits4"], two["doc_mrr10"], two["all_docs4"], two["all_docs10"]) == (0.0, 1.0, 0.5, 0.0, 1.0)


def test_documents_only_evidence_scores_documents_only():
    ranked = [p("no fact to find", PAPERS[1]), p("x", PAPERS[0])]
    m = score_question(ranked, [None], [PAPERS[0]])  # evidence_list: [{"url": ..., "fact": null}]
    assert m == {"doc_hits1": 0.0, "doc_hits4": 1.0, "doc_hits10": 1.0, "doc_mrr10": 0.5}


def test_run_on_a_documents_only_bench_and_redo_older_rows(tmp_path):
    qs = [Question(f"s-{i}", f"what does paper {i} use?", "relu", "open", evidence_list=[{"url": PAPERS[i], "fact": None}])
          for i in range(3)]

    def ranker(q):  # paper i's passage first for paper 0 and 1; paper 2 never comes
        i = int(q.split()[3])
        return [p("x", PAPERS[i] if i < 2 else PAPERS[3]), p("y", PAPERS[3]), p("z", PAPERS[0])]

    # a row from before the document level: scored again
    (tmp_path / "retrieval.jsonl").write_text(json.dumps({"id": "s-0", "method": "bm25", "type": "open", "hits4": 0.0}) + "\n")
    rows = run_retrieval(qs, {"bm25": ranker}, tmp_path)
    assert sorted(r["id"] for r in rows) == ["s-0", "s-1", "s-2"] and all("hits4" not in r for r in rows)
    s = summarize(rows)["bm25"]["all"]
    assert (s["n"], s["doc_hits1"], s["doc_hits4"], s["doc_mrr10"]) == (3.0, pytest.approx(2 / 3), pytest.approx(2 / 3),
                                                                          pytest.approx(2 / 3))
    text = table(summarize(rows), ["bm25"])
    assert text.splitlines()[0] == "| method | questions | n | doc Hits@1 | doc Hits@4 | doc Hits@10 | doc MRR@10 |"
    assert "| bm25 | all | 3 | 0.667 | 0.667 | 0.667 | 0.667 |" in text


def test_retrieval_command_on_a_generated_bench(tmp_path, monkeypatch):
    """The command end to end on a three-paper bench whose evidence names documents only, with an
    engine that ranks by shared words (the index and the methods are tested elsewhere)."""
    from k2desk.config import Settings
    from k2desk.types import Source

    bench = tmp_path / "bench"
    bench.mkdir()
    papers = ["relu activations for tweets", "a dataset of tweets from accounts", "chunks of tweets in time"]
    (bench / "corpus.jsonl").write_text("".join(json.dumps({"title": f"paper {i}", "body": b, "url": PAPERS[i]}) + "\n"
                                                for i, b in enumerate(papers)))
    queries = [("which activations", 0), ("how was the dataset built from accounts", 1), ("what are chunks in time", 2)]
    (bench / "queries.jsonl").write_text("".join(json.dumps({"id": f"q{i}", "query": q, "answer": "x", "question_type": "open",
                                                             "evidence_list": [{"url": PAPERS[d], "fact": None}]}) + "\n"
                                                 for i, (q, d) in enumerate(queries)))

    class Engine:
        def __init__(self, settings, collection):
            self.settings = settings

        def index(self, paths, progress=None, cancel=None):
            self.corpus = str(paths[0])

        def method(self, name):
            def retrieve(question):
                words = set(question.split())
                order = sorted(range(3), key=lambda i: -len(words & set(papers[i].split())))
                return [Source(f"{self.corpus}#{PAPERS[i]}", i, 1.0, papers[i]) for i in order]
            return SimpleNamespace(retrieve=retrieve)

        def close(self):
            pass

    monkeypatch.setattr("k2desk.engine.Engine", Engine)
    out = tmp_path / "out"
    args = SimpleNamespace(bench_dir=bench, out=out, methods="keyword", limit=None, seed=0, queries=None)
    assert retrieval_command(args, Settings(home=tmp_path / "home", threads=1)) == 0
    text = (out / "retrieval.md").read_text()
    assert "| method | questions | n | doc Hits@1 | doc Hits@4 | doc Hits@10 | doc MRR@10 |\n" in text  # no fact level
    assert "| keyword | all | 3 | 1.000 | 1.000 | 1.000 | 1.000 |" in text
    assert "- code: " in text and "build_profile=naive" in text and "threads=1" in text
