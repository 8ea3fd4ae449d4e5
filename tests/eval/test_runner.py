"""run_eval: index once, every method on the same questions, resume after an interruption."""

import hashlib
import json
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from k2desk.errors import Cancelled, ModelError, UsageError
from k2desk.eval import report as R
from k2desk.eval import runner
from k2desk.eval.datasets import load_questions
from k2desk.methods.base import Answer, LLMUsage, Source
from k2desk.progress import CancelToken
from k2desk.verdict import Verdict, declined

BENCH = Path(__file__).resolve().parents[3] / "shared" / "bench" / "multihop-rag-dev"
needs_bench = pytest.mark.skipif(not BENCH.is_dir(), reason="shared MultiHop-RAG slice not present")


# -- a fake engine: the runner's contract without models ---------------------------------
class FakeEmbedder:
    def embed(self, texts):
        out = []
        for t in texts:
            seed = int.from_bytes(hashlib.sha256(t.lower().strip(" .").encode()).digest()[:4], "little")
            v = np.random.default_rng(seed).standard_normal(8).astype(np.float32)
            out.append(v / np.linalg.norm(v))
        return np.stack(out)


class IndexReport:
    def __init__(self, added=40):
        self.added, self.updated, self.skipped, self.failed, self.removed = added, 0, 40 - added, [], 0


# a short answer the reader declined, as its trace records it
DECLINED = {"form": "abstain", "kind": "factoid", "candidate": "Harwick", "coverage": {"score": 0.9, "missing": []},
            "answer_support": {"score": 0.7, "missing": []}, "verify": -0.3}


class FakeEngine:
    def __init__(self, collection, fail_on=None, added=40):
        self.collection, self.fail_on, self.added = collection, fail_on, added
        self.asked, self.indexed, self.closed = [], [], False
        self.embedder = FakeEmbedder()

    def index(self, paths, progress=None, cancel=None):
        self.indexed.append([str(p) for p in paths])
        if progress:
            progress("embed", 1, 1)
        return IndexReport(self.added)

    def ask(self, question, method="k2rag", progress=None, cancel=None):
        self.asked.append((question, method))
        if self.fail_on and self.fail_on(question, method):
            raise ModelError("model file not found")
        return Answer(question=question, method=method, answer="Yes" if method == "semantic" else "Insufficient information.",
                      sources=[Source("doc-a", 0, 0.9, "t"), Source("doc-a", 1, 0.8, "t"), Source("doc-b", 0, 0.7, "t")],
                      llm=LLMUsage(calls=1, prompt_tokens=50, completion_tokens=3), timings={"total": 0.01},
                      trace={"reader": DECLINED} if method == "keyword" else {},
                      verdict=declined("the passages do not say that this is the answer") if method == "keyword" else Verdict())

    def close(self):
        self.closed = True


def _factory(engines, **kw):
    def make(collection):
        engines.append(FakeEngine(collection, **kw))
        return engines[-1]
    return make


def _rows(out):
    return [json.loads(line) for line in (out / R.RESULTS_FILE).read_text().splitlines()]


@needs_bench
def test_run_resume_and_report_with_fake_engine(tmp_path):
    out, engines, stages = tmp_path / "out", [], []
    path = runner.run_eval(BENCH, "semantic,keyword", out, _factory(engines), folds=10, limit=4, seed=0,
                           progress=lambda s, d, t: stages.append((s, d, t)), queries="queries_sample.jsonl")
    assert path == out / "report.md" and path.is_file()
    assert (out / R.SIM_PLOT).is_file() and (out / R.TIME_PLOT).is_file()
    (engine,) = engines
    assert engine.collection == "bench-" + hashlib.sha256((BENCH / "corpus.jsonl").read_bytes()).hexdigest()[:12]
    assert engine.indexed == [[str(BENCH / "corpus.jsonl")]] and engine.closed
    rows = _rows(out)
    assert len(rows) == 8
    # question-major: both methods on a question before the next question
    assert [r["method"] for r in rows] == ["semantic", "keyword"] * 4
    assert len({r["question_type"] for r in rows}) == 4
    first = rows[0]
    assert first["sources"] == ["doc-a", "doc-b"] and first["llm_calls"] == 1 and first["prompt_tokens"] == 50
    assert first["error"] is None and first["rss_peak_mb"] > 0 and first["seconds"] >= 0
    assert -1.0 <= first["similarity"] <= 1.0
    assert ("index", 1, 1) in stages and ("index: embed", 1, 1) in stages and stages[-1] == ("ask", 8, 8)
    meta = json.loads((out / R.RUN_FILE).read_text())
    assert meta["collection"] == engine.collection and meta["index"]["added"] == 40 and meta["finished"]
    assert meta["commits"] == [runner.source_state()]  # the code the answers came from
    null_row = next(r for r in rows if r["question_type"] == "null_query" and r["method"] == "keyword")
    assert null_row["prediction"] == "Insufficient information." and "gold" not in null_row and "query" not in null_row
    # the reader's decision kept with its scores, so a threshold can be re-decided from the rows
    assert {k: null_row[k] for k in ("reader_form", "candidate", "coverage", "answer_support", "verify")} == \
        {"reader_form": "abstain", "candidate": "Harwick", "coverage": 0.9, "answer_support": 0.7, "verify": -0.3}
    assert null_row["outcome"] == "declined" and {r["outcome"] for r in rows if r["method"] == "semantic"} == {"answered"}
    assert "verify" not in first and "candidate" not in first
    questions = {q.id: q for q in load_questions(BENCH / "queries_sample.jsonl")}
    kept = (out / R.RESULTS_FILE).read_text()
    assert not any(questions[r["id"]].query in kept for r in rows)  # results hold no benchmark text
    text = path.read_text()
    assert "| keyword | 4 |" in text and "| semantic | 4 |" in text
    assert "- index build (this run): " in text and "index check" not in text

    # interruption: keep 2 rows and a torn third line, then run again
    lines = (out / R.RESULTS_FILE).read_text().splitlines(keepends=True)
    (out / R.RESULTS_FILE).write_text(lines[0] + lines[1] + lines[2][: len(lines[2]) // 2])
    runner.run_eval(BENCH, "semantic,keyword", out, _factory(engines, added=0), folds=10, limit=4, seed=0,
                    queries="queries_sample.jsonl")
    again = engines[-1]
    assert len(again.asked) == 6
    meta = json.loads((out / R.RUN_FILE).read_text())  # the index was re-used: its build stays on record
    assert meta["index"]["skipped"] == 40 and meta["index_build"]["added"] == 40 and len(meta["runs"]) == 2
    assert meta["commits"] == [runner.source_state()]  # resumed on the same code: one entry
    text = path.read_text()
    assert "- index build (an earlier invocation of this run): " in text and "(this run)" not in text
    assert "- index check (latest invocation): " in text and ", 40 unchanged" in text
    rows2 = _rows(out)  # no torn line left: every line parses
    assert [(r["id"], r["method"]) for r in rows2] == [(r["id"], r["method"]) for r in rows]
    assert {(q, m) for q, m in again.asked} == {(questions[r["id"]].query, r["method"]) for r in rows[2:]}

    # nothing left to do: no engine is opened, the report is rewritten
    runner.run_eval(BENCH, "semantic,keyword", out, _factory(engines), limit=4, queries="queries_sample.jsonl")
    assert len(engines) == 2

    # --report-only: the same report from the run's files, run.json untouched
    before, meta_bytes = path.read_text(), (out / R.RUN_FILE).read_bytes()
    path.unlink()
    args = SimpleNamespace(bench_dir=BENCH, out=out, report_only=True, methods=None, oracle=False, queries=None)
    assert runner.eval_command(args, settings=None) == 0
    assert path.read_text() == before and (out / R.RUN_FILE).read_bytes() == meta_bytes and len(engines) == 2


@needs_bench
def test_errors_are_recorded_and_cancel_resumes(tmp_path):
    out, engines = tmp_path / "out", []
    token = CancelToken()
    calls = []

    def fail_on(question, method):
        calls.append(1)
        if len(calls) == 3:
            token.cancel()  # the user cancels during the third call; it still completes
        return method == "keyword"

    with pytest.raises(Cancelled):
        runner.run_eval(BENCH, ["semantic", "keyword"], out, _factory(engines, fail_on=fail_on), limit=3,
                        cancel=token, queries="queries_sample.jsonl")
    rows = _rows(out)
    assert len(rows) == 3 and engines[0].closed
    assert rows[1]["error"] == "model file not found" and rows[1]["prediction"] == "" and rows[1]["similarity"] == 0.0
    runner.run_eval(BENCH, ["semantic", "keyword"], out, _factory(engines, fail_on=lambda q, m: False), limit=3,
                    queries="queries_sample.jsonl")
    assert len(engines[1].asked) == 3 and len(_rows(out)) == 6
    assert "| keyword | 3 | 1 |" in (out / "report.md").read_text()  # cost table: one error


@needs_bench
def test_refuses_mixed_runs(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / R.RUN_FILE).write_text(json.dumps({"collection": "bench-000000000000"}))
    with pytest.raises(UsageError, match="another corpus"):
        runner.run_eval(BENCH, "semantic", out, _factory([]), limit=1)
    (out / R.RUN_FILE).write_text(json.dumps({"settings": {"llm": "qwen2.5-coder-0.5b"}}))
    with pytest.raises(UsageError, match="other settings"):
        runner.run_eval(BENCH, "semantic", out, _factory([]), limit=1, settings={"llm": "smollm2-135m"})
    with pytest.raises(UsageError, match="unknown method"):
        runner.run_eval(BENCH, "semantic,bogus", out, _factory([]), limit=1)


def test_source_state_never_fails(monkeypatch):
    state = runner.source_state()  # this checkout, or None where the package is not tracked by git
    assert state is None or (re.fullmatch(r"[0-9a-f]{40}", state["commit"]) and isinstance(state["dirty"], bool))
    monkeypatch.setattr(runner.shutil, "which", lambda name: None)  # no git at all
    assert runner.source_state() is None


def test_rerender_needs_a_run(tmp_path):
    with pytest.raises(UsageError, match="no readable run.json"):
        runner.rerender(tmp_path, tmp_path)


DOCS = Path(__file__).resolve().parents[2] / "docs" / "eval"


@needs_bench
@pytest.mark.parametrize("run, overlap", [  # each method's "Acc" in docs/eval/README.md
    ("sample60-hybrid-reader", {"hybrid": "0.600", "hybrid-paper": "0.217"}),
    ("sample60-fastgraph", {"k2rag": "0.617"}),
    ("sample60-reader", {"k2rag": "0.567", "hybrid": "0.217"}),
    ("sample20-evidence-hybrid", {"evidence": "0.200", "hybrid": "0.150"}),
])
def test_committed_runs_rerender_with_their_old_accuracy(tmp_path, run, overlap):
    for name in (R.RESULTS_FILE, R.RUN_FILE):
        shutil.copy(DOCS / run / name, tmp_path / name)
    text = runner.rerender(BENCH, tmp_path).read_text()
    for method, acc in overlap.items():
        row = next(ln for ln in text.splitlines() if ln.startswith(f"| {method} | "))
        cells = row.split(" | ")
        assert cells[3] == acc and float(cells[2]) <= float(acc)  # Overlap acc as before; Strict never above it
    assert "- code: not recorded" in text and "- settings: home=" in text


def test_parse_methods_and_cli_arguments():
    import argparse

    assert runner.parse_methods("semantic, keyword,semantic") == ["semantic", "keyword"]
    assert runner.parse_methods(None) == list(runner.DEFAULT_METHODS)
    parser = argparse.ArgumentParser()
    runner.add_eval_arguments(parser)
    args = parser.parse_args(["bench", "--methods", "semantic", "--limit", "10", "--queries", "q.jsonl"])
    assert (args.bench_dir, args.methods, args.folds, args.limit, args.seed, args.out, args.queries, args.report_only) == (
        "bench", "semantic", 10, 10, 0, None, "q.jsonl", False)
    assert parser.parse_args(["bench", "--report-only"]).report_only


def test_peak_rss_sees_an_allocation():
    with runner.PeakRss(interval=0.01) as mem:
        block = np.ones(64 * 2**20 // 8)  # 64 MiB, touched
        block.sum()
    assert mem.peak >= runner.current_rss_mb() - 1 and mem.peak > 64
    del block


# -- the real engine (runs once k2desk.engine exists) ------------------------------------
@pytest.mark.slow  # ~2 min on 2 idle cores (index 40 articles + 10 asks of the tiny model), far more when busy
@needs_bench
def test_real_engine_limit_3_resume(tmp_path):
    engine_mod = pytest.importorskip("k2desk.engine")
    from k2desk.config import Settings

    # naive profile: vectors + FTS only (no LLM work at indexing); small contexts keep the asks quick
    settings = Settings(home=tmp_path / "home", llm="smollm2-135m", build_profile="naive", top_k=3, max_answer_tokens=16)
    asked: list[tuple[str, str]] = []

    class Counting:
        """Thin wrapper: counts ask calls, everything else goes to the real engine."""

        def __init__(self, engine):
            self._engine = engine

        def ask(self, question, method="k2rag", progress=None, cancel=None):
            asked.append((question, method))
            return self._engine.ask(question, method=method, progress=progress, cancel=cancel)

        def __getattr__(self, name):
            return getattr(self._engine, name)

    def factory(collection):
        return Counting(engine_mod.Engine(settings, collection=collection))

    out = tmp_path / "out"
    kw = dict(folds=10, limit=3, seed=0, queries="queries_sample.jsonl", settings=settings)
    report = runner.run_eval(BENCH, "semantic,keyword", out, factory, **kw)
    assert report.is_file() and len(asked) == 6
    rows = _rows(out)
    assert len(rows) == 6 and all(isinstance(r["similarity"], float) for r in rows)

    lines = (out / R.RESULTS_FILE).read_text(encoding="utf-8").splitlines(keepends=True)
    (out / R.RESULTS_FILE).write_text(lines[0] + lines[1] + lines[2][:20], encoding="utf-8")
    asked.clear()
    report = runner.run_eval(BENCH, "semantic,keyword", out, factory, **kw)
    queries = {q.id: q.query for q in load_questions(BENCH / "queries_sample.jsonl")}
    assert {(q, m) for q, m in asked} == {(queries[r["id"]], r["method"]) for r in rows[2:]} and len(asked) == 4
    assert report.is_file() and len(_rows(out)) == 6
    quality = next(ln for ln in report.read_text().splitlines() if ln.startswith("| semantic | 3 |"))
    assert "n/a" not in quality.split("|")[2:13]  # n .. hallucination are numbers
