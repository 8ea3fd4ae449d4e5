"""Turn ``results.jsonl`` (+ ``run.json``) into ``report.md`` and box plots (K²RAG Figs. 13–14).

Every metric is recomputed from the stored predictions, so a report can be rebuilt at any time
(``write_report(out_dir)``; ``k2desk eval BENCH --report-only --out DIR``, ``runner.rerender``, joins
the gold answers by id); only the answer similarity, which needs the embedder, is taken from the
rows. Missing values print as "n/a" (a method without rows, a metric that does not apply).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

from k2desk.eval import metrics as M

RESULTS_FILE = "results.jsonl"
RUN_FILE = "run.json"
REPORT_FILE = "report.md"
SIM_PLOT = "similarity_boxplot.png"
TIME_PLOT = "time_boxplot.png"

DEFINITIONS = """\
- **n**: questions answered by the method (rows in `results.jsonl`); **errors**: of them, calls
  that failed with an error (scored as an empty answer, i.e. an abstention, similarity 0).
- **Similarity** (K²RAG eq. 6): cosine of the embeddings (the collection's embedder) of the
  answer and the ground truth; an empty answer scores 0. Q1/median/Q3: numpy linear percentiles.
- **Normalization** (SQuAD): lowercase, remove punctuation, remove the articles a/an/the,
  collapse whitespace. **EM**: normalized strings equal. **F1**: SQuAD token F1.
- **Abstention**: the normalized answer is empty or contains "insufficient information",
  "not enough information", "no information", "I don't know", "cannot be determined",
  "cannot determine", "unable to determine", "could not find an answer" (the CoE apology),
  "cannot answer" or "unable to answer".
- **Content words**: the normalized words of a text (each dash read as a space first, so
  "Bankman-Fried" is "bankman fried") that are not English function words ("and", "of", "in",
  "is", "who", …; numbers are content words). **Gold recall**: the share of the gold's distinct
  content words found among the answer's words (a gold without content words: its EM).
- **Strict** (the headline): null question (gold "Insufficient information.") → the answer
  abstains; otherwise an abstention is wrong; multiple choice → the answer maps to the gold
  option (exact normalized match, else option letter, else highest token F1); Yes/No gold → the
  first yes/no word of the normalized answer has the gold's polarity; any other (open) → the
  answer holds EVERY content word of the gold (gold recall 1). **Overlap acc**: the same, but an
  open answer needs only one normalized word in common with the gold (KG-RAG paper, MultiHop-RAG;
  the "Acc" of earlier reports: "Abdelkarim Erradi University" for "Qatar University"
  counts). **Yes/No acc** and **Null acc**: on those questions only (the same under both rules).
- **Answerable / unanswerable**: a question whose gold is an answer / "Insufficient
  information.". On answerable questions: **Abst.** the answer abstains, **Halluc.** it does not
  abstain and is not strictly right (so Strict + Abst. + Halluc. = 1 there). On unanswerable
  ones: **Declined** the answer abstains (right), **Halluc.** it answers anyway. In a
  question-type table, Abst. and Halluc. divide by that type's questions.
- **K-fold** (K²RAG Algorithm 3): the selected questions are permuted with the seed and split
  into K near-equal folds; per fold the mean similarity and Strict accuracy are taken, and the table
  shows their mean ± sample standard deviation (ddof=1) across the non-empty folds.
- **Time**: wall-clock seconds of one `ask` call (similarity scoring excluded); mean, median, p90.
  **LLM calls / tokens**: per question, from the answer's usage counters. **Peak RSS**: the
  highest resident memory of the process sampled during the method's calls (MiB); **GPU MiB**:
  this process's GPU memory after the call (nvidia-smi), shown only when a GPU was used.
"""


# -- reading ----------------------------------------------------------------------------
def read_results(path: Path) -> list[dict[str, Any]]:
    """Rows of a results file; unparsable lines (a torn last line) are skipped."""
    rows: list[dict[str, Any]] = []
    if not Path(path).is_file():
        return rows
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict) and "id" in row and "method" in row:
                rows.append(row)
    return rows


def read_meta(path: Path) -> dict[str, Any]:
    """A run's ``run.json``; {} when it is missing or unreadable."""
    try:
        meta = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def _num(x: Any) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return float("nan")
    return v


def _max(values: Iterable[float]) -> float:
    return max((v for v in values if math.isfinite(v)), default=float("nan"))


def row_similarity(row: dict[str, Any]) -> float:
    """The stored similarity; an empty answer (an error, a blank reply) scores 0."""
    return 0.0 if not (row.get("prediction") or "").strip() else _num(row.get("similarity"))


def answerability_counts(judged: Sequence[M.Judgement]) -> dict[str, float]:
    """Counts on answerable questions (strictly right, abstained, answered but not strictly
    right) and on unanswerable (null-gold) ones (declined, answered anyway)."""
    answerable = [j for j in judged if j.kind != "null"]
    unanswerable = [j for j in judged if j.kind == "null"]
    return {
        "n_answerable": float(len(answerable)),
        "strict_answerable": float(sum(j.strict for j in answerable)),
        "abst_answerable": float(sum(j.abstained for j in answerable)),
        "halluc_answerable": float(sum(not j.abstained and not j.strict for j in answerable)),
        "n_unanswerable": float(len(unanswerable)),
        "declined_unanswerable": float(sum(j.abstained for j in unanswerable)),
        "halluc_unanswerable": float(sum(not j.abstained for j in unanswerable)),
    }


def group_stats(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Every metric of the report for one group of rows (one method, maybe one question type)."""
    n = len(rows)
    judged = [M.judge(r.get("prediction") or "", str(r.get("gold", "")), r.get("options"), r.get("gold_index"))
              for r in rows]
    sims = [row_similarity(r) for r in rows]
    q = M.quartiles(sims)
    strict = [float(j.strict) for j in judged]
    yes_no = [float(j.correct) for j in judged if j.kind == "yes_no"]
    null = [float(j.correct) for j in judged if j.kind == "null"]
    folds: dict[int, list[int]] = {}
    for i, r in enumerate(rows):
        folds.setdefault(int(r.get("fold", 0) or 0), []).append(i)
    fold_sim = [M.mean(sims[i] for i in idx) for idx in folds.values()]
    fold_strict = [M.mean(strict[i] for i in idx) for idx in folds.values()]
    gpu = [_num(r.get("gpu_mem_mb")) for r in rows if r.get("gpu_mem_mb") is not None]
    polar = [(M.gold_polarity(str(r.get("gold", ""))), M.prediction_polarity(r.get("prediction") or ""), r.get("support"))
             for r, j in zip(rows, judged) if j.kind == "yes_no"]
    scored = [(g, float(sup)) for g, _, sup in polar if sup is not None]
    return {
        # yes/no confusion (gold → predicted: yes, no, neither) and the reader's support AUC
        **{f"yn_{g}_{p or 'none'}": float(sum(1 for gg, pp, _ in polar if gg == g and pp == p))
           for g in ("yes", "no") for p in ("yes", "no", None)},
        "yes_no_auc": M.auc([v for g, v in scored if g == "yes"], [v for g, v in scored if g == "no"]),
        "n": float(n),
        "errors": float(sum(1 for r in rows if r.get("error"))),
        "sim_q1": q["q1"],
        "sim_mean": q["mean"],
        "sim_median": q["median"],
        "sim_q3": q["q3"],
        "em": M.mean(j.em for j in judged),
        "f1": M.mean(j.f1 for j in judged),
        "recall": M.mean(j.recall for j in judged),
        "strict": M.mean(strict),
        "accuracy": M.mean(float(j.correct) for j in judged),
        "abstention": M.mean(float(j.abstained) for j in judged),
        "hallucination": M.mean(float(not j.abstained and not j.strict) for j in judged),
        "yes_no_acc": M.mean(yes_no),
        "n_yes_no": float(len(yes_no)),
        "null_acc": M.mean(null),
        "n_null": float(len(null)),
        **answerability_counts(judged),
        "n_folds": float(len(folds)),
        "fold_sim_mean": M.mean(fold_sim),
        "fold_sim_std": M.std(fold_sim),
        "fold_strict_mean": M.mean(fold_strict),
        "fold_strict_std": M.std(fold_strict),
        "time_mean": M.mean(_num(r.get("seconds")) for r in rows),
        "time_median": M.percentile((_num(r.get("seconds")) for r in rows), 50),
        "time_p90": M.percentile((_num(r.get("seconds")) for r in rows), 90),
        "llm_calls": M.mean(_num(r.get("llm_calls", 0)) for r in rows),
        "prompt_tokens": M.mean(_num(r.get("prompt_tokens", 0)) for r in rows),
        "completion_tokens": M.mean(_num(r.get("completion_tokens", 0)) for r in rows),
        "rss_peak_mb": _max(_num(r.get("rss_peak_mb")) for r in rows),
        "gpu_mem_mb": _max(gpu),
    }


def fold_means(rows: Sequence[dict[str, Any]], k: int) -> list[float]:
    """Mean similarity per fold 0..k-1 (NaN for an empty fold)."""
    out = []
    for f in range(k):
        out.append(M.mean(row_similarity(r) for r in rows if int(r.get("fold", 0) or 0) == f))
    return out


def summarize(rows: Iterable[dict[str, Any]], methods: Optional[Sequence[str]] = None) -> dict[str, dict[str, Any]]:
    """{method: {"overall": stats, "by_type": {question_type: stats}}} (rows deduplicated)."""
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for r in rows:
        latest[(str(r["id"]), str(r["method"]))] = r
    order = list(methods or [])
    for _, m in latest:
        if m not in order:
            order.append(m)
    out: dict[str, dict[str, Any]] = {}
    for m in order:
        mrows = [r for (_, mm), r in latest.items() if mm == m]
        types = sorted({str(r.get("question_type") or "unknown") for r in mrows})
        out[m] = {
            "rows": mrows,
            "overall": group_stats(mrows),
            "by_type": {t: group_stats([r for r in mrows if str(r.get("question_type") or "unknown") == t]) for t in types},
        }
    return out


# -- formatting -------------------------------------------------------------------------
def fmt(x: Any, digits: int = 3) -> str:
    v = _num(x)
    if not math.isfinite(v):
        return "n/a"
    return f"{v:.{digits}f}" if digits else f"{v:.0f}"


def pm(mean: float, sd: float, digits: int = 3) -> str:
    if not math.isfinite(_num(mean)):
        return "n/a"
    return f"{fmt(mean, digits)} ± {fmt(sd, digits)}"


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines + [""]


def _quality_cells(s: dict[str, float]) -> list[str]:
    return [fmt(s["n"], 0), fmt(s["strict"]), fmt(s["accuracy"]), fmt(s["f1"]), fmt(s["recall"]), fmt(s["em"]),
            fmt(s["sim_mean"]), fmt(s["sim_q1"]), fmt(s["sim_median"]), fmt(s["sim_q3"])]


def share(count: float, n: float) -> str:
    """"rate (count)", e.g. "0.250 (3)"; "n/a" when there is no question to divide by."""
    return f"{fmt(count / n)} ({fmt(count, 0)})" if n else "n/a"


def _answerability_cells(s: dict[str, float]) -> list[str]:
    a, u = s["n_answerable"], s["n_unanswerable"]
    return [fmt(a, 0), share(s["strict_answerable"], a), share(s["abst_answerable"], a), share(s["halluc_answerable"], a),
            fmt(u, 0), share(s["declined_unanswerable"], u), share(s["halluc_unanswerable"], u)]


def _cost_cells(s: dict[str, float], gpu: bool) -> list[str]:
    cells = [fmt(s["n"], 0), fmt(s["errors"], 0), fmt(s["time_mean"], 2), fmt(s["time_median"], 2), fmt(s["time_p90"], 2),
             fmt(s["llm_calls"], 2), fmt(s["prompt_tokens"], 1), fmt(s["completion_tokens"], 1), fmt(s["rss_peak_mb"], 0)]
    return cells + ([fmt(s["gpu_mem_mb"], 0)] if gpu else [])


QUALITY_HEADER = ["n", "Strict", "Overlap acc", "F1", "Gold recall", "EM", "Sim mean", "Sim Q1", "Sim median", "Sim Q3"]
ANSWERABILITY_HEADER = ["Answerable", "Strict (answerable)", "Abst. (answerable)", "Halluc. (answerable)",
                        "Unanswerable", "Declined (unanswerable)", "Halluc. (unanswerable)"]


def _index_seconds(index: dict[str, Any]) -> str:
    stages = ", ".join(f"{k} {v:.1f} s" for k, v in (index.get("stage_seconds") or {}).items())
    return f"{index['seconds']:.1f} s" + (f" ({stages})" if stages else "")


def code_line(meta: dict[str, Any]) -> str:
    """The k2desk commit(s) the run's answers came from, as ``run.json`` records them."""
    if "commits" not in meta:
        return "not recorded"
    states = [f"{c['commit'][:12]}{' + uncommitted changes' if c.get('dirty') else ''}" if c else "not a git checkout"
              for c in meta["commits"]]
    return "; ".join(states) + (" (the run was resumed on each)" if len(states) > 1 else "")


def settings_line(settings: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in settings.items()) or "not recorded"


def render_markdown(summary: dict[str, dict[str, Any]], meta: dict[str, Any], k: int) -> str:
    out = ["# k2desk evaluation report", ""]
    info = [
        ("benchmark", meta.get("bench")), ("queries", meta.get("queries_file")),
        ("questions", meta.get("questions")), ("methods", ", ".join(summary) or "none"),
        ("seed", meta.get("seed")), ("folds", k), ("limit", meta.get("limit") or "none"),
        ("collection", meta.get("collection")), ("LLM", (meta.get("settings") or {}).get("llm")),
        ("embedder", (meta.get("settings") or {}).get("embedder")),
        ("code", code_line(meta)), ("settings", settings_line(meta.get("settings") or {})),
        ("machine", (meta.get("machine") or {}).get("summary")),
        ("started", meta.get("started")), ("finished", meta.get("finished") or "not finished (partial results)"),
    ]
    index, build = meta.get("index") or {}, meta.get("index_build")
    if build and build != index:  # resumed: an earlier invocation built the index, the latest re-used it
        info.append(("index build (an earlier invocation of this run)", _index_seconds(build)))
        if index.get("seconds") is not None:
            check = _index_seconds(index) + f", {index.get('skipped')} unchanged"
            info.append(("index check (latest invocation)", check))
    elif index.get("seconds") is not None:
        info.append(("index build (this run)", _index_seconds(index)))
    out += [f"- {name}: {val}" for name, val in info if val is not None] + [""]
    counts = {m: int(s["overall"]["n"]) for m, s in summary.items()}
    if len(set(counts.values())) > 1:
        out += [f"Note: the methods answered different numbers of questions ({counts}); the run is incomplete.", ""]

    out += ["## Answer quality (all questions)", ""]
    head = ["Method"] + QUALITY_HEADER + ["Yes/No acc", "Null acc"]
    out += _table(head, ([m] + _quality_cells(s["overall"]) + [fmt(s["overall"]["yes_no_acc"]), fmt(s["overall"]["null_acc"])]
                         for m, s in summary.items()))

    out += ["## Abstention and hallucination: answerable and unanswerable questions", "",
            "Rate (count). On answerable questions Strict + Abst. + Halluc. = 1; an unanswerable (null-gold) "
            "question is either declined or answered anyway.", ""]
    out += _table(["Method"] + ANSWERABILITY_HEADER, ([m] + _answerability_cells(s["overall"]) for m, s in summary.items()))

    out += ["## Yes/no questions: gold against predicted", "",
            "A reader that answers one polarity whatever the evidence scores the base rate; this table "
            "shows it. AUC: how well the reader's yes/no score (its evidence support, when it records "
            "one) separates the gold answers (0.5: no better than a coin).", ""]
    out += _table(["Method", "gold yes → yes", "→ no", "→ neither", "gold no → yes", "→ no", "→ neither",
                   "support AUC"],
                  ([m] + [fmt(s["overall"][f"yn_{g}_{p}"], 0) for g in ("yes", "no") for p in ("yes", "no", "none")]
                   + [fmt(s["overall"]["yes_no_auc"])] for m, s in summary.items()))

    out += [f"## K-fold spread (K={k}, Algorithm 3)", ""]
    out += _table(["Method", "non-empty folds", "Similarity mean ± sd", "Strict mean ± sd"], (
        [m, fmt(s["overall"]["n_folds"], 0), pm(s["overall"]["fold_sim_mean"], s["overall"]["fold_sim_std"]),
         pm(s["overall"]["fold_strict_mean"], s["overall"]["fold_strict_std"])] for m, s in summary.items()))
    out += ["Mean similarity per fold:", ""]
    out += _table(["Method"] + [f"fold {f}" for f in range(k)],
                  ([m] + [fmt(v) for v in fold_means(s["rows"], k)] for m, s in summary.items()))

    out += ["## Cost per question", ""]
    gpu = any(math.isfinite(s["overall"]["gpu_mem_mb"]) for s in summary.values())
    head = ["Method", "n", "errors", "Time mean (s)", "Time median (s)", "Time p90 (s)", "LLM calls",
            "Prompt tokens", "Completion tokens", "Peak RSS (MiB)"] + (["GPU (MiB)"] if gpu else [])
    out += _table(head, ([m] + _cost_cells(s["overall"], gpu) for m, s in summary.items()))

    out += ["## By question type", ""]
    types = sorted({t for s in summary.values() for t in s["by_type"]})
    for t in types:
        out += [f"### {t}", ""]
        stats = {m: s["by_type"].get(t) or group_stats([]) for m, s in summary.items()}
        out += _table(["Method"] + QUALITY_HEADER + ["Abst.", "Halluc."],
                      ([m] + _quality_cells(st) + [fmt(st["abstention"]), fmt(st["hallucination"])] for m, st in stats.items()))

    out += ["## Plots", "", f"![Answer similarity per method]({SIM_PLOT})", "",
            f"![Time per question per method]({TIME_PLOT})", ""]
    out += ["## Definitions", "", DEFINITIONS]
    return "\n".join(out)


# -- plots ------------------------------------------------------------------------------
def box_plot(path: Path, data: dict[str, list[float]], ylabel: str, title: str) -> Path:
    """One box per method (Agg canvas, no pyplot: safe next to a Qt app)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = list(data) or ["(no results)"]
    values = [[v for v in data.get(n, []) if math.isfinite(v)] for n in names]
    fig = Figure(figsize=(max(4.0, 1.3 * len(names) + 1.5), 4.0), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    ax.boxplot([v if v else [math.nan] for v in values], showmeans=True)
    ax.set_xticks(range(1, len(names) + 1))
    ax.set_xticklabels([f"{n}\n(n={len(v)})" for n, v in zip(names, values, strict=True)])
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, format="png")
    return path


def write_plots(out_dir: Path, summary: dict[str, dict[str, Any]]) -> list[Path]:
    sims = {m: [row_similarity(r) for r in s["rows"]] for m, s in summary.items()}
    times = {m: [_num(r.get("seconds")) for r in s["rows"]] for m, s in summary.items()}
    return [
        box_plot(out_dir / SIM_PLOT, sims, "answer similarity (cosine)", "Answer similarity per method"),
        box_plot(out_dir / TIME_PLOT, times, "seconds per question", "Execution time per question"),
    ]


def _joined(row: dict[str, Any], q: Any) -> dict[str, Any]:
    """A results row with its question's fold, type and (when the question has one) gold answer."""
    out = dict(row, fold=q.fold, question_type=q.question_type)
    if getattr(q, "answer", None) is not None:
        out.update(gold=q.answer, options=getattr(q, "options", None), gold_index=getattr(q, "gold_index", None))
    return out


def write_report(
    out_dir: Path,
    questions: Optional[Sequence[Any]] = None,
    methods: Optional[Sequence[str]] = None,
    folds: Optional[int] = None,
) -> Path:
    """Write ``report.md`` and the PNGs into ``out_dir`` and return the report's path.

    ``questions`` (the run's selection, objects with ``id``, ``fold``, ``question_type``,
    ``answer``) limits the report to them and supplies their fold ids and gold answers (rows keep
    no benchmark text, so results can be kept in the repository); without it every row counts
    and rows must carry ``gold`` themselves.
    """
    out_dir = Path(out_dir)
    rows = read_results(out_dir / RESULTS_FILE)
    meta = read_meta(out_dir / RUN_FILE)
    if questions is not None:
        by_id = {str(q.id): q for q in questions}
        rows = [_joined(r, by_id[str(r["id"])]) for r in rows if str(r["id"]) in by_id]
    k = int(folds or meta.get("folds") or 0) or (max((int(r.get("fold", 0) or 0) for r in rows), default=0) + 1)
    summary = summarize(rows, methods)
    write_plots(out_dir, summary)
    report = out_dir / REPORT_FILE
    tmp = report.with_suffix(".md.tmp")
    tmp.write_text(render_markdown(summary, meta, k), encoding="utf-8")
    tmp.replace(report)
    return report
