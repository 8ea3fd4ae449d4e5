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
    (tmp_path / R.RUN_FILE).write_text(json.dumps({"bench": "hand", "folds": 2, "settings": {"llm": "smollm2-135m", "top_k": 3},
                                                        "index": {"seconds": 12.34, "stage_seconds": {"index": 2.0, "summary": 10.3}},
                                                        "commits": [{"commit": "0123456789abcdef" * 2 + "01234567", "dirty": True}]}))
    return tmp_path


def test_group_stats_by_hand():
    s = R.group_stats([r for r in ROWS if r["method"] == "semantic"])
    # similarities sorted [0.0, 0.4, 0.8, 1.0]: Q1 at 0.75 → 0.3, median 0.6, Q3 at 2.25 → 0.85, mean 0.55
    assert (s["sim_q1"], s["sim_mean"], s["sim_median"], s["sim_q3"]) == pytest.approx((0.3, 0.55, 0.6, 0.85))
    # gold recall: q1 {yes} 1, q2 {google} 0, q3 {insufficient, information} 1, q4 0
    assert (s["em"], s["f1"], s["accuracy"], s["strict"], s["recall"]) == pytest.approx((0.5, 0.5, 0.5, 0.5, 0.5))
    assert (s["yes_no_acc"], s["null_acc"]) == (1.0, 1.0)
    # answerable q1 (right), q2 (answered wrong), q4 (error: abstained); unanswerable q3 (declined)
    assert [s[k] for k in ("n_answerable", "strict_answerable", "abst_answerable", "halluc_answerable")] == [3, 1, 1, 1]
    assert [s[k] for k in ("n_unanswerable", "declined_unanswerable", "halluc_unanswerable")] == [1, 1, 0]
    assert (s["abstention"], s["hallucination"]) == pytest.approx((0.5, 0.25))  # over all four
    # folds: 0 → sims (0.8, 1.0), strict (1, 1); 1 → sims (0.4, 0.0), strict (0, 0)
    assert (s["fold_sim_mean"], s["fold_sim_std"]) == pytest.approx((0.55, 0.7 / math.sqrt(2)))
    assert (s["fold_strict_mean"], s["fold_strict_std"]) == pytest.approx((0.5, 1 / math.sqrt(2)))
    assert (s["time_mean"], s["time_median"], s["time_p90"]) == pytest.approx((2.5, 2.5, 3.7))
    assert (s["llm_calls"], s["prompt_tokens"], s["errors"], s["rss_peak_mb"]) == (0.75, 100.0, 1.0, 700.0)
    assert math.isnan(s["gpu_mem_mb"])


def test_report_tables_and_plots(out_dir):
    path = R.write_report(out_dir, methods=["semantic", "keyword", "hybrid"])
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    # n, Strict, Overlap acc, F1, Gold recall, EM, Sim mean, Q1, median, Q3, Yes/No acc, Null acc
    assert "| Method | n | Strict | Overlap acc | F1 | Gold recall | EM | Sim mean |" in text
    quality = next(ln for ln in lines if ln.startswith("| semantic | 4 |"))
    assert quality == "| semantic | 4 | 0.500 | 0.500 | 0.500 | 0.500 | 0.500 | 0.550 | 0.300 | 0.600 | 0.850 | 1.000 | 1.000 |"
    kw = next(ln for ln in lines if ln.startswith("| keyword | 1 |"))
    assert kw == "| keyword | 1 | 0.000 | 0.000 | 0.000 | 0.000 | 0.000 | 0.600 | 0.600 | 0.600 | 0.600 | 0.000 | n/a |"
    # answerable 3: strict, abstained, hallucinated one each; unanswerable 1: declined
    assert "| semantic | 3 | 0.333 (1) | 0.333 (1) | 0.333 (1) | 1 | 1.000 (1) | 0.000 (0) |" in text
    assert "| keyword | 1 | 0.000 (0) | 0.000 (0) | 1.000 (1) | 0 | n/a | n/a |" in text
    assert "| semantic | 2 | 0.550 ± 0.495 | 0.500 ± 0.707 |" in text  # K-fold table
    assert "| semantic | 0.900 | 0.200 |" in text  # per-fold similarity (K=2 from run.json)
    assert "| semantic | 4 | 1 | 2.50 | 2.50 | 3.70 | 0.75 | 100.0 | 10.0 | 700 |" in text  # cost table
    assert "| hybrid | 0 | n/a |" in text  # a method without rows: n/a, no crash
    assert "GPU (MiB)" not in text  # no GPU data → no GPU column
    for section in ("## Answer quality", "## K-fold", "## Cost per question", "### null_query", "## Definitions"):
        assert section in text
    assert "| semantic | 1 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 0.000 |" in text  # null
    assert "LLM: smollm2-135m" in text and "the run is incomplete" in text
    assert "- code: 0123456789ab + uncommitted changes\n" in text and "- settings: llm=smollm2-135m, top_k=3\n" in text
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
    assert "| semantic | 1 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 0.800 | 0.800 | 0.800 | 0.800 | 1.000 | n/a |" in text


def test_empty_results_still_report(tmp_path):
    path = R.write_report(tmp_path, methods=["semantic"])
    text = path.read_text()
    assert "| semantic | 0 | n/a |" in text and "- code: not recorded" in text and "- settings: not recorded" in text
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


def test_strict_is_the_headline_and_abstention_is_split():
    rows = [
        _row("o1", "m", "Qatar University", "Abdelkarim Erradi University", 0.7, 1.0, 0, "open"),  # overlap only
        _row("o2", "m", "Qatar University", "Qatar University in Doha", 0.9, 1.0, 0, "open"),  # right both ways
        _row("o3", "m", "Jennifer Parker", "Insufficient information.", 0.1, 1.0, 0, "open"),  # abstained
        _row("n1", "m", "Insufficient information.", "Insufficient information.", 1.0, 1.0, 0, "null"),  # declined
        _row("n2", "m", "Insufficient information.", "Doha", 0.1, 1.0, 0, "null"),  # answered anyway
    ]
    s = R.group_stats(rows)
    # recall: o1 1/2, o2 1, o3 0, n1 1, n2 0
    assert (s["strict"], s["accuracy"], s["recall"]) == pytest.approx((0.4, 0.6, 0.5))
    assert R._answerability_cells(s) == ["3", "0.333 (1)", "0.333 (1)", "0.333 (1)", "2", "0.500 (1)", "0.500 (1)"]
    text = R.render_markdown(R.summarize(rows), {}, 1)
    assert "| m | 5 | 0.400 | 0.600 |" in text
    assert "| m | 3 | 0.333 (1) | 0.333 (1) | 0.333 (1) | 2 | 0.500 (1) | 0.500 (1) |" in text
    # by type: Abst. and Halluc. (strict) over that type's questions
    open_type = next(ln for ln in text.splitlines() if ln.startswith("| m | 3 | 0.333 | 0.667 |"))
    assert open_type.endswith("| 0.333 | 0.333 |")


def test_code_line():
    assert R.code_line({}) == "not recorded"
    assert R.code_line({"commits": [None]}) == "not a git checkout"
    two = {"commits": [{"commit": "a" * 40, "dirty": False}, {"commit": "b" * 40, "dirty": True}]}
    assert R.code_line(two) == "aaaaaaaaaaaa; bbbbbbbbbbbb + uncommitted changes (the run was resumed on each)"
