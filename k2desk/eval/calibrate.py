"""``k2desk models calibrate [MODEL]``: the thresholds of one reading model (k2desk.verdict),
fitted on k2desk's own calibration set and reported on the half it was not fitted on.

The set (``calibration_set/``) is a person's folder as people keep one — web pages with their
menus and footers, a PDF report with tables, wiki pages, letters, notes, a sheet, an e-mail, every
fact invented — and 161 questions as people ask them, 43 of them near misses the documents do not
answer (gold "Insufficient information."). The questions were split 50/50 by a seeded shuffle of
their ids before anyone read them: "tune" to fit on, "held" to report on.

A run asks every question with the model reading and checking its answers (k2rag, the model's
check on), keeping each row by question id in WORK/rows.jsonl (it resumes where it stopped, and
Ctrl-C or the app's Cancel stops it with every answer kept). The rows keep the signals each
answer was decided from, so the fit needs no model: every checked short answer is decided again
by each candidate's thresholds.

What is fitted, on the tune half's checked short answers:
- ``check``: whether the model's own check is asked at all: only where it adds to the words'
  support in telling its right answers from the rest (a logistic fit on the two gives it a
  positive weight). Where it does not, ``support_min`` is fitted instead (the support that best
  separates right answers from the rest, Youden's J) and an answer is kept on it or declined;
- ``check_min``: the keeping score (check + support) that best separates right answers from the
  rest (wrong answers and near misses; Youden's J, ties to the higher bar);
- ``against_weight``, ``against_min``: the decline line (check + weight × support), the weight
  from a logistic fit of answerable questions against near misses on the two signals, the bar the
  lowest that declines 80 % of the near misses (the procedure that fitted the 1.5B's line:
  benchmarks/bench_person.py fit).
What is carried from the reference calibration, not fitted here: the support floors and the
coverage thresholds (they read the words and the embedder, not the model) and the yes/no margin
(the set has too few yes/no questions to fit it).
"""

from __future__ import annotations

import json
import math
import statistics
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

from k2desk.config import Settings
from k2desk.eval.metrics import strict_match
from k2desk.progress import NEVER, CancelToken, Progress, progress_or_noop
from k2desk.verdict import DEFAULTS, Calibration, Signals, short_outcome

SET = Path(__file__).resolve().parent / "calibration_set"
COLLECTION = "calibration"
ROWS = "rows.jsonl"
NEAR_MISSES_DECLINED = 0.80  # the decline line's aim on the tune half (issue 44's bar)
FITTED = ("check", "check_min", "against_weight", "against_min")


@dataclass
class SetQuestion:
    id: str
    question: str
    gold: str
    kind: str  # fact, list, compare, date, number, synonym, unanswerable
    file: str  # the document holding the answer (a near miss: the one holding its entity)
    answerable: bool
    half: str  # "tune" or "held"


def load_set(root: Path = SET) -> tuple[Path, list[SetQuestion]]:
    """A calibration set's documents folder and its questions (root/questions.jsonl)."""
    rows = [json.loads(line) for line in (Path(root) / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    return Path(root) / "documents", [SetQuestion(**r) for r in rows]


# -- asking ------------------------------------------------------------------------------------
def run_settings(settings: Settings, model: str, work: Path) -> Settings:
    """The model answers, reads and checks everything, its check on, in a home of its own."""
    return replace(settings, home=Path(work) / "home", llm=model, reader_llm="", check_llm="", verify_answers="on",
                   hops=False)


def ask_set(settings: Settings, model: str, work: Path, questions: Iterable[SetQuestion], documents: Path,
            progress: Optional[Progress] = None, cancel: CancelToken = NEVER) -> list[dict[str, Any]]:
    """Every question asked once (rows already in WORK/rows.jsonl are kept, not asked again)."""
    from k2desk.engine import Engine

    progress = progress_or_noop(progress)
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    path = work / ROWS
    done = {r["id"]: r for r in read_rows(path)}
    todo = [q for q in questions if q.id not in done]
    with Engine(run_settings(settings, model, work), COLLECTION) as engine:
        if todo:
            engine.index([documents], progress=progress, cancel=cancel)
        with path.open("a", encoding="utf-8") as out:
            for n, q in enumerate(todo):
                progress("calibrate", len(done), len(done) + len(todo) - n)
                cancel.check()
                t0 = time.perf_counter()
                answer = engine.ask(q.question, method="k2rag", cancel=cancel)
                reader = answer.trace.get("reader") or {}
                row = {"id": q.id, "half": q.half, "answerable": q.answerable, "answer": answer.answer,
                       "candidate": str(reader.get("candidate") or answer.answer), "outcome": answer.outcome,
                       "signals": answer.verdict.signals.to_json(), "seconds": round(time.perf_counter() - t0, 3)}
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                out.flush()
                done[q.id] = row
    progress("calibrate", len(done), len(done))
    return list(done.values())


def read_rows(path: Path) -> list[dict[str, Any]]:
    if not Path(path).is_file():
        return []
    rows = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            continue  # a line cut by a stop mid-write: that question is asked again
    return rows


# -- deciding again, fitting, reporting ----------------------------------------------------------
def checked(row: dict[str, Any]) -> bool:
    """Whether the row is a short answer its model checked (the rows a calibration decides)."""
    s = row.get("signals") or {}
    return s.get("support") is not None and s.get("verify") is not None


def decided(row: dict[str, Any], cal: Calibration) -> str:
    """The row's outcome under ``cal``: a checked short answer decided again (without the model's
    check where ``cal`` does not ask for it), any other as it was."""
    if not checked(row):
        return row["outcome"]
    signals = Signals.from_json(row["signals"])
    if not cal.check:
        signals.verify = None
    return short_outcome(signals, cal)


def right(row: dict[str, Any], gold: str) -> bool:
    """The strict judge on the answer shown (a checked answer's own words, however it is decided)."""
    return strict_match(row["candidate"] if checked(row) else row["answer"], gold)


def tally(rows: list[dict[str, Any]], golds: dict[str, str], cal: Calibration) -> dict[str, Any]:
    """Right and wrong answers shown plainly and with a caution, declines, strict accuracy, seconds."""
    t = {"n": len(rows), "answerable": 0, "right_plain": 0, "right_cautioned": 0, "wrong_plain": 0,
         "wrong_cautioned": 0, "answerable_declined": 0, "unanswerable": 0, "unanswerable_declined": 0,
         "unanswerable_plain": 0}
    for r in rows:
        outcome = decided(r, cal)
        if r["answerable"]:
            t["answerable"] += 1
            if outcome == "declined":
                t["answerable_declined"] += 1
            else:
                t[f"{'right' if right(r, golds[r['id']]) else 'wrong'}_{'plain' if outcome == 'answered' else 'cautioned'}"] += 1
        else:
            t["unanswerable"] += 1
            t["unanswerable_declined"] += outcome == "declined"
            t["unanswerable_plain"] += outcome == "answered"
    t["strict"] = round((t["right_plain"] + t["right_cautioned"] + t["unanswerable_declined"]) / (len(rows) or 1), 4)
    seconds = [r["seconds"] for r in rows if r.get("seconds") is not None]
    t["median_seconds"] = round(statistics.median(seconds), 2) if seconds else None
    return t


def logistic(x, y, steps: int = 20000):
    """Weights (one per column, the last column being ones) of a lightly regularized logistic fit."""
    import numpy as np

    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-x @ w))
        w += 0.05 * (x.T @ (y - p) / len(y) - 0.001 * w)
    return w


def _unit_weights(rows: list[dict[str, Any]], positive: Callable[[dict[str, Any]], bool]) -> tuple[float, float]:
    """The logistic weights of (verify, support) telling ``positive`` rows from the rest, in each
    signal's own units (fitted on standardized signals)."""
    import numpy as np

    x = np.array([[r["signals"]["verify"], r["signals"]["support"]] for r in rows], dtype=float)
    y = np.array([float(positive(r)) for r in rows])
    mean, std = x.mean(0), np.where(x.std(0) > 0, x.std(0), 1)
    w = logistic(np.c_[(x - mean) / std, np.ones(len(x))], y)
    return float(w[0] / std[0]), float(w[1] / std[1])


def check_weight(rows: list[dict[str, Any]], golds: dict[str, str]) -> float:
    """How much the model's own check adds to the words' support in telling its right answers from
    the rest (the check's weight in units of the support's). Zero or less: its "yes" does not tell
    them apart, and asking it costs a model call for nothing."""
    check, support = _unit_weights(rows, lambda r: r["answerable"] and right(r, golds[r["id"]]))
    return check / support if support > 1e-6 else 0.0


def against_weight(rows: list[dict[str, Any]]) -> float:
    """The support's weight against the check's in a logistic fit of answerable questions against
    near misses."""
    check, support = _unit_weights(rows, lambda r: r["answerable"])
    if check <= 1e-6:  # the model's check does not tell them apart: the words' support alone decides
        return 100.0
    return max(0.0, support / check)


def _best_cut(scores: list[tuple[float, bool]]) -> float:
    """The cut over ``scores`` (score, positive) with the highest Youden's J (positives at or
    above it, the rest below; ties to the higher cut)."""
    positives = sum(p for _, p in scores) or 1
    negatives = sum(not p for _, p in scores) or 1
    best, cut = -2.0, float("inf")
    for c in sorted({s for s, _ in scores}, reverse=True):
        j = sum(p for s, p in scores if s >= c) / positives - sum(not p for s, p in scores if s >= c) / negatives
        if j > best + 1e-9:
            best, cut = j, c
    return cut


def fit(rows: list[dict[str, Any]], golds: dict[str, str], reference: Calibration = DEFAULTS) -> Calibration:
    """The thresholds fitted on ``rows`` (the tune half), the rest carried from ``reference``."""
    done = [r for r in rows if checked(r) and (r["signals"].get("found_answer", True))]
    if len(done) < 10 or not any(not r["answerable"] for r in done) or not any(r["answerable"] for r in done):
        raise ValueError(f"too few checked answers to fit on ({len(done)}; at least 10, answerable and not)")
    if check_weight(done, golds) <= 0:  # its check tells nothing: not asked; the words' support alone decides
        keep = _best_cut([(r["signals"]["support"], r["answerable"] and right(r, golds[r["id"]])) for r in done])
        return reference.with_values(check=False, support_min=round(keep, 4))
    keep = _best_cut([(r["signals"]["verify"] + r["signals"]["support"], r["answerable"] and right(r, golds[r["id"]]))
                      for r in done])
    weight = against_weight(done)
    lines = sorted(r["signals"]["verify"] + weight * r["signals"]["support"] for r in done if not r["answerable"])
    # the lowest bar that declines NEAR_MISSES_DECLINED of the near misses (a line below it is declined)
    bar = lines[max(1, math.ceil(NEAR_MISSES_DECLINED * len(lines))) - 1] + 1e-4
    return reference.with_values(check=True, check_min=round(keep, 4), against_weight=round(weight, 4),
                                 against_min=round(bar, 4))


def calibrate(settings: Settings, model: str, work: Path, root: Path = SET, progress: Optional[Progress] = None,
              cancel: CancelToken = NEVER, limit: Optional[int] = None,
              reference: Optional[Calibration] = None) -> tuple[Calibration, dict[str, Any]]:
    """Ask the set (resuming), fit on its tune half, report both halves with the fitted thresholds
    and with ``reference`` (the model's calibration before: its record, else the defaults)."""
    documents, questions = load_set(root)
    if limit:
        questions = questions[:limit]
    rows = ask_set(settings, model, work, questions, documents, progress, cancel)
    wanted = {q.id for q in questions}
    rows = [r for r in rows if r["id"] in wanted]
    golds = {q.id: q.gold for q in questions}
    reference = reference if reference is not None else DEFAULTS
    fitted = fit([r for r in rows if r["half"] == "tune"], golds, reference)
    report = {"questions": len(rows), "set": str(root.name)}
    for half in ("tune", "held"):
        sel = [r for r in rows if r["half"] == half]
        report[half] = {"fitted": tally(sel, golds, fitted), "before": tally(sel, golds, reference)}
    return fitted, report


def report_lines(report: dict[str, Any], before: str = "before") -> list[str]:
    """The report as a Markdown table a person reads."""
    lines = ["| half | thresholds | right shown plainly | wrong shown plainly | right / wrong cautioned | "
             "answerable declined | unanswerable declined | strict | s per answer |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for half in ("tune", "held"):
        for which, name in (("before", before), ("fitted", "fitted")):
            t = report.get(half, {}).get(which)
            if not t or not t["n"]:
                continue
            lines.append(f"| {half} | {name} | {t['right_plain']} | {t['wrong_plain']} | {t['right_cautioned']} / "
                         f"{t['wrong_cautioned']} | {t['answerable_declined']} of {t['answerable']} | "
                         f"{t['unanswerable_declined']} of {t['unanswerable']} | {t['strict']:.1%} | {t['median_seconds']} |")
    return lines


def summary(report: dict[str, Any]) -> str:
    """One line for the model's name in a list: "answered 31 of 40 right on the held half, 2.4 s per answer"."""
    t = report.get("held", {}).get("fitted") or {}
    if not t:
        return ""
    shown_right = t["right_plain"] + t["right_cautioned"]
    return (f"{shown_right} of {t['answerable']} answerable right, {t['unanswerable_declined']} of {t['unanswerable']} "
            f"near misses declined on k2desk's held half, {t['median_seconds']} s per answer")



@dataclass
class Run:
    """A calibration done: the model's name, its thresholds before and fitted, the report, the
    record written and where."""

    name: str
    before: Calibration
    fitted: Calibration
    report: dict[str, Any]
    record: dict[str, Any]
    saved: Path


def calibrate_model(settings: Settings, name: str, work: Optional[Path] = None, progress: Optional[Progress] = None,
                    cancel: CancelToken = NEVER, limit: Optional[int] = None, out: Optional[Path] = None,
                    announce: Callable[[str], None] = lambda line: None) -> Run:
    """Calibrate the model ``name`` (a manifest name or a GGUF path): checked against the machine's
    memory first, asked in WORK (default: the home folder's calibration-runs/, by model), fitted,
    and its record written to the home folder's calibrations (or ``out``)."""
    from k2desk.runtime import calibration
    from k2desk.runtime.discover import check_memory
    from k2desk.runtime.models import ModelStore, file_sha256

    store = ModelStore(settings.models_dir)
    path = store.resolve_llm(name)
    check_memory(path, settings.n_ctx, settings.gpu_layers)
    known = [e for e in store.entries if e.role == "llm" and e.sha256 and store.path_of(e).resolve() == path.resolve()]
    sha = known[0].sha256 if known else file_sha256(path, cancel)
    shown = known[0].name if known else (name if not Path(name).exists() else path.stem)
    work = Path(work) if work else settings.home / "calibration-runs" / f"{Path(shown).name}-{sha[:12]}"
    before = calibration.find(path, settings.home, store)
    announce(f"calibrating {shown} on k2desk's calibration set; answers kept in {work} (run again to resume)")
    fitted, report = calibrate(settings, str(path), work, progress=progress, cancel=cancel, limit=limit, reference=before)
    data = calibration.record(fitted, shown, sha, path.stat().st_size,
                              f"k2desk's calibration set ({SET.name}), tune half; reported on its held half", report)
    if out is not None:
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        saved = out
    else:
        saved = calibration.save(data, settings.home)
    return Run(shown, before, fitted, report, data, saved)
