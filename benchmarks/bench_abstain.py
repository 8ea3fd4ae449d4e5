"""'Not in your documents', measured: how well the evidence's support separates the questions the
documents answer from the near misses they do not (docs/eval/abstain/).

Collections (each indexed once into WORK with the naive build profile: the raw-text stores the
check reads): the sample documents, the test fixtures, and the three dev collections in
../shared/bench. Questions:

* unanswerable: tests/methods/data/unanswerable.jsonl (hand-written near misses: the entity is
  there, the asked fact is not) and MultiHop-RAG's null questions (asked with the outlet rule
  switched off, so only the evidence can decline them);
* answerable: every non-null question of the three dev collections (yes/no and summary requests
  are never declined by the check, so they are counted apart).

``coverage`` (no model) scores every question; ``answers --method M`` asks each question with the
method and records the reader's decision (its coverage, the model's candidate answer, the
answer's support). Rows are kept by id in WORK/<name>.jsonl (no question text), so a run resumes.
``report`` re-decides each recorded candidate with the support rule of the code it runs on (the
candidate is the model's answer before any check, so a new rule needs no new model run), and
splits the answerable questions by whether the candidate was right (strict judge, golds read
from ../shared/bench by id).

    python benchmarks/bench_abstain.py coverage --work /tmp/abstain
    python benchmarks/bench_abstain.py answers --work /tmp/abstain --method hybrid --limit 40
    python benchmarks/bench_abstain.py report --work /tmp/abstain [--runs docs/eval/wiki68-evidence ...]
    python benchmarks/bench_abstain.py caution --runs docs/eval/wiki68-check docs/eval/papers89-check docs/eval/sample60-check
    python benchmarks/bench_abstain.py signals --work /tmp/abstain --runs docs/eval/wiki68-check ...

``signals`` reads every checked short answer of the runs and of the near misses' answers
(WORK/answers-evidence.jsonl) again with this code: the passages retrieved again (hybrid, k=10,
on WORK's naive index, not necessarily the run's own), the words' support (values in their normal
form) and the meaning's support (the embedder's cosine between the question and the windows that
hold the answer) recomputed, the model's check as recorded. Rows go to WORK/signals.jsonl by
(run, method, id); it prints each signal's AUC, right answers against wrong answers and against
unanswerable questions' answers, on two seeded halves by question id.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import k2desk  # noqa: E402,F401  (the privacy switches first)
from k2desk.config import Settings  # noqa: E402
from k2desk.engine import Engine  # noqa: E402
from k2desk.eval.metrics import auc, is_abstention, is_null_gold, strict_match, token_f1  # noqa: E402
from k2desk.methods.forms import ask_form  # noqa: E402
from k2desk.methods.reader import says_nothing  # noqa: E402
from k2desk.verdict import DEFAULTS, against, keeps  # noqa: E402

# the thresholds these sweeps start from: the 1.5B's calibration (its values are the defaults')
CAL = DEFAULTS.with_values(check=True)
CHECK_MIN, COVERAGE_MIN, SUPPORT_MIN = CAL.check_min, CAL.coverage_min, CAL.support_min
from k2desk.methods.support import answer_support, coverage, list_support, meaning_support  # noqa: E402
from k2desk.prompts import NOT_IN_DOCUMENTS  # noqa: E402

BENCH = ROOT.parent / "shared" / "bench"
DEV = ("multihop-rag-dev", "papers-qa-dev", "wiki-qa-dev")
PATHS = {"sample": [ROOT / "resources" / "sample"],
         "fixtures": [ROOT / "tests" / "fixtures" / p for p in ("corpus_small.jsonl", "mixed", "epub")],
         **{name: [BENCH / name / "corpus.jsonl"] for name in DEV}}
UNANSWERABLE = ROOT / "tests" / "methods" / "data" / "unanswerable.jsonl"


def settings(work: Path, outlet_rule: bool = False) -> Settings:
    return Settings(home=work / "home", models_dir=ROOT / "models", threads=2, build_profile="naive",
                    outlet_rule=outlet_rule)


def questions() -> list[dict]:
    """id, collection, question, answerable (bool), form."""
    out = []
    for i, line in enumerate(UNANSWERABLE.read_text(encoding="utf-8").splitlines()):
        if line.strip():
            q = json.loads(line)
            out.append({"id": f"u{i:03d}", "collection": q["collection"], "question": q["question"], "answerable": False})
    for name in DEV:
        for line in (BENCH / name / "queries.jsonl").read_text(encoding="utf-8").splitlines():
            q = json.loads(line)
            null = q.get("question_type") == "null_query"
            out.append({"id": str(q["id"]), "collection": name, "question": q["query"], "answerable": not null})
    for q in out:
        q["form"] = ask_form(q["question"]).kind
    return out


def build(work: Path) -> None:
    for name, paths in PATHS.items():
        t0 = time.perf_counter()
        with Engine(settings(work), name) as engine:
            report = engine.index([str(p) for p in paths])
        print(f"{name}: {len(report.added)} documents added, {len(report.skipped)} unchanged, {len(report.failed)} failed "
              f"in {time.perf_counter() - t0:.1f} s")


def _rows(path: Path) -> dict[str, dict]:
    if not path.exists():
        return {}
    return {r["id"]: r for r in map(json.loads, path.read_text().splitlines()) if r}


def cmd_coverage(args: argparse.Namespace) -> None:
    work = Path(args.work)
    build(work)
    out = work / "coverage.jsonl"
    done = _rows(out)
    engines = {name: Engine(settings(work), name) for name in PATHS}
    with out.open("a") as fh:
        for q in questions():
            if q["id"] in done:
                continue
            engine = engines[q["collection"]]
            method = engine.method("evidence")
            retriever = method.ctx.retriever("text")  # type: ignore[attr-defined]
            form = ask_form(q["question"])
            hits = retriever.evidence_search(form.text, k=10)
            c = coverage(form.text, hits, retriever.sparse)
            row = {"id": q["id"], "collection": q["collection"], "answerable": q["answerable"], "form": q["form"],
                   "coverage": round(c.score, 4), "missing": len(c.missing)}
            fh.write(json.dumps(row) + "\n")
    for e in engines.values():
        e.close()


def cmd_answers(args: argparse.Namespace) -> None:
    work = Path(args.work)
    out = work / (f"answers-{args.method}-{args.form}.jsonl" if args.form else f"answers-{args.method}.jsonl")
    done = _rows(out)
    pool = [q for q in questions() if q["form"] not in ("yes_no", "summary")]
    if args.form:  # every question of one form, answerable or not
        chosen = [q for q in pool if q["form"] == args.form]
    else:
        rng = random.Random(0)
        unans = [q for q in pool if not q["answerable"]]
        ans = [q for q in pool if q["answerable"]]
        rng.shuffle(ans)
        per = {name: [q for q in ans if q["collection"] == name][: args.limit] for name in DEV}
        chosen = unans + [q for name in DEV for q in per[name]]
    engines: dict[str, Engine] = {}
    with out.open("a") as fh:
        for q in chosen:
            if q["id"] in done:
                continue
            engine = engines.get(q["collection"]) or engines.setdefault(q["collection"], Engine(settings(work), q["collection"]))
            t0 = time.perf_counter()
            a = engine.ask(q["question"], method=args.method)
            reader = a.trace.get("reader") or {}  # the record of the reading (the verdict decides)
            row = {"id": q["id"], "collection": q["collection"], "answerable": q["answerable"], "form": q["form"],
                   "declined": a.verdict.declined,
                   "coverage": (reader.get("coverage") or {}).get("score"),
                   "support": (reader.get("answer_support") or {}).get("score"), "verify": reader.get("verify"),
                   "prediction": a.answer[:200], "candidate": str(reader.get("candidate") or a.answer)[:200],
                   "seconds": round(time.perf_counter() - t0, 2)}
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            print(f"{q['id']} {q['collection']} answerable={q['answerable']} declined={row['declined']} {row['seconds']} s")
    for e in engines.values():
        e.close()


def _rates(rows: list[dict], key: str) -> str:
    neg = [r for r in rows if not r["answerable"]]
    pos = [r for r in rows if r["answerable"]]
    declined_neg = sum(r[key] for r in neg) / len(neg) if neg else float("nan")
    declined_pos = sum(r[key] for r in pos) / len(pos) if pos else float("nan")
    return f"unanswerable declined {declined_neg:.3f} (n={len(neg)}), answerable declined {declined_pos:.3f} (n={len(pos)})"


def cmd_report(args: argparse.Namespace) -> None:
    work = Path(args.work)
    rows = list(_rows(work / "coverage.jsonl").values())
    checked = [r for r in rows if r["form"] not in ("yes_no", "summary")]
    for r in checked:
        r["declined"] = r["coverage"] < COVERAGE_MIN
    print(f"coverage (no model), threshold {COVERAGE_MIN}: {_rates(checked, 'declined')}")
    separation = auc([r["coverage"] for r in checked if r["answerable"]], [r["coverage"] for r in checked if not r["answerable"]])
    print(f"  AUC answerable vs unanswerable: {separation:.3f}")
    for name in PATHS:
        sub = [r for r in checked if r["collection"] == name]
        if sub:
            print(f"  {name}: {_rates(sub, 'declined')}")
    golds = {str(q["id"]): q["answer"] for name in DEV
             for q in map(json.loads, (BENCH / name / "queries.jsonl").read_text(encoding="utf-8").splitlines())}
    for path in sorted(work.glob("answers-*.jsonl")):
        rows = redecide(work, list(_rows(path).values()))
        print(f"{path.stem}: {_rates(rows, 'declined')}")
        for name in PATHS:
            sub = [r for r in rows if r["collection"] == name]
            if sub:
                print(f"  {name}: {_rates(sub, 'declined')}")
        for r in rows:
            r["right"] = r["answerable"] and r["candidate"] != NOT_IN_DOCUMENTS and strict_match(r["candidate"], golds[r["id"]])
        right = [r for r in rows if r["answerable"] and r["right"]]
        wrong = [r for r in rows if r["answerable"] and not r["right"]]
        print(f"  answerable, the model's answer right: declined {sum(r['declined'] for r in right)} of {len(right)}; "
              f"wrong (or none): declined {sum(r['declined'] for r in wrong)} of {len(wrong)}")
        ans = [r for r in rows if r["answerable"] and r["candidate"] != NOT_IN_DOCUMENTS]
        good = [r for r in ans if token_f1(r["candidate"], golds[r["id"]]) >= 0.5]
        poor = [r for r in ans if token_f1(r["candidate"], golds[r["id"]]) < 0.5]
        print(f"  answerable, the model's answer's token F1 >= 0.5: declined {sum(r['declined'] for r in good)} of "
              f"{len(good)}; below: declined {sum(r['declined'] for r in poor)} of {len(poor)}")
        scored = [r for r in rows if r.get("support_now") is not None]
        separation = auc([r["support_now"] for r in scored if r["answerable"] and r["right"]],
                         [r["support_now"] for r in scored if not r["answerable"]])
        print(f"  answer support AUC, right answers vs unanswerable questions' answers: {separation:.3f} (n={len(scored)})")
        verified = [r for r in scored if r.get("verify") is not None]
        if verified:
            separation = auc([r["verify"] for r in verified if r["answerable"] and r["right"]],
                             [r["verify"] for r in verified if not r["answerable"]])
            print(f"  verify AUC, right answers vs unanswerable questions' answers: {separation:.3f} (n={len(verified)})")
            print("  CHECK_MIN  unanswerable declined  answerable declined  right answers declined"
                  "  (decline: verify + support below it)")
            for t in (0.5, 1.0, 1.2, 1.4, 1.6, 2.0, 2.5):
                line = CAL.with_values(check_min=t, support_floor=0.0)
                _sweep_line(f"{t:9.1f}", rows, right, lambda v, s, r, line=line: not keeps(s, v, False, line))
            print(f"  SUPPORT_FLOOR  unanswerable declined  answerable declined  right answers declined"
                  f"  (CHECK_MIN {CHECK_MIN}; decline: support below it, unless the answer restates the question)")
            for f in (0.0, 0.2, 0.3, 0.35, 0.4, 0.45, 0.5):
                _sweep_line(f"{f:13.2f}", rows, right,
                            lambda v, s, r, f=f: not keeps(s, v, bool(r.get("restates")), CAL.with_values(support_floor=f)))
    report_runs(args.runs, golds)


def _sweep_line(label: str, rows: list[dict], right: list[dict], declines) -> None:
    """One row of a threshold sweep: each checked row re-decided by ``declines(verify, support, row)``."""
    for r in rows:
        v, s = r.get("verify"), r.get("support_now")
        r["declined_t"] = r["declined"] if v is None or s is None else declines(v, s, r)
    neg = [r for r in rows if not r["answerable"]]
    pos = [r for r in rows if r["answerable"]]
    print(f"  {label}  {sum(r['declined_t'] for r in neg) / len(neg):20.3f}  "
          f"{sum(r['declined_t'] for r in pos) / max(len(pos), 1):19.3f}  "
          f"{sum(r['declined_t'] for r in right)} of {len(right)}")


def report_runs(runs: list[str], golds: dict[str, str]) -> None:
    """For each eval run's checked short answers (rows with ``answer_support`` and ``verify``), how
    many right candidates (strict judge) each CHECK_MIN would decline, and how many wrong ones."""
    for run in runs:
        rows = [json.loads(line) for line in (Path(run) / "results.jsonl").read_text(encoding="utf-8").splitlines()]
        scored = [r for r in rows if r.get("answer_support") is not None and r.get("verify") is not None]
        for r in scored:
            r["right"] = strict_match(r.get("candidate") or r["prediction"], golds[str(r["id"])])
        right = [r for r in scored if r["right"]]
        print(f"{run}: {len(scored)} checked short answers, {len(right)} right (candidate before any decline)")
        print("  CHECK_MIN  right declined  wrong declined   (support < SUPPORT_MIN or verify < 0.5: "
              f"{sum(r['answer_support'] < SUPPORT_MIN or r['verify'] < 0.5 for r in right)} right, "
              f"{sum(r['answer_support'] < SUPPORT_MIN or r['verify'] < 0.5 for r in scored if not r['right'])} wrong)")
        for t in (1.0, 1.2, 1.4, 1.6, 2.0):
            print(f"  {t:9.1f}  {sum(r['verify'] + r['answer_support'] < t for r in right):14d}  "
                  f"{sum(r['verify'] + r['answer_support'] < t for r in scored if not r['right']):14d}")


def caution_sweep(runs: list[str], golds: dict[str, str], seed: int = 44) -> None:
    """The answers the one score declines that a caution would show instead (the band measured
    before reader.against: the answer's sentences hold every term of the question, the check not
    clearly against it), on two
    halves of the runs' checked short answers split by question id (seeded): the thresholds are
    chosen on the first half and reported on the second. Right, wrong (strict judge) and
    unanswerable questions (null gold) apart."""
    rows = []
    for run in runs:
        for line in (Path(run) / "results.jsonl").read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if r.get("answer_support") is None or r.get("verify") is None:
                continue
            gold = golds[str(r["id"])]
            r["kind"] = ("unanswerable" if is_null_gold(gold) else
                         "right" if strict_match(r.get("candidate") or r["prediction"], gold) else "wrong")
            rows.append(r)
    ids = sorted({r["id"] for r in rows})
    random.Random(seed).shuffle(ids)
    tune = set(ids[: len(ids) // 2])
    kinds = ("right", "wrong", "unanswerable")
    for half, sel in (("tune", [r for r in rows if r["id"] in tune]), ("report", [r for r in rows if r["id"] not in tune])):
        declined = [r for r in sel if not keeps(r["answer_support"], r["verify"], False, CAL)]
        print(f"{half} half: {len(sel)} checked short answers; declined by the one score: "
              + ", ".join(f"{sum(r['kind'] == k for r in declined)} {k}" for k in kinds))
        for support in (0.5, 0.6, 0.8, 0.99):
            for verify in (-1.0, -0.5, 0.0):
                shown = [r for r in declined if r["answer_support"] >= support and r["verify"] >= verify]
                print(f"  caution at support >= {support:4.2f}, verify >= {verify:4.1f}: shown "
                      + ", ".join(f"{sum(r['kind'] == k for r in shown)} {k}" for k in kinds))


def redecide(work: Path, rows: list[dict]) -> list[dict]:
    """Each row's decision under this code's rule: a short answer the model gave (the recorded
    candidate) is declined when ``reader.keeps`` says so: its support with the model's check of it
    (the recorded ``verify``) below CHECK_MIN, or its support alone below SUPPORT_MIN where no check
    was recorded; an answer that says there is none ("None.") is declined in any form; declines
    before the model and other forms stay as recorded."""
    engines: dict[str, Engine] = {}
    qs = {q["id"]: q for q in questions()}
    for r in rows:
        if says_nothing(r["candidate"]):  # "None": the model found no answer (reader.says_nothing)
            r["declined"] = True
            continue
        if r["form"] not in ("factoid", "list") or r["coverage"] is None or r["candidate"].startswith("Not in your documents"):
            continue
        if is_abstention(r["candidate"]):
            continue
        engine = engines.get(r["collection"]) or engines.setdefault(r["collection"], Engine(settings(work), r["collection"]))
        retriever = engine.method("evidence").ctx.retriever("text")  # type: ignore[attr-defined]
        form = ask_form(qs[r["id"]]["question"])
        hits = retriever.evidence_search(form.text, k=10)
        if r["form"] == "list":  # declined when the passages hold none of its items (reader.open)
            r["declined"] = not list_support(form.text, r["candidate"], hits, retriever.sparse).found_answer
            continue
        s = answer_support(form.text, r["candidate"], hits, retriever.sparse)
        r["support_now"], r["restates"] = s.score, s.restates
        r["declined"] = not keeps(s.score, r.get("verify"), s.restates, CAL)
    for e in engines.values():
        e.close()
    return rows


def _halves(ids: set[str], seed: int = 44) -> set[str]:
    """The first half of ``ids`` by a seeded shuffle (the half thresholds are tuned on)."""
    ordered = sorted(ids)
    random.Random(seed).shuffle(ordered)
    return set(ordered[: len(ordered) // 2])


def signal_rows(work: Path, runs: list[str], golds: dict[str, str]) -> list[dict]:
    """(run, method, id, kind, support, support_now, meaning, verify) of every checked short answer
    of ``runs`` and of the near misses' recorded answers; cached in WORK/signals.jsonl."""
    out = work / "signals.jsonl"
    done = {(r["run"], r["method"], r["id"]): r for r in map(json.loads, out.read_text().splitlines())} if out.exists() else {}
    qs = {q["id"]: q for q in questions()}
    todo = []
    for run in runs:
        for line in (Path(run) / "results.jsonl").read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if r.get("answer_support") is not None and r.get("verify") is not None:
                gold = golds[str(r["id"])]
                candidate = r.get("candidate") or r["prediction"]
                kind = ("unanswerable" if is_null_gold(gold) else "right" if strict_match(candidate, gold) else "wrong")
                todo.append({"run": Path(run).name, "method": r["method"], "id": str(r["id"]), "kind": kind,
                             "candidate": candidate, "support": r["answer_support"], "verify": r["verify"],
                             "collection": qs[str(r["id"])]["collection"]})
    near = work / "answers-evidence.jsonl"
    for r in map(json.loads, near.read_text().splitlines()) if near.exists() else []:
        if r.get("verify") is not None and not r["answerable"]:
            todo.append({"run": "near-misses", "method": "hybrid", "id": r["id"], "kind": "unanswerable",
                         "candidate": r["candidate"], "support": r["support"], "verify": r["verify"],
                         "collection": r["collection"]})
    engines: dict[str, Engine] = {}
    rows = []
    with out.open("a") as fh:
        for t in todo:
            key = (t["run"], t["method"], t["id"])
            if key in done:
                rows.append(done[key])
                continue
            engine = engines.get(t["collection"]) or engines.setdefault(t["collection"], Engine(settings(work), t["collection"]))
            ctx = engine.method("evidence").ctx  # type: ignore[attr-defined]
            retriever = ctx.retriever("text")
            form = ask_form(qs[t["id"]]["question"])
            hits = retriever.evidence_search(form.text, k=10)
            s = answer_support(form.text, t["candidate"], hits, retriever.sparse)
            meaning = meaning_support(form.text, s, ctx.embedder.embed)
            row = {k: v for k, v in t.items() if k != "candidate"}  # no benchmark text kept
            row.update(support_now=round(s.score, 4), restates=s.restates, found=s.found_answer,
                       missing_values=len(s.missing_values),
                       meaning=None if meaning is None else round(meaning, 4))
            fh.write(json.dumps(row) + "\n")
            rows.append(row)
    for e in engines.values():
        e.close()
    return rows


def cmd_signals(args: argparse.Namespace) -> None:
    golds = {str(q["id"]): q["answer"] for name in DEV
             for q in map(json.loads, (BENCH / name / "queries.jsonl").read_text(encoding="utf-8").splitlines())}
    rows = signal_rows(Path(args.work), args.runs, golds)
    tune = _halves({r["id"] for r in rows})
    signals = {"support (recorded)": lambda r: r["support"], "support (normal form)": lambda r: r["support_now"],
               "meaning": lambda r: r["meaning"] if r["meaning"] is not None else 0.0, "verify": lambda r: r["verify"],
               "verify + support": lambda r: r["verify"] + r["support_now"]}
    for half, sel in (("tune", [r for r in rows if r["id"] in tune]), ("report", [r for r in rows if r["id"] not in tune])):
        right = [r for r in sel if r["kind"] == "right"]
        print(f"{half} half: " + ", ".join(f"{sum(r['kind'] == k for r in sel)} {k}" for k in ("right", "wrong", "unanswerable")))
        for name, f in signals.items():
            print(f"  {name:22s} AUC right vs wrong {auc([f(r) for r in right], [f(r) for r in sel if r['kind'] == 'wrong']):.3f}"
                  f"   right vs unanswerable {auc([f(r) for r in right], [f(r) for r in sel if r['kind'] == 'unanswerable']):.3f}")


def cmd_outcomes(args: argparse.Namespace) -> None:
    """Each recorded run's rows re-decided by this code's three outcomes (reader.against on the
    recorded support and check of a declined candidate; the candidates are the runs' own, so no
    model runs): strict accuracy and token F1 before and after over all rows, and the answerable
    questions answered / cautioned / declined; then the same by the seeded halves of question ids."""
    golds = {str(q["id"]): q["answer"] for name in DEV
             for q in map(json.loads, (BENCH / name / "queries.jsonl").read_text(encoding="utf-8").splitlines())}
    rowsets = {Path(run).name: [json.loads(line) for line in (Path(run) / "results.jsonl").read_text().splitlines()]
               for run in args.runs}

    def decided(r: dict) -> tuple[str, str]:
        pred = r["prediction"]
        if not pred.startswith("Not in your documents"):
            return pred, "answered"
        support, verify = r.get("answer_support"), r.get("verify")
        if (r.get("candidate") and support is not None and verify is not None and support > 0 and not r.get("restates")
                and not against(support, verify, CAL)):
            return r["candidate"], "cautioned"
        return pred, "declined"

    print("| run, method | rows | strict before | strict after | F1 before | F1 after "
          "| answerable: answered / cautioned / declined after |")
    print("|---|---:|---:|---:|---:|---:|---|")
    groups = {f"{name} {method}": [r for r in rows if r["method"] == method]
              for name, rows in rowsets.items() for method in dict.fromkeys(r["method"] for r in rows)}
    for name, rows in groups.items():
        n = len(rows)
        after = [decided(r) for r in rows]
        counts = Counter(o for r, (_, o) in zip(rows, after) if not is_null_gold(golds[str(r["id"])]))
        sb = sum(strict_match(r["prediction"], golds[str(r["id"])]) for r in rows) / n
        sa = sum(strict_match(p, golds[str(r["id"])]) for r, (p, _) in zip(rows, after)) / n
        fb = sum(token_f1(r["prediction"], golds[str(r["id"])]) for r in rows) / n
        fa = sum(token_f1(p, golds[str(r["id"])]) for r, (p, _) in zip(rows, after)) / n
        print(f"| {name} | {n} | {sb:.3f} | {sa:.3f} | {fb:.3f} | {fa:.3f} | "
              f"{counts['answered']} / {counts['cautioned']} / {counts['declined']} |")
    tune = _halves({str(r["id"]) for rows in rowsets.values() for r in rows})
    for half in ("tune", "report"):
        out: dict = {}
        for rows in rowsets.values():
            for r in rows:
                if (str(r["id"]) in tune) != (half == "tune"):
                    continue
                gold = golds[str(r["id"])]
                pred, outcome = decided(r)
                kind = "unanswerable" if is_null_gold(gold) else "answerable"
                cell = out.setdefault(kind, {}).setdefault(outcome, [0, 0])
                cell[0] += 1
                cell[1] += strict_match(pred, gold) if outcome != "declined" or kind == "unanswerable" else 0
        print(f"{half} half: " + "; ".join(f"{kind}: " + ", ".join(f"{o} {v[0]} ({v[1]} right)" for o, v in sorted(d.items()))
                                           for kind, d in out.items()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    caution = sub.add_parser("caution", help="the answers a caution would show instead of declining (recorded runs)")
    caution.add_argument("--runs", nargs="+", required=True, help="eval run folders (docs/eval/...) with the checks' scores")
    signals = sub.add_parser("signals", help="each signal's separation on recorded answers, read again")
    signals.add_argument("--work", required=True)
    signals.add_argument("--runs", nargs="+", required=True)
    outcomes = sub.add_parser("outcomes", help="recorded runs re-decided by the three outcomes of this code")
    outcomes.add_argument("--runs", nargs="+", required=True)
    for name in ("coverage", "answers", "report"):
        s = sub.add_parser(name)
        s.add_argument("--work", required=True)
        if name == "report":
            s.add_argument("--runs", nargs="*", default=[],
                           help="eval run folders (docs/eval/...) whose rows keep the checks' scores: their right "
                                "candidates declined under each CHECK_MIN")
        if name == "answers":
            s.add_argument("--method", default="k2rag")
            s.add_argument("--limit", type=int, default=20, help="answerable questions per dev collection")
            s.add_argument("--form", help="every question of this form (list, explain, ...) instead of the sample")
    args = ap.parse_args()
    if args.cmd == "caution":
        golds = {str(q["id"]): q["answer"] for name in DEV
                 for q in map(json.loads, (BENCH / name / "queries.jsonl").read_text(encoding="utf-8").splitlines())}
        caution_sweep(args.runs, golds)
        return
    {"coverage": cmd_coverage, "answers": cmd_answers, "report": cmd_report, "signals": cmd_signals,
     "outcomes": cmd_outcomes}[args.cmd](args)


if __name__ == "__main__":
    main()
