"""report.md numbers from a hand-written results.jsonl, and valid PNG plots."""

import json
import math

import pytest
from PIL import Image

from k2desk.eval import report as R


def _row(qid, method, gold, pred, sim, seconds, fold, qtype, **extra):
    row = {"id": qid, "method": method, "gold": gold, "prediction": pred, "similarity": sim, "seconds": seconds,
           "fold": fold, "question_type": qtype, "llm_calls": 1, "prompt_tokens": 100, "completion_tokens": 10,
           "rss_peak_mb": 500.0, "gpu_mem_mb": None, "error": None, "query": f"question {qid}?", "sources": []}
    row.update(extra)
    return row


ROWS = [
    # semantic: sims 0.8, 0.4, 1.0, (error → 0.0); times 1..4 s
    _row("q1", "semantic", "Yes", "yes.", 0.8, 1.0, 0, "comparison_query"),
    _row("q2", "semantic", "Google", "Microsoft", 0.4, 2.0, 1, "inference_query"),
    _row("q3", "semantic", "Insufficient information.", "Insufficient information.", 1.0, 3.0, 0, "null_query",
         rss_peak_mb=700.0),
    _row("q4", "semantic", "Sam Bankman-Fried", "", None, 4.0, 1, "inference_query", error="model crashed", llm_calls=0),
    _row("q1", "keyword", "Yes", "No", 0.6, 0.5, 0, "comparison_query"),
]


@pytest.fixture
def out_dir(tmp_path):
    lines = "".join(json.dumps(r) + "\n" for r in ROWS) + '{"id": "q2", "method": "keyw'  # torn last line
    (tmp_path / R.RESULTS_FILE).write_text(lines, encoding="utf-8")
    (tmp_path / R.RUN_FILE).write_text(json.dumps({"bench": "hand", "folds": 2, "settings": {"llm": "smollm2-135m"},
                                                        "index": {"seconds": 12.34, "stage_seconds": {"index": 2.0, "summary": 10.3}}}))
    return tmp_path


def test_group_stats_by_hand():
    s = R.group_stats([r for r in ROWS if r["method"] == "semantic"])
    # similarities sorted [0.0, 0.4, 0.8, 1.0]: Q1 at 0.75 → 0.3, median 0.6, Q3 at 2.25 → 0.85, mean 0.55
    assert (s["sim_q1"], s["sim_mean"], s["sim_median"], s["sim_q3"]) == pytest.approx((0.3, 0.55, 0.6, 0.85))
    assert (s["em"], s["f1"], s["accuracy"]) == pytest.approx((0.5, 0.5, 0.5))
    assert (s["yes_no_acc"], s["null_acc"]) == (1.0, 1.0)
    # abstained: q3 (null, correct) and q4 (error, empty); hallucinated: q2 only; answered: q1, q2
    assert (s["abstention"], s["hallucination"], s["halluc_answered"]) == pytest.approx((0.5, 0.25, 0.5))
    # folds: 0 → sims (0.8, 1.0), acc (1, 1); 1 → sims (0.4, 0.0), acc (0, 0)
    assert (s["fold_sim_mean"], s["fold_sim_std"]) == pytest.approx((0.55, 0.7 / math.sqrt(2)))
    assert (s["fold_acc_mean"], s["fold_acc_std"]) == pytest.approx((0.5, 1 / math.sqrt(2)))
    assert (s["time_mean"], s["time_median"], s["time_p90"]) == pytest.approx((2.5, 2.5, 3.7))
    assert (s["llm_calls"], s["prompt_tokens"], s["errors"], s["rss_peak_mb"]) == (0.75, 100.0, 1.0, 700.0)
    assert math.isnan(s["gpu_mem_mb"])


def test_report_tables_and_plots(out_dir):
    path = R.write_report(out_dir, methods=["semantic", "keyword", "hybrid"])
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    quality = next(ln for ln in lines if ln.startswith("| semantic | 4 |"))
    assert quality == ("| semantic | 4 | 0.300 | 0.550 | 0.600 | 0.850 | 0.500 | 0.500 | 0.500 | 0.500 | 0.250 "
                       "| 1.000 | 1.000 | 0.500 |")
    kw = next(ln for ln in lines if ln.startswith("| keyword | 1 |"))
    assert kw.startswith("| keyword | 1 | 0.600 | 0.600 | 0.600 | 0.600 | 0.000 | 0.000 | 0.000 | 0.000 | 1.000 | 0.000 |")
    assert "| semantic | 2 | 0.550 ± 0.495 | 0.500 ± 0.707 |" in text  # K-fold table
    assert "| semantic | 0.900 | 0.200 |" in text  # per-fold similarity (K=2 from run.json)
    assert "| semantic | 4 | 1 | 2.50 | 2.50 | 3.70 | 0.75 | 100.0 | 10.0 | 700 |" in text  # cost table
    assert "| hybrid | 0 | n/a |" in text  # a method without rows: n/a, no crash
    assert "GPU (MiB)" not in text  # no GPU data → no GPU column
    for section in ("## Answer quality", "## K-fold", "## Cost per question", "### null_query", "## Definitions"):
        assert section in text
    assert "| semantic | 1 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 0.000 |" in text  # null type
    assert "LLM: smollm2-135m" in text and "the run is incomplete" in text
    assert "- index build (this run): 12.3 s (index 2.0 s, summary 10.3 s)" in text
    for name in (R.SIM_PLOT, R.TIME_PLOT):
        with Image.open(out_dir / name) as img:
            img.verify()
            assert img.format == "PNG" and img.size[0] > 100


def test_report_restricted_to_selection(out_dir):
    class Q:
        def __init__(self, id, fold, question_type):
            self.id, self.fold, self.question_type = id, fold, question_type

    text = R.write_report(out_dir, questions=[Q("q1", 0, "comparison_query")], methods=["semantic", "keyword"]).read_text()
    assert "| semantic | 1 | 0.800 | 0.800 | 0.800 | 0.800 | 1.000 | 1.000 | 1.000 | 0.000 | 0.000 |" in text


def test_empty_results_still_report(tmp_path):
    path = R.write_report(tmp_path, methods=["semantic"])
    assert "| semantic | 0 | n/a |" in path.read_text()
    with Image.open(tmp_path / R.SIM_PLOT) as img:
        img.verify()


def test_yes_no_confusion_and_support_auc():
    rows = [  # gold yes: supports 3.0, 1.0 (predicted yes, no); gold no: 2.0, 0.5, and one without a score
        _row("y1", "k2rag", "Yes", "Yes.", 1.0, 1.0, 0, "comparison_query", support=3.0),
        _row("y2", "k2rag", "yes", "No.", 0.0, 1.0, 0, "temporal_query", support=1.0),
        _row("n1", "k2rag", "no", "Yes.", 0.0, 1.0, 0, "comparison_query", support=2.0),
        _row("n2", "k2rag", "No", "No.", 1.0, 1.0, 0, "temporal_query", support=0.5),
        _row("n3", "k2rag", "no", "Insufficient information.", 0.0, 1.0, 0, "temporal_query"),
        _row("g1", "k2rag", "Google", "Google", 1.0, 1.0, 0, "inference_query", support=9.0),  # not yes/no
    ]
    s = R.group_stats(rows)
    assert [s[f"yn_yes_{p}"] for p in ("yes", "no", "none")] == [1.0, 1.0, 0.0]
    assert [s[f"yn_no_{p}"] for p in ("yes", "no", "none")] == [1.0, 1.0, 1.0]
    # pairs (yes, no): (3, 2) win, (3, 0.5) win, (1, 2) loss, (1, 0.5) win → 3/4
    assert s["yes_no_auc"] == pytest.approx(0.75)
    assert math.isnan(R.group_stats(rows[4:])["yes_no_auc"])  # no scored yes/no pair
