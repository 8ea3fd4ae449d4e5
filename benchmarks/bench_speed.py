"""Where an answer's time goes on a CPU (issue 72): two variants of the code side by side, one run.

    .venv/bin/python benchmarks/bench_speed.py run --set news --base REV [--limit 60] --home H [--news-home H2] --out DIR
    .venv/bin/python benchmarks/bench_speed.py report DIR

Each variant answers in its own worker process (benchmarks/speed_worker.py) with its source tree
first on PYTHONPATH: ``now`` the working tree, ``base`` a git worktree of ``--base`` (the code as
it was). They answer each question in turn, the order swapped from one question to the next, so
the machine's drift falls on both alike; one model job runs at a time. Before measuring, each
worker answers a question that is not measured (the models load).

Sets (the dev collections, indexed by `k2desk eval` into ``--home``; the news sample in
``--news-home`` when it lies elsewhere): ``news`` (MultiHop-RAG's sample, the eval's order),
``wiki``, ``papers`` (asked within its evidence documents, as ``--scope evidence``), and
``followups``: the later turns of the dialogue set's conversations over those collections, each
read against its earlier turns as the set writes them (their gold standalone questions and
answers), through ``Engine.converse``.

Per question and variant: prompt tokens, the ones reused from the model's evaluated state (the
KV cache; 0 where the variant does not count them), model calls, seconds to the first token and
in all, a follow-up's seconds to understand it, the answer, whether it is right (strict:
eval.metrics.judge) and its outcome. Rows are kept in DIR/rows.jsonl by variant, set and id: a run
resumes. ``report`` prints medians and p90 per set and variant, and the questions whose answers
differ, as Markdown (DIR/report.md). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from k2desk.eval import datasets, metrics  # noqa: E402

BENCH = ROOT.parent / "shared" / "bench"
SETS = {"news": ("multihop-rag-dev", "queries_sample.jsonl"), "wiki": ("wiki-qa-dev", None),
        "papers": ("papers-qa-dev", None)}
DIALOGUE_SETS = {"multihop": "news", "wiki": "wiki", "papers": "papers"}  # dialogues.jsonl's names
WORKER = ROOT / "benchmarks" / "speed_worker.py"


# -- the questions --------------------------------------------------------------------------------
def questions(name: str, limit: Optional[int], home: Path, news_home: Path) -> list[dict[str, Any]]:
    """The set's jobs (without their variant), measured order; the last one is the warm-up."""
    if name == "followups":
        return followups(limit, home, news_home)
    folder, queries = SETS[name]
    bench, chosen = datasets.prepare(BENCH / folder, None, queries=queries)
    collection = datasets.collection_name(bench.corpus)
    jobs = []
    for q in chosen:
        job = {"id": q.id, "home": str(news_home if name == "news" else home), "collection": collection,
               "question": q.prompt, "gold": q.answer, "options": q.options, "gold_index": q.gold_index}
        if name == "papers":
            job["urls"] = [e.get("url") for e in q.evidence_list if isinstance(e, dict) and e.get("url")]
        jobs.append(job)
    return _limited(jobs, limit)


def followups(limit: Optional[int], home: Path, news_home: Path) -> list[dict[str, Any]]:
    jobs = []
    for line in (ROOT / "benchmarks" / "dialogues.jsonl").read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        if d["collection"] not in DIALOGUE_SETS:
            continue
        folder, _ = SETS[DIALOGUE_SETS[d["collection"]]]
        collection = datasets.collection_name(BENCH / folder / "corpus.jsonl")
        where = news_home if d["collection"] == "multihop" else home
        for n, t in enumerate(d["turns"][1:], 1):
            earlier = [{"message": e["message"], "standalone": e["standalone"], "answer": e["gold"], "doc": e.get("doc")}
                       for e in d["turns"][:n]]
            jobs.append({"id": f"{d['id']}#{n}", "home": str(where), "collection": collection, "question": t["message"],
                         "turns": earlier, "gold": t["gold"], "kind": t["kind"]})
    return _limited(jobs, limit)


def _limited(jobs: list[dict[str, Any]], limit: Optional[int]) -> list[dict[str, Any]]:
    """The first ``limit`` jobs, and one more after them: the warm-up (never measured)."""
    if limit is None or limit + 1 >= len(jobs):
        return jobs
    return jobs[: limit + 1]


# -- the variants ---------------------------------------------------------------------------------
class Worker:
    def __init__(self, name: str, tree: Path) -> None:
        self.name = name
        env = {**os.environ, "PYTHONPATH": str(tree), "K2DESK_MODELS": str(ROOT / "models"), "ORT_DISABLE_TELEMETRY": "1"}
        self.proc = subprocess.Popen([sys.executable, str(WORKER)], env=env, cwd=str(tree), text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def ask(self, job: dict[str, Any]) -> dict[str, Any]:
        sent = {k: v for k, v in job.items() if k not in ("gold", "options", "gold_index", "kind")}
        self.proc.stdin.write(json.dumps(sent) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"the {self.name} worker ended (code {self.proc.poll()})")
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(60)


def base_tree(rev: str) -> Path:
    """A worktree of ``rev`` (made once, kept for resumed runs)."""
    sha = subprocess.run(["git", "rev-parse", "--short=12", rev], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout.strip()
    tree = Path("/tmp") / f"k2desk-speed-base-{sha}"
    if not tree.is_dir():
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), sha], cwd=ROOT, check=True, capture_output=True)
    return tree


def done_rows(path: Path) -> dict[tuple[str, str, str], dict[str, Any]]:
    rows = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = json.loads(line)
                rows[(r["variant"], r["set"], r["id"])] = r
    return rows


def cmd_run(args: argparse.Namespace) -> None:
    out = args.out / "rows.jsonl"
    args.out.mkdir(parents=True, exist_ok=True)
    done = done_rows(out)
    trees = {"base": base_tree(args.base), "now": ROOT}
    (args.out / "run.json").write_text(json.dumps({"base": args.base, "base_tree": str(trees["base"]),
                                                   "now": "working tree", "limit": args.limit}, indent=1) + "\n")
    workers = {name: Worker(name, tree) for name, tree in trees.items()}
    try:
        for name in args.set:
            jobs = questions(name, args.limit, args.home, args.news_home or args.home)
            warm, measured = jobs[-1], jobs[:-1]
            for worker in workers.values():
                worker.ask({**warm, "id": "warm-up"})
            for n, job in enumerate(measured):
                order = ["base", "now"] if n % 2 == 0 else ["now", "base"]
                for variant in order:
                    if (variant, name, job["id"]) in done:
                        continue
                    row = workers[variant].ask(job)
                    judged = metrics.judge(row.get("answer") or "", job["gold"], job.get("options"), job.get("gold_index"))
                    row.update(variant=variant, set=name, strict=judged.strict, order=order.index(variant),
                               **({"kind": job["kind"]} if "kind" in job else {}))
                    with out.open("a", encoding="utf-8") as f:
                        f.write(json.dumps(row, ensure_ascii=False) + "\n")
                    print(f"{name:<9} {job['id']:<24} {variant:<4} {row.get('seconds', 0):6.2f}s "
                          f"read {row.get('prompt_tokens', 0) - row.get('reused_tokens', 0):>5} "
                          f"{'ok' if row['strict'] else '--'} {str(row.get('answer', row.get('error')))[:50]!r}", flush=True)
    finally:
        for worker in workers.values():
            worker.close()
    cmd_report(argparse.Namespace(dirs=[args.out]))


# -- the report ------------------------------------------------------------------------------------
def _q(xs: list[float], q: float) -> float:
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, max(0, round(q * len(xs)) - 1))] if q != 0.5 else statistics.median(xs)


def summary(rows: list[dict[str, Any]]) -> dict[str, float]:
    ok = [r for r in rows if "error" not in r]
    read = [r["prompt_tokens"] - r.get("reused_tokens", 0) for r in ok]
    first = [r["first_token"] for r in ok if r.get("first_token") is not None]
    understand = [r["timings"]["understand"] for r in ok if "understand" in (r.get("timings") or {})]
    return {"n": len(rows), "right": sum(r["strict"] for r in rows), "errors": len(rows) - len(ok),
            "median": _q([r["seconds"] for r in ok], 0.5), "p90": _q([r["seconds"] for r in ok], 0.9),
            "first_median": _q(first, 0.5), "first_p90": _q(first, 0.9),
            "prompt_median": _q([r["prompt_tokens"] for r in ok], 0.5), "read_median": _q(read, 0.5),
            "read_p90": _q(read, 0.9), "calls_mean": statistics.mean(r["calls"] for r in ok) if ok else float("nan"),
            "understand_median": _q(understand, 0.5)}


def report_lines(rows: list[dict[str, Any]]) -> Iterator[str]:
    sets = list(dict.fromkeys(r["set"] for r in rows))
    yield "| set | variant | n | right (strict) | median s | p90 s | first token median s | prompt tokens median | " \
          "read tokens median | read p90 | calls mean | rewrite median s |"
    yield "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for name in sets:
        both = {v: [r for r in rows if r["set"] == name and r["variant"] == v] for v in ("base", "now")}
        ids = set.intersection(*({r["id"] for r in rs} for rs in both.values()))  # compared on the same questions
        for variant, rs in both.items():
            s = summary([r for r in rs if r["id"] in ids])
            yield (f"| {name} | {variant} | {s['n']} | {s['right']} | {s['median']:.2f} | {s['p90']:.2f} | "
                   f"{s['first_median']:.2f} | {s['prompt_median']:.0f} | {s['read_median']:.0f} | {s['read_p90']:.0f} | "
                   f"{s['calls_mean']:.2f} | {s['understand_median']:.2f} |")
    yield ""
    for name in sets:
        by = {(r["variant"], r["id"]): r for r in rows if r["set"] == name}
        differ = [i for (v, i) in by if v == "now" and ("base", i) in by and
                  (by[("base", i)].get("answer") != by[("now", i)].get("answer"))]
        yield f"{name}: {len(differ)} answer(s) differ" + (":" if differ else ".")
        for i in differ:
            b, n = by[("base", i)], by[("now", i)]
            yield (f"- {i}: base {b.get('answer')!r} ({'right' if b['strict'] else 'wrong'}) → now {n.get('answer')!r} "
                   f"({'right' if n['strict'] else 'wrong'})")


def cmd_report(args: argparse.Namespace) -> None:
    for folder in args.dirs:
        rows = list(done_rows(folder / "rows.jsonl").values())
        lines = list(report_lines(rows))
        (folder / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        print("\n".join(lines))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--set", action="append", choices=[*SETS, "followups"], required=True)
    r.add_argument("--base", default="HEAD", help="the commit the working tree is compared with (default HEAD)")
    r.add_argument("--limit", type=int, default=None)
    r.add_argument("--home", type=Path, required=True, help="the home where `k2desk eval` indexed the dev collections")
    r.add_argument("--news-home", type=Path, help="the news sample's home, when it is another")
    r.add_argument("--out", type=Path, required=True)
    p = sub.add_parser("report")
    p.add_argument("dirs", nargs="+", type=Path)
    args = ap.parse_args()
    {"run": cmd_run, "report": cmd_report}[args.command](args)


if __name__ == "__main__":
    main()
