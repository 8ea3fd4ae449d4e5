"""Run several methods on the same benchmark questions, one row per answer, resumable.

``run_eval`` indexes the bench corpus once into the collection ``bench-<sha256[:12]>`` (the
engine skips documents whose content hash it already holds, so a second run re-uses the index),
then asks every question with every method, question-major (an interrupted run leaves the
methods compared on the same questions, give or take one). Each answer is appended to
``results.jsonl`` and fsynced; a new run skips the (id, method) pairs already there and drops a
torn last line. ``run.json`` records the run (bench, settings, machine, dates, index counts: ``index`` of the
latest invocation, ``index_build`` of the latest one that added or updated documents; ``commits``: the
k2desk checkout of each invocation that asked questions, ``source_state``). ``rerender`` rewrites the
report of a run from its files alone (``k2desk eval BENCH --report-only --out DIR``).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import threading
import time
from dataclasses import asdict, is_dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

from k2desk.errors import Cancelled, K2Error, UsageError
from k2desk.eval import metrics
from k2desk.eval.datasets import Bench, Question, prepare, stored_name
from k2desk.eval.oracle import ORACLE, oracle_answer
from k2desk.eval.report import RESULTS_FILE, RUN_FILE, read_meta, write_report
from k2desk.methods.registry import METHOD_NAMES
from k2desk.progress import NEVER, CancelToken, Progress, progress_or_noop

# settings that change answers: a results folder holds answers of one configuration only
ANSWER_SETTINGS = ("llm", "llm_url", "embedder", "summarizer", "graph_extractor", "build_profile", "lam", "top_k",
                   "max_answer_tokens", "n_ctx")
DEFAULT_METHODS = ("k2rag", "semantic", "keyword", "hybrid", "kg")

EngineFactory = Callable[[str], Any]  # collection name -> Engine


def parse_methods(methods: Union[str, Sequence[str], None]) -> list[str]:
    if methods is None or methods == "":
        return list(DEFAULT_METHODS)
    names = [m.strip() for m in (methods.split(",") if isinstance(methods, str) else methods) if m.strip()]
    unknown = [m for m in names if m not in (*METHOD_NAMES, ORACLE)]
    if unknown or not names:
        raise UsageError(f"unknown method(s) {', '.join(unknown) or '(none)'}; choose from {', '.join(METHOD_NAMES)}")
    return list(dict.fromkeys(names))


# -- memory -----------------------------------------------------------------------------
def current_rss_mb() -> float:
    try:
        import psutil

        return psutil.Process().memory_info().rss / 2**20
    except Exception:  # noqa: BLE001 - psutil missing or denied: fall back to the peak so far
        return process_peak_rss_mb() or 0.0


def process_peak_rss_mb() -> Optional[float]:
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if platform.system() == "Darwin" else peak / 1024  # bytes on macOS, KiB on Linux


class PeakRss:
    """Highest RSS (MiB) of this process while the block runs, sampled every ``interval`` s."""

    def __init__(self, interval: float = 0.05) -> None:
        self.interval = interval
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def _sample(self) -> None:
        while not self._stop.wait(self.interval):
            self.peak = max(self.peak, current_rss_mb())

    def __enter__(self) -> "PeakRss":
        self.peak = current_rss_mb()
        self._thread = threading.Thread(target=self._sample, name="k2desk-rss", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.peak = max(self.peak, current_rss_mb())


def _git(folder: Path, *args: str) -> Optional[str]:
    """``git -C folder ARGS``'s output, or None when git is missing or fails."""
    exe = shutil.which("git")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, "-C", str(folder), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def source_state() -> Optional[dict[str, Any]]:
    """The k2desk source this process runs: {"commit": HEAD, "dirty": whether the package folder
    has changed or untracked files}; None when the package is not tracked in a git checkout (an
    installed copy, no git). Never raises."""
    package = Path(__file__).resolve().parents[1]
    if _git(package, "ls-files", "--error-unmatch", "--", "__init__.py") is None:
        return None
    head, status = _git(package, "rev-parse", "HEAD"), _git(package, "status", "--porcelain", "--", ".")
    if head is None or status is None:
        return None
    return {"commit": head.strip(), "dirty": bool(status.strip())}


def _nvidia_smi(*query: str) -> Optional[list[str]]:
    exe = shutil.which("nvidia-smi")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, *query, "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return [line.strip() for line in out.stdout.splitlines() if line.strip()] if out.returncode == 0 else None


def gpu_memory_mb(pid: Optional[int] = None) -> Optional[float]:
    """GPU memory this process holds (MiB, nvidia-smi), or None without an NVIDIA GPU/process."""
    lines = _nvidia_smi("--query-compute-apps=pid,used_memory")
    if not lines:
        return None
    pid = pid or os.getpid()
    used = 0.0
    for line in lines:
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 2 and parts[0] == str(pid):
            try:
                used += float(parts[1])
            except ValueError:
                continue
    return used or None


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "system": platform.system(), "release": platform.release(), "machine": platform.machine(),
        "processor": platform.processor(), "cpus": os.cpu_count(), "python": platform.python_version(),
    }
    try:
        import psutil

        info["ram_gib"] = round(psutil.virtual_memory().total / 2**30, 1)
    except Exception:  # noqa: BLE001
        info["ram_gib"] = None
    gpus = _nvidia_smi("--query-gpu=name,memory.total")
    info["gpus"] = gpus or []
    info["summary"] = f"{info['system']} {info['machine']}, {info['cpus']} CPUs, {info['ram_gib']} GiB RAM" + (
        f", GPU {'; '.join(gpus)} MiB" if gpus else "")
    return info


# -- results file -----------------------------------------------------------------------
def load_done(path: Path) -> set[tuple[str, str]]:
    """(id, method) pairs already answered; cuts a torn last line off the file first."""
    if not path.is_file():
        return set()
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with open(path, "r+b") as fh:
            fh.truncate(data.rfind(b"\n") + 1)
            fh.flush()
            os.fsync(fh.fileno())
    done: set[tuple[str, str]] = set()
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            row = json.loads(line)
            done.add((str(row["id"]), str(row["method"])))
        except (ValueError, KeyError, TypeError):
            continue
    return done


def append_row(fh: Any, row: dict[str, Any]) -> None:
    fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    fh.flush()
    os.fsync(fh.fileno())


def _jsonable(obj: Any) -> Any:
    if is_dataclass(obj) and not isinstance(obj, type):
        obj = asdict(obj)
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    return obj if isinstance(obj, (str, int, float, bool)) or obj is None else str(obj)


def _index_counts(report: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("added", "updated", "skipped", "removed", "failed"):
        val = getattr(report, name, None)
        out[name] = len(val) if isinstance(val, (list, tuple, set)) else val
    stages = getattr(report, "stage_seconds", None)
    if stages:
        out["stage_seconds"] = {k: round(v, 2) for k, v in stages.items()}
    failed = getattr(report, "failed", None)
    if isinstance(failed, (list, tuple)) and failed:
        out["failures"] = [list(map(str, f)) if isinstance(f, (list, tuple)) else str(f) for f in failed[:20]]
    return out


def _now() -> str:
    return datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")


def similarity(engine: Any, prediction: str, gold: str) -> float:
    if not prediction.strip():
        return 0.0
    vecs = engine.embedder.embed([prediction, gold])
    return round(metrics.answer_similarity(vecs[0], vecs[1]), 6)


def scope_keys(engine: Any, q: Question) -> list[str]:
    """The keys of the documents a question's evidence names (``--scope evidence``: the question
    asked about its own documents, as a person asks "What baselines do they compare to?" with the
    paper selected)."""
    urls = [e.get("url") for e in q.evidence_list if isinstance(e, dict) and e.get("url")]
    by_url = {d.key.split("#", 1)[-1]: d.key for d in engine.documents()}
    return list(dict.fromkeys(by_url[u] for u in urls if u in by_url))


def ask_row(engine: Any, q: Question, method: str, cancel: CancelToken, measure_gpu: bool,
            scope: str = "") -> dict[str, Any]:
    """Ask one question with one method (``scope`` "evidence": within its evidence documents)
    and build its results row (errors become rows)."""
    row: dict[str, Any] = {  # no benchmark text: the report joins question and gold by id
        "id": q.id, "method": method, "fold": q.fold, "question_type": q.question_type,
        "prediction": "", "sources": [], "seconds": 0.0, "llm_calls": 0,
        "prompt_tokens": 0, "completion_tokens": 0, "error": None,
    }
    with PeakRss() as mem:
        t0 = time.perf_counter()
        try:
            scoped = {"documents": scope_keys(engine, q)} if scope == "evidence" else {}
            answer = (oracle_answer(engine, q, cancel) if method == ORACLE
                      else engine.ask(q.prompt, method=method, cancel=cancel, **scoped))
        except Cancelled:
            raise
        except K2Error as exc:
            answer, row["error"] = None, str(exc) or type(exc).__name__
        row["seconds"] = round(time.perf_counter() - t0, 4)
    row["rss_peak_mb"] = round(mem.peak, 1)
    row["gpu_mem_mb"] = gpu_memory_mb() if measure_gpu else None
    if answer is not None:
        row["prediction"] = answer.answer or ""
        row["sources"] = list(dict.fromkeys(s.document.split("#", 1)[-1] for s in answer.sources))  # a record's url
        row["llm_calls"] = answer.llm.calls
        row["prompt_tokens"] = answer.llm.prompt_tokens
        row["completion_tokens"] = answer.llm.completion_tokens
        row["reused_tokens"] = answer.llm.reused_tokens  # of prompt_tokens, not read again (the KV cache)
        row["timings"] = {k: round(float(v), 4) for k, v in (answer.timings or {}).items()}
        reader = (answer.trace or {}).get("reader") or {}
        if reader.get("form"):
            row["reader_form"] = reader["form"]
        if reader.get("support") is not None:  # the yes/no decision's score: the report's AUC
            row["support"] = reader["support"]
        if reader.get("kind"):  # the form an open question was read in (forms.py)
            row["reader_kind"] = reader["kind"]
        if reader.get("candidate"):  # the model's answer before "not in your documents" declined it
            row["candidate"] = reader["candidate"]
        for check in ("coverage", "answer_support"):  # the word checks' scores: a threshold re-decided offline
            if isinstance(reader.get(check), dict):
                row[check] = reader[check].get("score")
        if (reader.get("answer_support") or {}).get("restates"):  # nothing of its own to find (verdict.keeps)
            row["restates"] = True
        if reader.get("verify") is not None:  # the model's check of its short answer (the calibration's check_min)
            row["verify"] = reader["verify"]
        if reader.get("meaning") is not None:  # the embedder's support of it (support.meaning_support)
            row["meaning"] = reader["meaning"]
        if reader.get("together") is not None:  # the best window's share of the question's terms (support.asked_together)
            row["together"] = reader["together"]
        row["outcome"] = answer.outcome  # answered, cautioned or declined (k2desk.verdict)
        if answer.verdict.calibration:
            row["calibration"] = answer.verdict.calibration
        if isinstance(reader.get("again"), dict):  # the answer asked for again after one that restated the question
            again = reader["again"]
            row["again"] = {"candidate": again.get("candidate"), "verify": again.get("verify"),
                            "meaning": again.get("meaning"),
                            "answer_support": (again.get("answer_support") or {}).get("score"),
                            "used": reader.get("read") == "again"}
    row["similarity"] = similarity(engine, row["prediction"], q.answer)
    return row


def _check_same_run(meta: dict[str, Any], bench: Bench, settings: dict[str, Any], out_dir: Path) -> None:
    if meta.get("collection") and meta["collection"] != bench.collection:
        raise UsageError(f"{out_dir} holds results for another corpus ({meta['collection']}); choose another --out")
    old = meta.get("settings") or {}
    changed = [k for k in ANSWER_SETTINGS if k in old and k in settings and old[k] != settings[k]]
    if changed:
        diff = ", ".join(f"{k}: {old[k]} → {settings[k]}" for k in changed)
        raise UsageError(f"{out_dir} holds results made with other settings ({diff}); choose another --out")


def run_eval(
    bench_dir: Union[str, Path],
    methods: Union[str, Sequence[str]],
    out_dir: Union[str, Path],
    engine_factory: EngineFactory,
    folds: int = 10,
    limit: Optional[int] = None,
    seed: int = 0,
    progress: Optional[Progress] = None,
    cancel: Optional[CancelToken] = None,
    queries: Optional[str] = None,
    settings: Any = None,
    scope: str = "",
) -> Path:
    """Evaluate ``methods`` on a bench folder; returns the path of ``report.md`` in ``out_dir``.

    ``engine_factory(collection_name)`` opens the engine (``Engine(settings, collection=name)``);
    ``scope`` "evidence" asks each question about its own evidence documents only.
    """
    report = progress_or_noop(progress)
    cancel = cancel or NEVER
    methods = parse_methods(methods)
    bench, questions = prepare(bench_dir, limit=limit, folds=folds, seed=seed, queries=queries)
    out_dir = Path(out_dir).expanduser()
    out_dir.mkdir(parents=True, exist_ok=True)
    results, run_file = out_dir / RESULTS_FILE, out_dir / RUN_FILE
    meta = read_meta(run_file)
    settings_json = _jsonable(settings) if settings is not None else {}
    _check_same_run(meta, bench, settings_json, out_dir)
    if meta.get("scope", "") != scope and load_done(results):
        raise UsageError(f"{out_dir} holds a run with scope {meta.get('scope') or 'none'!r}, not {scope or 'none'!r}: "
                         "choose another --out")
    done = load_done(results)
    pending = [(q, m) for q in questions for m in methods if (q.id, m) not in done]
    total = len(questions) * len(methods)

    def save_meta(**extra: Any) -> None:
        meta.update(extra)
        tmp = run_file.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")
        tmp.replace(run_file)

    save_meta(
        bench=bench.name, bench_dir=str(bench.dir.resolve()), queries_file=bench.queries_file.name,
        corpus=str(bench.corpus.resolve()), collection=bench.collection, methods=methods, folds=folds, seed=seed,
        limit=limit, questions=len(questions), started=meta.get("started") or _now(), finished=None,
        runs=(meta.get("runs") or []) + [_now()], machine=machine_info(),
        settings=settings_json or meta.get("settings") or {}, scope=scope,
    )
    if pending:
        commits, state = meta.get("commits") or [], source_state()
        if not commits or commits[-1] != state:
            save_meta(commits=commits + [state])
        engine = engine_factory(bench.collection)
        try:
            if not settings_json and getattr(engine, "settings", None) is not None:
                settings_json = _jsonable(engine.settings)
                _check_same_run(meta, bench, settings_json, out_dir)
                save_meta(settings=settings_json)
            report("index", 0, 1)
            t0 = time.perf_counter()
            corpus = [bench.corpus] if any(m != ORACLE for m in methods) else []  # the oracle reads no index
            idx = engine.index(corpus, progress=lambda s, d, t: report(f"index: {s}", d, t), cancel=cancel)
            counts = _index_counts(idx)
            this_index = dict(counts, seconds=round(time.perf_counter() - t0, 2))
            built = counts.get("added") or counts.get("updated")  # a resumed run usually re-uses the index
            save_meta(index=this_index, **({"index_build": this_index} if built else {}))
            report("index", 1, 1)
            if counts.get("failed") and not any(counts.get(k) for k in ("added", "updated", "skipped")):
                raise K2Error(f"the corpus {bench.corpus} could not be indexed: {counts.get('failures')}")
            measure_gpu = shutil.which("nvidia-smi") is not None and int(settings_json.get("gpu_layers", 0) or 0) != 0
            n_done = total - len(pending)
            report("ask", n_done, total)
            with open(results, "a", encoding="utf-8") as fh:
                for q, method in pending:
                    cancel.check()
                    append_row(fh, ask_row(engine, q, method, cancel, measure_gpu, scope))
                    n_done += 1
                    report("ask", n_done, total)
        finally:
            engine.close()
    else:
        report("ask", total, total)
    save_meta(finished=_now(), process_peak_rss_mb=process_peak_rss_mb())
    return write_report(out_dir, questions=questions, methods=methods, folds=folds)


def rerender(bench_dir: Union[str, Path], out_dir: Union[str, Path], queries: Optional[str] = None) -> Path:
    """Rewrite ``report.md`` and the plots of a run from its ``results.jsonl`` and ``run.json``:
    the run's own queries file (unless ``queries`` names one), limit, seed, folds and methods;
    the gold answers joined by id from the bench. Nothing is asked and ``run.json`` is left as it is."""
    out_dir = Path(out_dir).expanduser()
    meta = read_meta(out_dir / RUN_FILE)
    if not meta:
        raise UsageError(f"{out_dir} holds no readable {RUN_FILE}: no run to report on")
    folds, seed = int(meta.get("folds") or 10), int(meta.get("seed") or 0)
    bench, questions = prepare(bench_dir, limit=meta.get("limit"), folds=folds, seed=seed,
                               queries=queries or meta.get("queries_file"))
    _check_same_run(meta, bench, {}, out_dir)
    return write_report(out_dir, questions=questions, methods=meta.get("methods"), folds=folds)


# -- command line -----------------------------------------------------------------------
def add_eval_arguments(parser: Any) -> None:
    """The ``k2desk eval`` arguments, for an argparse (sub)parser."""
    parser.add_argument("bench_dir", help="folder with corpus.jsonl and queries.jsonl (or queries_sample.jsonl)")
    parser.add_argument("--methods", default=",".join(DEFAULT_METHODS), help="comma-separated methods (default: %(default)s)")
    parser.add_argument("--folds", type=int, default=10, help="K for the K-fold spread (default: 10)")
    parser.add_argument("--limit", type=int, default=None, help="first N questions of a seeded, type-stratified order")
    parser.add_argument("--seed", type=int, default=0, help="seed of the question order and folds (default: 0)")
    parser.add_argument("--out", default=None, help="output folder (default: <home>/eval/<bench name>; re-running resumes)")
    parser.add_argument("--queries", default=None,
                        help="questions file name in BENCH_DIR (default: queries.jsonl, else queries_sample.jsonl)")
    parser.add_argument("--report-only", action="store_true",
                        help="only rewrite the report of the run in --out from its files (no model, no question asked)")


def default_out_dir(settings: Any, bench_dir: Union[str, Path]) -> Path:
    return Path(settings.home) / "eval" / (Path(bench_dir).expanduser().resolve().name or "bench")


def eval_command(args: Any, settings: Any) -> int:
    """``k2desk eval``: run with a progress bar (ETA over the whole run; plain lines in a log);
    Ctrl-C stops, re-running resumes."""
    from k2desk.console import err, progress_bars
    from k2desk.engine import Engine

    methods = parse_methods(getattr(args, "methods", None))
    if getattr(args, "oracle", False):  # the reader on the gold evidence, beside the methods asked for
        methods = list(dict.fromkeys([*(methods if getattr(args, "methods", None) else []), ORACLE]))
    out = Path(args.out).expanduser() if getattr(args, "out", None) else default_out_dir(settings, args.bench_dir)
    if getattr(args, "report_only", False):
        path = rerender(args.bench_dir, out, queries=getattr(args, "queries", None))
        err.print(f"report: {path}")
        print(path)
        return 0
    cancel = CancelToken()

    def factory(name: str) -> Engine:
        return Engine(settings, collection=stored_name(name, settings.store))

    try:
        with progress_bars(width=24, eta_window=3600) as on_progress:
            path = run_eval(args.bench_dir, methods, out, factory,
                            folds=getattr(args, "folds", 10) or 10, limit=getattr(args, "limit", None),
                            seed=getattr(args, "seed", 0) or 0, progress=on_progress, cancel=cancel,
                            queries=getattr(args, "queries", None), settings=settings,
                            scope=getattr(args, "scope", None) or "")
    except (KeyboardInterrupt, Cancelled):
        err.print(f"interrupted; answers so far are in {out / RESULTS_FILE}: run the same command again to resume")
        return 130
    err.print(f"report: {path}")
    print(path)
    return 0
