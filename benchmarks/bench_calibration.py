"""Does a model's own calibration earn its keep? One model's recorded answers on the person-like
sets' held questions, decided by two calibrations: its own (fitted on the first set's tune half by
``k2desk models calibrate``) and another model's (the 1.5B's, shipped), side by side.

    python benchmarks/bench_calibration.py ask --model qwen2.5-coder-0.5b --set second --work /tmp/cal05/second
    python benchmarks/bench_calibration.py compare --rows /tmp/cal05/work/rows.jsonl --set first \\
        --own /tmp/cal05/calibrations/qwen2.5-coder-0.5b-1d9614638d18.json --other k2desk/runtime/calibrations/qwen2.5-coder-1.5b.json

``ask`` asks every question of a set with the model reading and checking its answers (its check
on), rows kept by question id in WORK/rows.jsonl (resumable; k2desk.eval.calibrate.ask_set, the
same run ``models calibrate`` makes). ``compare`` needs no model: every checked short answer is
decided again by each calibration (the signals are in the rows), every other row stays as it was.
Prints a Markdown table, the defaults (no calibration: the model's check not asked) first: right
answers shown plainly, wrong answers shown plainly, right and wrong ones shown with a caution,
answerable questions declined, unanswerable ones declined and shown plainly, strict accuracy.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import k2desk  # noqa: E402,F401  (the privacy switches first)
from k2desk.config import Settings  # noqa: E402
from k2desk.eval.calibrate import SET, ask_set, load_set, read_rows, tally  # noqa: E402
from k2desk.runtime import calibration  # noqa: E402
from k2desk.verdict import DEFAULTS  # noqa: E402

SETS = {"first": SET, "second": ROOT / "benchmarks" / "data" / "person2"}


def cmd_ask(args: argparse.Namespace) -> None:
    documents, questions = load_set(SETS[args.set])
    rows = ask_set(Settings.load(), args.model, args.work, questions[: args.limit or None], documents,
                   progress=lambda stage, done, total: print(f"{stage} {done}/{total}", flush=True) if stage == "calibrate" else None)
    print(f"{len(rows)} rows in {Path(args.work) / 'rows.jsonl'}")


def cmd_compare(args: argparse.Namespace) -> None:
    _, questions = load_set(SETS[args.set])
    golds = {q.id: q.gold for q in questions}
    half = {q.id: q.half for q in questions}
    rows = [r for r in read_rows(args.rows) if r["id"] in golds and (args.half == "all" or half[r["id"]] == args.half)]
    print(f"{len(rows)} rows ({args.set} set, {args.half} half)\n")
    print("| calibration | right shown plainly | wrong shown plainly | right / wrong cautioned | answerable declined | "
          "unanswerable declined | unanswerable shown plainly | strict |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, cal in (("none (the defaults: its check not asked)", DEFAULTS), ("own", calibration.read(Path(args.own))),
                      ("another model's", calibration.read(Path(args.other)))):
        t = tally(rows, golds, cal)
        print(f"| {name}{': ' + cal.model if cal.calibrated else ''} | {t['right_plain']} | {t['wrong_plain']} | "
              f"{t['right_cautioned']} / {t['wrong_cautioned']} | {t['answerable_declined']} of {t['answerable']} | "
              f"{t['unanswerable_declined']} of {t['unanswerable']} | {t['unanswerable_plain']} | {t['strict']:.1%} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("ask")
    a.add_argument("--model", required=True)
    a.add_argument("--set", choices=list(SETS), default="first")
    a.add_argument("--work", type=Path, required=True)
    a.add_argument("--limit", type=int)
    c = sub.add_parser("compare")
    c.add_argument("--rows", type=Path, required=True)
    c.add_argument("--set", choices=list(SETS), default="first")
    c.add_argument("--half", choices=["tune", "held", "all"], default="held")
    c.add_argument("--own", required=True, help="the model's own calibration record")
    c.add_argument("--other", required=True, help="another model's record (the 1.5B's, shipped)")
    args = p.parse_args()
    {"ask": cmd_ask, "compare": cmd_compare}[args.cmd](args)


if __name__ == "__main__":
    main()
