"""The GPU benchmark (issue 34, item 4): k2desk's own eval with every layer of the LLM on an NVIDIA
GPU, in the paper's deep mode (LLM summaries and LLM graph), one table per run.

    python3 benchmarks/bench_gpu.py [--base-model NAME] [--model PATH ...] [--cpu-results DIR ...] [--skip-setup]
        [--bench ../shared/bench/multihop-rag-dev] [--queries queries_sample.jsonl] [--limit 60]
        [--methods k2rag] [--work DIR] [--threads N] [--check-llm MODEL]
    .venv/bin/python benchmarks/bench_gpu.py --cpu-dry-run     # the same pipeline, small, on the CPU

On a GPU machine: builds llama-cpp-python for CUDA with ``K2DESK_CUDA=1 scripts/setup.sh``
(``--skip-setup``: the CUDA build is installed already; run the script with ``.venv/bin/python``)
and carries on in the virtualenv. Then, for ``--base-model`` (default qwen2.5-coder-1.5b) and each ``--model`` (a GGUF file
or a manifest name, e.g. Mistral-7B-Instruct Q4_K_M), in a fresh home of its own: ``k2desk
doctor --json`` (build, GPU, layers offloaded) and ``k2desk eval`` in a subprocess with
``--gpu-layers -1 --summarizer llm --graph-extractor llm`` (build profile "default": the raw-text
stores plus the K²RAG stores from the LLM's summaries, the summary graph by the LLM), indexing the
bench corpus (the 40 MultiHop-RAG dev articles) and answering the first ``--limit`` questions of
``--queries`` while a thread polls the GPU's memory (pynvml when installed, else nvidia-smi).

Per model and method: index seconds (run.json's ``index_build``), answer latency median / p95
(the rows' ``seconds``), tokens/s, VRAM peak above the memory in use before the run, strict
accuracy (k2desk.eval.report's definition, recomputed from the rows). k2desk's eval rows keep
each answer's prompt and completion tokens but not llama.cpp's own timings, so the two tokens/s
columns are lower bounds: "LLM tok/s" is (prompt + completion tokens) / answer seconds, "gen
tok/s" completion tokens / answer seconds (retrieval and embedding time included in both).
``--cpu-results DIR`` (a ``k2desk eval --out`` folder, or an earlier bench_gpu output folder)
adds the CPU run's figures as rows of the same table, and a line per model and method that both
runs have: how many times faster the GPU run was. The table is printed and written to
``WORK/bench_gpu.md`` and ``WORK/bench_gpu.json``; each run's eval folder (results.jsonl,
run.json, report.md), doctor JSON and log stay in WORK.

``--cpu-dry-run`` proves the script where there is no GPU: no setup, the tiny test model
(smollm2-135m) with no layer offloaded, 3 articles and 3 questions of the bench (chosen so that
each question's evidence is among the 3 articles), the extractive summarizer and the fast graph
(``--summarizer`` / ``--graph-extractor`` choose others), VRAM "n/a (no GPU)".

Nothing here touches the network: the children run with k2desk's privacy switches and only
local files (the setup step, when it runs, is scripts/setup.sh and fetches what it fetches).
Asked for a GPU run where there is no NVIDIA GPU, or with a llama-cpp-python that cannot
offload, the script stops with one line on stderr (exit 1) before anything is indexed. A model
whose run fails (a GGUF too large for the GPU, say) is named in one line and in the table's
notes; the other models still run, and the exit status is 1.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # k2desk from this checkout (the figures read its eval module)
    sys.path.insert(0, str(ROOT))
BENCH = ROOT.parent / "shared" / "bench" / "multihop-rag-dev"
GPU_MODEL = "qwen2.5-coder-1.5b"
DRY_MODEL = "smollm2-135m"
NO_GPU = "n/a (no GPU)"
CPU_RUN = "n/a (CPU run)"
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1",
               "ORT_DISABLE_TELEMETRY": "1", "DO_NOT_TRACK": "1"}


class BenchError(Exception):
    """A failure the script reports in one line."""


class NoGpuBackend(BenchError):
    """The installed llama-cpp-python cannot offload: no model can run as asked."""


# -- the GPU ----------------------------------------------------------------------------
def nvidia_gpus() -> list[str]:
    """Names of the NVIDIA GPUs here (``nvidia-smi -L``, else the kernel driver's list); [] without."""
    exe = shutil.which("nvidia-smi")
    if exe:
        try:
            out = subprocess.run([exe, "-L"], capture_output=True, text=True, timeout=30)
            names = [m.group(1).strip() for m in re.finditer(r"^GPU \d+: (.+?)(?: \(UUID.*)?$", out.stdout, re.M)]
            if out.returncode == 0 and names:
                return names
        except (OSError, subprocess.SubprocessError):
            pass
    names = []
    for info in sorted(Path("/proc/driver/nvidia/gpus").glob("*/information")):
        try:
            model = re.search(r"^Model:\s*(.+)$", info.read_text(errors="replace"), re.M)
        except OSError:
            continue
        names.append(model.group(1).strip() if model else info.parent.name)
    return names


def _pynvml():
    try:
        import pynvml

        pynvml.nvmlInit()
        return pynvml
    except Exception:  # noqa: BLE001 - not installed, or no driver: nvidia-smi instead
        return None


def gpu_memory_used_mib(nvml: Any = None) -> Optional[float]:
    """Memory in use on every NVIDIA GPU together (MiB), or None when it cannot be read."""
    if nvml is not None:
        try:
            return sum(nvml.nvmlDeviceGetMemoryInfo(nvml.nvmlDeviceGetHandleByIndex(i)).used
                       for i in range(nvml.nvmlDeviceGetCount())) / 2**20
        except Exception:  # noqa: BLE001
            return None
    exe = shutil.which("nvidia-smi")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=10)
        return sum(float(x) for x in out.stdout.split()) if out.returncode == 0 and out.stdout.strip() else None
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


class VramPeak:
    """The highest GPU memory in use while the block runs, sampled every ``interval`` s in a thread;
    ``peak_above_idle`` subtracts what was in use when it started. Without a GPU every figure is None."""

    def __init__(self, interval: float = 0.25) -> None:
        self.interval = interval
        self.nvml = _pynvml()
        self.source = "pynvml" if self.nvml else ("nvidia-smi" if shutil.which("nvidia-smi") else None)
        self.idle: Optional[float] = None
        self.peak: Optional[float] = None
        self.samples = 0
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def _take(self) -> None:
        used = gpu_memory_used_mib(self.nvml)
        if used is not None:
            self.samples += 1
            self.peak = used if self.peak is None else max(self.peak, used)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._take()

    def __enter__(self) -> "VramPeak":
        if self.source:
            self.idle = gpu_memory_used_mib(self.nvml)
            self._thread = threading.Thread(target=self._run, name="bench-gpu-vram", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._take()

    @property
    def peak_above_idle(self) -> Optional[float]:
        return None if self.peak is None else max(0.0, self.peak - (self.idle or 0.0))


# -- setup ------------------------------------------------------------------------------
def run_setup() -> None:
    """``K2DESK_CUDA=1 scripts/setup.sh``, its output shown as it goes."""
    print("setup: K2DESK_CUDA=1 scripts/setup.sh (the CUDA build of llama-cpp-python, once; cached)", flush=True)
    t0 = time.perf_counter()
    rc = subprocess.call(["bash", str(ROOT / "scripts" / "setup.sh")], cwd=ROOT, env={**os.environ, "K2DESK_CUDA": "1"})
    if rc:
        raise BenchError(f"K2DESK_CUDA=1 scripts/setup.sh failed (exit {rc}); its output is above")
    print(f"setup: done in {time.perf_counter() - t0:.0f} s", flush=True)


def check_python(python: str) -> None:
    proc = subprocess.run([python, "-c", "import k2desk, llama_cpp"], capture_output=True, text=True, cwd=ROOT)
    if proc.returncode:
        raise BenchError(f"{python} cannot import k2desk and llama_cpp: run this script with .venv/bin/python "
                         "(after scripts/setup.sh), or without --skip-setup")


# -- the dry run's small bench ------------------------------------------------------------
def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def small_bench(bench: Path, queries: str, out: Path, n_articles: int = 3, n_questions: int = 3) -> Path:
    """A bench folder with ``n_articles`` of ``bench``'s articles and ``n_questions`` of its questions
    whose evidence articles are all among them (of distinct question types where the articles allow;
    null questions fill up), written to ``out``."""
    articles = _lines(bench / "corpus.jsonl")
    urls = [json.loads(a).get("url") for a in articles]
    pool = [(line, json.loads(line)) for line in _lines(bench / queries)]
    pool.sort(key=lambda lq: len({e.get("url") for e in lq[1].get("evidence_list") or []}))  # stable: file order kept
    answerable = [(line, q, {urls.index(e.get("url")) for e in q.get("evidence_list") or []}) for line, q in pool
                  if q.get("evidence_list") and all(e.get("url") in urls for e in q["evidence_list"])]
    chosen: list[str] = []
    keep: set[int] = set()
    for combo in itertools.combinations(answerable[:40], n_questions):  # questions of distinct types, few articles
        need = set().union(*(ev for _, _, ev in combo))
        if len(need) <= n_articles and len({q.get("question_type") for _, q, _ in combo}) == n_questions:
            chosen, keep = [line for line, _, _ in combo], need
            break
    for line, _q, ev in answerable if not chosen else []:  # else as many as fit, one after another
        if len(chosen) < n_questions and len(keep | ev) <= n_articles:
            chosen.append(line)
            keep |= ev
    chosen += [line for line, q in pool if not q.get("evidence_list") and line not in chosen][: n_questions - len(chosen)]
    for i in range(len(articles)):  # fill up with the first articles not chosen
        if len(keep) >= n_articles:
            break
        keep.add(i)
    if not chosen:
        raise BenchError(f"no question of {bench / queries} has its evidence within {n_articles} articles")
    out.mkdir(parents=True, exist_ok=True)
    (out / "corpus.jsonl").write_text("".join(articles[i] + "\n" for i in sorted(keep)), encoding="utf-8")
    (out / queries).write_text("".join(line + "\n" for line in chosen), encoding="utf-8")
    return out


# -- one model ----------------------------------------------------------------------------
def slug(model: str) -> str:
    name = Path(model).name if ("/" in model or model.endswith(".gguf")) else model
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name.removesuffix(".gguf"))[:60] or "model"


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "K2DESK_HOME"}
    env.update(OFFLINE_ENV)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def global_flags(cfg: argparse.Namespace, home: Path, model: str) -> list[str]:
    flags = ["--home", str(home), "--llm", model, "--gpu-layers", str(cfg.gpu_layers),
             "--summarizer", cfg.summarizer, "--graph-extractor", cfg.graph_extractor]
    return flags + (["--threads", str(cfg.threads)] if cfg.threads else [])


def doctor(python: str, cfg: argparse.Namespace, home: Path, model: str, work: Path) -> dict[str, Any]:
    """``k2desk doctor --json`` for this model's settings (no weights loaded); {} when unreadable."""
    proc = subprocess.run([python, "-m", "k2desk", "doctor", "--json", *global_flags(cfg, home, model)],
                          capture_output=True, text=True, cwd=ROOT, env=child_env(), timeout=600)
    (work / f"doctor-{slug(model)}.json").write_text(proc.stdout, encoding="utf-8")
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        return {}
    return {c["key"]: c for c in report.get("checks", []) if isinstance(c, dict) and "key" in c}


def _tee(stream: Any, log: Any, echo: bool) -> None:
    for line in iter(stream.readline, ""):
        log.write(line)
        log.flush()
        if echo:
            sys.stderr.write(line)
            sys.stderr.flush()


def run_eval(python: str, cfg: argparse.Namespace, bench: Path, model: str, work: Path) -> dict[str, Any]:
    """Index and answer with one model in a fresh home (``k2desk eval`` in a subprocess) while the
    GPU's memory is polled; returns the eval folder, wall seconds, VRAM and the doctor's view."""
    home, out = work / f"home-{slug(model)}", work / f"eval-{slug(model)}"
    if home.exists() or out.exists():
        raise BenchError(f"{home} or {out} exists already: choose an empty --work folder (each run starts from a fresh home)")
    home.mkdir(parents=True)
    # build profile "default" (the raw-text stores, the K²RAG stores from summaries and their graph);
    # check_llm "" unless asked: each model answers alone (no second model in memory)
    (home / "settings.json").write_text(json.dumps({"build_profile": "default", "check_llm": cfg.check_llm}), encoding="utf-8")
    checks = doctor(python, cfg, home, model, work)
    offload = ((checks.get("llm.gpu") or {}).get("data") or {}).get("supports_gpu_offload")
    if not cfg.cpu_dry_run and offload is False:
        raise NoGpuBackend("this llama-cpp-python has no GPU backend (llama_supports_gpu_offload is false): "
                         "run K2DESK_CUDA=1 scripts/setup.sh, or this script without --skip-setup")
    cmd = [python, "-m", "k2desk", *global_flags(cfg, home, model), "eval", str(bench), "--methods", cfg.methods,
           "--queries", cfg.queries, "--limit", str(cfg.limit), "--out", str(out)]
    log_path = work / f"eval-{slug(model)}.log"
    print(f"{slug(model)}: indexing {bench / 'corpus.jsonl'} and answering {cfg.limit} questions "
          f"(log: {log_path})", flush=True)
    t0 = time.perf_counter()
    with VramPeak() as vram, open(log_path, "w", encoding="utf-8") as log:
        log.write(" ".join(cmd) + "\n")
        proc = subprocess.Popen(cmd, cwd=ROOT, env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        reader = threading.Thread(target=_tee, args=(proc.stdout, log, not cfg.quiet), daemon=True)
        reader.start()
        rc = proc.wait()
        reader.join()
    seconds = time.perf_counter() - t0
    if rc:
        tail = [ln for ln in log_path.read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()]
        raise BenchError(f"k2desk eval with {model} failed (exit {rc}): {tail[-1] if tail else 'no output'} (log: {log_path})")
    model_data = (checks.get("llm.model") or {}).get("data") or {}
    return {"eval_dir": out, "wall_seconds": seconds, "vram": vram, "checks": checks,
            "layers": (f"{model_data['layers_on_gpu']}/{model_data['layers']}" if model_data.get("layers") else "n/a")}


# -- figures ------------------------------------------------------------------------------
def _percentile(values: list[float], q: float) -> Optional[float]:
    if not values:
        return None
    import numpy as np

    return float(np.percentile(np.asarray(values, dtype=float), q))


def _model_name(llm: str) -> str:
    return slug(str(llm or "?"))


def eval_figures(eval_dir: Path, bench_fallback: Optional[Path] = None) -> list[dict[str, Any]]:
    """One row of figures per method of a ``k2desk eval`` folder (results.jsonl + run.json)."""
    from k2desk.eval.datasets import prepare
    from k2desk.eval.report import RESULTS_FILE, RUN_FILE, read_meta, read_results, summarize

    meta, rows = read_meta(eval_dir / RUN_FILE), read_results(eval_dir / RESULTS_FILE)
    if not meta or not rows:
        raise BenchError(f"{eval_dir} holds no k2desk eval run (run.json and results.jsonl)")
    bench_dir = Path(meta.get("bench_dir") or "")
    if not (bench_dir / "corpus.jsonl").is_file() and bench_fallback and bench_fallback.name == meta.get("bench"):
        bench_dir = bench_fallback
    questions = None
    if (bench_dir / "corpus.jsonl").is_file():
        _, questions = prepare(bench_dir, limit=meta.get("limit"), folds=int(meta.get("folds") or 10),
                               seed=int(meta.get("seed") or 0), queries=meta.get("queries_file"))
    if questions is not None:  # the gold answers joined by id (rows keep no benchmark text)
        by_id = {str(q.id): q for q in questions}
        rows = [dict(r, gold=by_id[str(r["id"])].answer, options=by_id[str(r["id"])].options,
                     gold_index=by_id[str(r["id"])].gold_index) for r in rows if str(r["id"]) in by_id]
    settings = meta.get("settings") or {}
    index = meta.get("index_build") or meta.get("index") or {}
    machine = meta.get("machine") or {}
    figures = []
    for method, s in summarize(rows, meta.get("methods")).items():
        mrows = s["rows"]
        answered = [r for r in mrows if not r.get("error")]
        secs = [float(r.get("seconds") or 0.0) for r in answered]
        total = sum(secs)
        prompt = sum(int(r.get("prompt_tokens") or 0) for r in answered)
        completion = sum(int(r.get("completion_tokens") or 0) for r in answered)
        gpu_rows = [float(r["gpu_mem_mb"]) for r in mrows if r.get("gpu_mem_mb") is not None]
        strict = s["overall"]["strict"] if questions is not None else None
        figures.append({
            "model": _model_name(settings.get("llm")), "method": method, "questions": len(mrows), "errors": len(mrows) - len(answered),
            "summarizer": settings.get("summarizer"), "graph_extractor": settings.get("graph_extractor"),
            "build_profile": settings.get("build_profile"), "gpu_layers": settings.get("gpu_layers"),
            "index_seconds": index.get("seconds"), "index_documents": index.get("added"), "index_stage_seconds": index.get("stage_seconds"),
            "latency_median_s": _percentile(secs, 50), "latency_p95_s": _percentile(secs, 95),
            "llm_tok_s": (prompt + completion) / total if total else None, "gen_tok_s": completion / total if total else None,
            "prompt_tokens": prompt, "completion_tokens": completion, "answer_seconds": total,
            "strict": None if strict is None or strict != strict else strict,  # NaN: nothing to judge
            "strict_right": None if strict is None or strict != strict else round(strict * len(mrows)),
            "eval_gpu_mem_mib_max": max(gpu_rows) if gpu_rows else None,
            "cpus": machine.get("cpus"), "machine": machine.get("summary"), "eval_dir": str(eval_dir),
        })
    return figures


def cpu_rows(folder: Path, bench: Path) -> list[dict[str, Any]]:
    """The rows of a CPU run: an earlier bench_gpu.json, or figures of a k2desk eval folder."""
    saved = folder / "bench_gpu.json"
    if saved.is_file():
        rows = json.loads(saved.read_text(encoding="utf-8")).get("rows", [])
        return [dict(r, cpu_results=str(folder)) for r in rows if r.get("kind") == "cpu"] or rows
    rows = eval_figures(folder, bench)
    for r in rows:
        r.update(kind="cpu", where=f"CPU ({r['cpus']} cores)" if r.get("cpus") else "CPU", vram=CPU_RUN,
                 vram_peak_mib=None, layers="0", cpu_results=str(folder))
    return rows


def _f(x: Any, digits: int = 1) -> str:
    return "n/a" if x is None else f"{x:,.{digits}f}"


COLUMNS = ("run", "model", "method", "layers on GPU", "summaries / graph", "index (s)", "answer median (s)",
           "answer p95 (s)", "LLM tok/s", "gen tok/s", "VRAM peak (MiB)", "strict accuracy")


def cells(r: dict[str, Any]) -> list[str]:
    strict = "n/a" if r.get("strict") is None else f"{r['strict']:.3f} ({r['strict_right']}/{r['questions']})"
    vram = r.get("vram") or _f(r.get("vram_peak_mib"), 0)
    return [r.get("where", "?"), r["model"], r["method"], str(r.get("layers", "n/a")),
            f"{r.get('summarizer')} / {r.get('graph_extractor')}", _f(r.get("index_seconds")),
            _f(r.get("latency_median_s"), 2), _f(r.get("latency_p95_s"), 2), _f(r.get("llm_tok_s")), _f(r.get("gen_tok_s")),
            vram, strict + (f", {r['errors']} errors" if r.get("errors") else "")]


def speedups(rows: list[dict[str, Any]]) -> list[str]:
    lines = []
    for g in (r for r in rows if r.get("kind") == "gpu"):
        for c in (r for r in rows if r.get("kind") == "cpu" and r["model"] == g["model"] and r["method"] == g["method"]):
            parts = []
            for key, label in (("index_seconds", "index"), ("latency_median_s", "median answer"), ("latency_p95_s", "p95 answer")):
                if g.get(key) and c.get(key):
                    parts.append(f"{label} x{c[key] / g[key]:.1f}")
            if parts:
                lines.append(f"{g['model']} {g['method']}, {g['where']} vs {c['where']}: " + ", ".join(parts) + " faster")
    return lines


def markdown(rows: list[dict[str, Any]], notes: list[str]) -> str:
    out = ["| " + " | ".join(COLUMNS) + " |", "| " + " | ".join("---" if i < 5 else "---:" for i in range(len(COLUMNS))) + " |"]
    out += ["| " + " | ".join(cells(r)) + " |" for r in rows]
    return "\n".join(out + [""] + [f"- {n}" for n in notes]) + "\n"


# -- main ---------------------------------------------------------------------------------
def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base-model", default=GPU_MODEL, metavar="NAME",
                    help="the first model run (a manifest name or GGUF path; default: %(default)s)")
    ap.add_argument("--model", action="append", default=[], metavar="PATH",
                    help="another GGUF (or manifest name) to run after --base-model; repeatable")
    ap.add_argument("--cpu-results", action="append", default=[], type=Path, metavar="DIR",
                    help="a CPU run to show beside: a k2desk eval --out folder, or an earlier bench_gpu output folder")
    ap.add_argument("--skip-setup", action="store_true", help="the CUDA build is installed: do not run scripts/setup.sh")
    ap.add_argument("--cpu-dry-run", action="store_true",
                    help=f"prove the script without a GPU: {DRY_MODEL}, 3 articles, 3 questions, no setup")
    ap.add_argument("--bench", type=Path, default=BENCH)
    ap.add_argument("--queries", default="queries_sample.jsonl")
    ap.add_argument("--limit", type=int, default=None, help="questions (default: 60; 3 with --cpu-dry-run)")
    ap.add_argument("--methods", default="k2rag", help="comma-separated methods (default: %(default)s)")
    ap.add_argument("--summarizer", default=None, help="default: llm (extractive with --cpu-dry-run)")
    ap.add_argument("--graph-extractor", default=None, help="default: llm (fast with --cpu-dry-run)")
    ap.add_argument("--check-llm", default="", help="the yes/no claim checker (default: the model itself; 'auto': the app's)")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--work", type=Path, default=None, help="an empty folder for homes, eval folders and the table "
                    "(default: a new temporary folder, kept)")
    ap.add_argument("--quiet", action="store_true", help="do not echo k2desk eval's progress (it is in the log)")
    cfg = ap.parse_args(argv)
    dry = cfg.cpu_dry_run
    cfg.limit = cfg.limit or (3 if dry else 60)
    cfg.summarizer = cfg.summarizer or ("extractive" if dry else "llm")
    cfg.graph_extractor = cfg.graph_extractor or ("fast" if dry else "llm")
    cfg.gpu_layers = 0 if dry else -1
    return cfg


def main(argv: Optional[list[str]] = None) -> int:
    cfg = parse_args(argv)
    gpus = nvidia_gpus()
    if not cfg.cpu_dry_run and not gpus:
        raise BenchError("no NVIDIA GPU here (nvidia-smi lists none): run this on a machine with one, "
                         "or prove the script on the CPU with --cpu-dry-run")
    models = [DRY_MODEL] if cfg.cpu_dry_run else [cfg.base_model, *cfg.model]
    for m in models:
        if (m.endswith(".gguf") or "/" in m) and not Path(m).expanduser().is_file():
            raise BenchError(f"--model {m}: no such file")
    if not (cfg.bench / "corpus.jsonl").is_file() or not (cfg.bench / cfg.queries).is_file():
        raise BenchError(f"{cfg.bench} lacks corpus.jsonl or {cfg.queries} (--bench, --queries)")
    if not cfg.cpu_dry_run and not cfg.skip_setup:  # then again in the virtualenv setup made
        run_setup()
        venv_python = ROOT / ".venv" / "bin" / "python"
        args = list(sys.argv[1:] if argv is None else argv) + ["--skip-setup"]
        os.execv(str(venv_python), [str(venv_python), str(Path(__file__).resolve()), *args])
    python = sys.executable
    check_python(python)
    work = (cfg.work or Path(tempfile.mkdtemp(prefix="k2desk-bench-gpu-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    bench = cfg.bench.resolve()
    if cfg.cpu_dry_run:
        bench = small_bench(bench, cfg.queries, work / "bench-small")
    cfg.models = [str(Path(m).expanduser().resolve()) if Path(m).expanduser().is_file() else m for m in models]

    rows: list[dict[str, Any]] = []
    failed: list[str] = []
    for model in cfg.models:
        try:
            run = run_eval(python, cfg, bench, model, work)
        except NoGpuBackend:
            raise
        except BenchError as exc:  # the other models still run; the table says which failed
            print(f"bench_gpu: {exc}", file=sys.stderr, flush=True)
            failed.append(f"{slug(model)} failed: {exc}")
            continue
        vram: VramPeak = run["vram"]
        for r in eval_figures(run["eval_dir"], bench):
            r.update(kind="cpu" if cfg.cpu_dry_run else "gpu", layers=run["layers"], wall_seconds=run["wall_seconds"],
                     vram_peak_mib=vram.peak_above_idle, vram_idle_mib=vram.idle, vram_samples=vram.samples,
                     vram_source=vram.source, gpus=gpus,
                     llm_build=((run["checks"].get("llm.build") or {}).get("found")),
                     gpu_check=((run["checks"].get("llm.gpu") or {}).get("found")))
            if cfg.cpu_dry_run:
                r.update(where=f"CPU dry run ({os.cpu_count()} cores)", vram=NO_GPU if not gpus else CPU_RUN)
            else:
                r.update(where=f"GPU ({gpus[0]})", vram=None if vram.peak is not None else "n/a (not readable)")
            rows.append(r)
    for folder in cfg.cpu_results:
        rows += cpu_rows(folder, cfg.bench.resolve())

    notes = list(failed)
    if not gpus:
        notes.append("no GPU was available: this was a CPU dry run (no layer offloaded, VRAM not measured)")
    elif cfg.cpu_dry_run:
        notes.append(f"a GPU is here ({', '.join(gpus)}) but --cpu-dry-run ran everything on the CPU")
    own = [r for r in rows if "wall_seconds" in r]  # this run's rows, not --cpu-results'
    notes.append(f"{bench.name}: {own[0]['index_documents'] if own else '?'} articles indexed, "
                 f"{cfg.limit} questions of {cfg.queries}; build profile default; machine {platform.node() or '?'}, "
                 f"{os.cpu_count()} cores; {own[0].get('llm_build') if own else ''}")
    notes.append("LLM tok/s = (prompt + completion tokens) / answer seconds, gen tok/s = completion tokens / answer "
                 "seconds (the eval rows keep no llama.cpp timings: lower bounds); VRAM peak = the most GPU memory in "
                 "use during the run (index and answers) above what was in use before it")
    notes += speedups(rows)
    table = markdown(rows, notes)
    (work / "bench_gpu.md").write_text(table, encoding="utf-8")
    record = {"work": str(work), "bench": str(bench), "queries": cfg.queries, "limit": cfg.limit, "methods": cfg.methods,
              "cpu_dry_run": cfg.cpu_dry_run, "gpus": gpus, "models": cfg.models, "failed": failed, "notes": notes, "rows": rows}
    (work / "bench_gpu.json").write_text(json.dumps(record, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    print()
    print(table, end="")
    print(f"\ntable: {work / 'bench_gpu.md'}, {work / 'bench_gpu.json'}")
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as exc:
        print(f"bench_gpu: {exc}", file=sys.stderr)
        sys.exit(1)
