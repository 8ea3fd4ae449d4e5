"""Retrieval alone, no LLM: MultiHop-RAG's own metrics over what each method gathers, and the
same at document level for benches whose evidence names documents only.

Fact level, for questions whose evidence has ``fact`` texts, by the benchmark's rule
(yixuantt/MultiHop-RAG ``retrieval_evaluate.py``): with all spaces and newlines removed, a
retrieved passage is a hit when a gold evidence fact is a substring of it. Per question: Hits@4
and Hits@10 (a hit in the first 4 / 10 passages), AP@10 (each newly covered fact adds 1/rank;
divided by min(#facts, 10)), RR@10 (1 / rank of the first hit).

Document level, for questions whose evidence names documents (``url``): the documents of the
first 10 passages, each counted once at its best rank. doc Hits@k (k = 1, 4, 10): an evidence
document is among the documents of the first k passages; doc RR@10: 1 / the rank of the first
evidence document in that de-duplicated list. With more than one evidence document, also whether
EVERY one has a passage in the first 4 / 10 (what a multi-hop question needs).

Questions without evidence (null questions) are left out, as the benchmark does; a table's mean
of a metric is over the questions it applies to. Results are kept by question id and method in
``retrieval.jsonl`` (no benchmark text), so a run resumes and its table can be rebuilt.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from k2desk.errors import UsageError
from k2desk.eval.datasets import Question, stored_name
from k2desk.progress import NEVER, CancelToken, Progress, progress_or_noop

RESULTS_FILE = "retrieval.jsonl"
DOC_KS = (1, 4, 10)
METRICS = ("hits4", "hits10", "map10", "mrr10", *(f"doc_hits{k}" for k in DOC_KS), "doc_mrr10", "all_docs4", "all_docs10")
HEADERS = {"hits4": "Hits@4", "hits10": "Hits@10", "map10": "MAP@10", "mrr10": "MRR@10",
           **{f"doc_hits{k}": f"doc Hits@{k}" for k in DOC_KS}, "doc_mrr10": "doc MRR@10",
           "all_docs4": "all evidence articles @4", "all_docs10": "all evidence articles @10"}


@dataclass
class Passage:
    text: str
    document: str  # the document key; a corpus record's key ends with "#<url>"


def _squeeze(text: str) -> str:
    return text.replace(" ", "").replace("\n", "")


def document_url(key: str) -> str:
    return key.split("#", 1)[1] if "#" in key else key


def fact_scores(passages: Sequence[Passage], facts: Sequence[str]) -> dict[str, float]:
    """Hits@4, Hits@10, AP@10 and RR@10 of one question's ranked passages against its facts."""
    gold = [_squeeze(f) for f in facts]
    found: set[str] = set()
    first: Optional[int] = None
    ap = 0.0
    hits4 = hits10 = False
    for rank, passage in enumerate(passages[:10], start=1):
        text = _squeeze(passage.text)
        covered = [g for g in gold if g in text]
        if not covered:
            continue
        hits10 = True
        hits4 = hits4 or rank <= 4
        first = first or rank
        new = [g for g in covered if g not in found]
        found.update(new)
        ap += len(new) / rank
    return {"hits4": float(hits4), "hits10": float(hits10), "map10": ap / min(len(gold), 10), "mrr10": 1.0 / first if first else 0.0}


def document_scores(passages: Sequence[Passage], evidence_urls: Sequence[str]) -> dict[str, float]:
    """doc Hits@1/4/10 and doc RR@10 of one question's ranked passages against its evidence
    documents; with several, whether all are in the first 4 / 10 passages."""
    urls = set(evidence_urls)
    docs = [document_url(p.document) for p in passages[:10]]
    ranking = list(dict.fromkeys(docs))  # each document once, at its best rank
    first = next((rank for rank, doc in enumerate(ranking, start=1) if doc in urls), None)
    out = {f"doc_hits{k}": float(bool(urls & set(docs[:k]))) for k in DOC_KS}
    out["doc_mrr10"] = 1.0 / first if first else 0.0
    if len(urls) > 1:
        out.update(all_docs4=float(urls <= set(docs[:4])), all_docs10=float(urls <= set(docs)))
    return out


def score_question(passages: Sequence[Passage], facts: Sequence[str], evidence_urls: Sequence[str]) -> dict[str, float]:
    """The metrics that apply to one question (see the module docstring): fact level when it has
    facts, document level when its evidence names documents."""
    facts = [f for f in facts if f]
    return {**(fact_scores(passages, facts) if facts else {}),
            **(document_scores(passages, evidence_urls) if evidence_urls else {})}


def evidence(q: Question) -> tuple[list[str], list[str]]:
    """The question's evidence fact texts (none where the bench names documents only) and urls."""
    facts = [e["fact"] for e in q.evidence_list if isinstance(e, dict) and e.get("fact")]
    urls = list(dict.fromkeys(e.get("url", "") for e in q.evidence_list if isinstance(e, dict) and e.get("url")))
    return facts, urls


Retrieve = Callable[[str], list[Passage]]


def load_rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                rows.append(json.loads(line))
            except ValueError:
                continue  # a line cut by a crash: that question is asked again
    return rows


def run_retrieval(questions: Sequence[Question], retrievers: dict[str, Retrieve], out_dir: Path,
                  progress: Optional[Progress] = None, cancel: CancelToken = NEVER) -> list[dict[str, Any]]:
    """Score every (question with evidence, method) not yet in ``retrieval.jsonl``; return all rows."""
    report = progress_or_noop(progress)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / RESULTS_FILE
    asked = [q for q in questions if q.evidence_list]
    with_documents = {q.id for q in asked if evidence(q)[1]}
    # a row written before the document level existed lacks it: that question is scored again
    rows = [r for r in load_rows(path) if "doc_hits1" in r or r["id"] not in with_documents]
    done = {(r["id"], r["method"]) for r in rows}
    todo = [(q, m) for q in asked for m in retrievers if (q.id, m) not in done]
    with open(path, "a", encoding="utf-8") as fh:
        for i, (q, method) in enumerate(todo):
            cancel.check()
            report("retrieve", i, len(todo))
            facts, urls = evidence(q)
            passages = retrievers[method](q.query)
            row = {"id": q.id, "method": method, "type": q.question_type,
                   **{k: round(v, 6) for k, v in score_question(passages, facts, urls).items()}}
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            rows.append(row)
        report("retrieve", len(todo), len(todo))
    wanted = {q.id for q in asked}
    return [r for r in rows if r["id"] in wanted and r["method"] in retrievers]


def means(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """"n" (the rows) and each metric's mean over the rows that have it."""
    out = {"n": float(len(rows))}
    for k in METRICS:
        values = [r[k] for r in rows if k in r]
        if values:
            out[k] = sum(values) / len(values)
    return out


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """method -> group ("all" and each question type) -> ``means``."""
    groups: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for r in rows:
        for g in ("all", r.get("type", "unknown")):
            groups.setdefault(r["method"], {}).setdefault(g, []).append(r)
    return {m: {g: means(rs) for g, rs in by.items()} for m, by in groups.items()}


def table(summary: dict[str, dict[str, dict[str, float]]], methods: Sequence[str]) -> str:
    """A Markdown table of the metrics that apply: one row per method (all questions), then one
    per method and type."""
    shown = [k for k in METRICS if any(k in vals for by in summary.values() for vals in by.values())]
    lines = ["| method | questions | n | " + " | ".join(HEADERS[k] for k in shown) + " |", "|" + "---|" * (len(shown) + 3)]
    for group_filter in (lambda g: g == "all", lambda g: g != "all"):
        for m in methods:
            for g, vals in sorted(summary.get(m, {}).items()):
                if group_filter(g):
                    cells = " | ".join(f"{vals[k]:.3f}" if k in vals else "n/a" for k in shown)
                    lines.append(f"| {m} | {g} | {int(vals['n'])} | {cells} |")
    return "\n".join(lines)


def method_retriever(engine: Any, name: str) -> Retrieve:
    """The passages a method gathers for a question, without its LLM: a method offers them by a
    ``retrieve(question)`` returning Sources."""
    method = engine.method(name)
    retrieve = getattr(method, "retrieve", None)
    if retrieve is None:
        raise UsageError(f"method {name!r} cannot be measured without its LLM (it has no retrieval of its own)")
    return lambda question: [Passage(s.text, s.document) for s in retrieve(question)]


RETRIEVAL_METHODS = ("semantic", "keyword", "hybrid", "evidence", "k2rag")


def retrieval_command(args: Any, settings: Any) -> int:
    """``k2desk eval BENCH --retrieval``: index the corpus (text stores only, unless the
    collection has more), score every method's passages, print the table, keep the rows;
    ``retrieval.md`` holds the table under the code and settings of this invocation."""
    from dataclasses import asdict, replace

    from k2desk.console import err, progress_bars
    from k2desk.engine import Engine
    from k2desk.errors import Cancelled
    from k2desk.eval.datasets import prepare
    from k2desk.eval.report import code_line, settings_line
    from k2desk.eval.runner import default_out_dir, parse_methods, source_state

    methods = parse_methods(args.methods) if getattr(args, "methods", None) else list(RETRIEVAL_METHODS)
    bench, questions = prepare(args.bench_dir, limit=getattr(args, "limit", None), folds=1,
                               seed=getattr(args, "seed", 0) or 0, queries=getattr(args, "queries", None))
    out = Path(args.out).expanduser() if getattr(args, "out", None) else default_out_dir(settings, args.bench_dir)
    # retrieval needs the text stores only: build those, whatever the profile (more can come later)
    settings = replace(settings, build_profile="naive")
    engine = Engine(settings, collection=stored_name(bench.collection, settings.store))
    cancel = CancelToken()
    try:
        with progress_bars(width=24, eta_window=600) as on_progress:
            engine.index([bench.corpus], progress=lambda s, d, t: on_progress(f"index: {s}", d, t), cancel=cancel)
            retrievers = {m: method_retriever(engine, m) for m in methods}
            rows = run_retrieval(questions, retrievers, out, progress=on_progress, cancel=cancel)
    except (KeyboardInterrupt, Cancelled):
        err.print(f"interrupted; results so far are in {out / RESULTS_FILE}: run the same command again to resume")
        return 130
    finally:
        engine.close()
    text = table(summarize(rows), methods)
    run = f"- code: {code_line({'commits': [source_state()]})}\n- settings: {settings_line(asdict(settings))}\n"
    (out / "retrieval.md").write_text(f"# Retrieval on {bench.name} ({bench.queries_file.name})\n\n{run}\n{text}\n",
                                      encoding="utf-8")
    print(text)
    err.print(f"table: {out / 'retrieval.md'}")
    return 0
