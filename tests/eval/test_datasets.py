"""Bench loading, the stratified limit and the K folds."""

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from k2desk.errors import UsageError
from k2desk.eval import datasets as D

BENCH = Path(__file__).resolve().parents[3] / "shared" / "bench" / "multihop-rag-dev"
needs_bench = pytest.mark.skipif(not BENCH.is_dir(), reason="shared MultiHop-RAG slice not present")


def _write_bench(tmp_path, lines, name="queries_sample.jsonl"):
    (tmp_path / "corpus.jsonl").write_text('{"title": "t", "body": "b", "url": "u"}\n', encoding="utf-8")
    (tmp_path / name).write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return tmp_path


@needs_bench
def test_load_real_sample():
    bench = D.load_bench(BENCH, queries="queries_sample.jsonl")
    assert len(bench.questions) == 60
    assert Counter(q.question_type for q in bench.questions) == {
        "comparison_query": 18, "inference_query": 18, "temporal_query": 18, "null_query": 6}
    first = bench.questions[0]
    assert first.id == "mhr-0153" and first.answer == "no" and len(first.evidence_list) == 3
    assert first.prompt == first.query and not first.is_multiple_choice
    assert bench.corpus == BENCH / "corpus.jsonl"
    expected = "bench-" + hashlib.sha256((BENCH / "corpus.jsonl").read_bytes()).hexdigest()[:12]
    assert bench.collection == expected == D.collection_name(BENCH / "corpus.jsonl")


@needs_bench
def test_queries_jsonl_preferred():
    assert D.load_bench(BENCH).queries_file.name == "queries.jsonl"


def test_falls_back_to_sample_and_defaults(tmp_path):
    _write_bench(tmp_path, [{"query": "Q?", "answer": "A"}])
    bench = D.load_bench(tmp_path)
    assert bench.queries_file.name == "queries_sample.jsonl"
    q = bench.questions[0]
    assert (q.id, q.question_type, q.answer) == ("q-1", "unknown", "A")


@needs_bench
def test_stratified_limit_covers_types():
    bench = D.load_bench(BENCH, queries="queries_sample.jsonl")
    ten = D.select(bench.questions, 10, seed=0)
    assert Counter(q.question_type for q in ten) == {
        "comparison_query": 3, "inference_query": 3, "temporal_query": 3, "null_query": 1}
    four = D.select(bench.questions, 4, seed=0)
    assert len({q.question_type for q in four}) == 4
    # prefixes are stable: a larger limit contains a smaller one; same seed, same order
    assert [q.id for q in D.select(bench.questions, 20, seed=0)[:10]] == [q.id for q in ten]
    assert [q.id for q in D.select(bench.questions, 10, seed=1)] != [q.id for q in ten]
    assert len(D.select(bench.questions, None)) == 60
    # the full file: one null question is in the first ten although nulls are 1 % of it
    full = D.load_bench(BENCH).questions
    assert Counter(q.question_type for q in D.select(full, 10))["null_query"] == 1


@needs_bench
def test_folds_partition_and_are_stable():
    bench = D.load_bench(BENCH, queries="queries_sample.jsonl")
    qs = D.assign_folds(D.select(bench.questions), k=10, seed=0)
    sizes = Counter(q.fold for q in qs)
    assert sorted(sizes) == list(range(10)) and set(sizes.values()) == {6}
    again = D.assign_folds(D.select(D.load_bench(BENCH, queries="queries_sample.jsonl").questions), k=10, seed=0)
    assert [(q.id, q.fold) for q in qs] == [(q.id, q.fold) for q in again]
    other = D.assign_folds(D.select(D.load_bench(BENCH, queries="queries_sample.jsonl").questions), k=10, seed=7)
    assert [q.fold for q in qs] != [q.fold for q in other]
    # near-equal when K does not divide n: 7 questions, 3 folds → 3/2/2
    _, few = D.prepare(BENCH, limit=7, folds=3, seed=0, queries="queries_sample.jsonl")
    assert sorted(Counter(q.fold for q in few).values()) == [2, 2, 3]


def test_multiple_choice_gold(tmp_path):
    _write_bench(tmp_path, [
        {"id": "a", "query": "Capital of the UK?", "options": ["Paris", "London"], "gold_label": 1},
        {"id": "b", "query": "Capital of France?", "options": ["Paris", "London"], "gold_label": "A"},
        {"id": "c", "query": "Capital of Germany?", "options": ["Berlin", "Rome"], "gold_label": "Berlin"},
        {"id": "d", "query": "?", "options": ["x", "y"], "gold_label": "neither"},
    ])
    a, b, c, d = D.load_bench(tmp_path).questions
    assert (a.answer, a.gold_index, b.answer, b.gold_index, c.answer, c.gold_index) == ("London", 1, "Paris", 0, "Berlin", 0)
    assert (d.answer, d.gold_index) == ("neither", None)
    assert a.is_multiple_choice
    assert a.prompt == "Capital of the UK?\nOptions:\nA) Paris\nB) London\nAnswer with the text of one option."


def test_bad_input_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError):
        D.load_bench(tmp_path / "missing")
    with pytest.raises(UsageError, match="corpus.jsonl"):
        D.load_bench(tmp_path)
    _write_bench(tmp_path, [{"query": "Q?"}])
    with pytest.raises(UsageError, match="no 'answer'"):
        D.load_bench(tmp_path)
    _write_bench(tmp_path, [{"id": "x", "query": "Q?", "answer": "a"}, {"id": "x", "query": "R?", "answer": "b"}])
    with pytest.raises(UsageError, match="duplicate"):
        D.load_bench(tmp_path)
    _write_bench(tmp_path, [{"query": "Q?", "options": ["a"], "gold_label": 3}])
    with pytest.raises(UsageError, match="outside"):
        D.load_bench(tmp_path)
    with pytest.raises(UsageError, match="not found"):
        D.load_bench(tmp_path, queries="nope.jsonl")
    with pytest.raises(UsageError):
        D.select([], limit=0)
    with pytest.raises(UsageError):
        D.assign_folds([], k=0)


def test_a_bench_collection_on_a_server_takes_no_dash():
    from k2desk.config import Settings

    name = "bench-0123456789ab"
    assert D.stored_name(name, "") == name  # a file keeps the name its earlier runs used
    on_server = D.stored_name(name, "postgresql:///team")
    assert on_server == "bench_0123456789ab"
    settings = Settings(store="postgresql:///team")
    assert settings.collection_address(on_server).endswith("collection=bench_0123456789ab")
