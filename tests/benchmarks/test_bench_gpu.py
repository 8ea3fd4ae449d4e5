"""benchmarks/bench_gpu.py: the GPU benchmark proven on the CPU (``--cpu-dry-run`` end to end with
the tiny model), its one-line refusal where there is no GPU, and its table from CPU results."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_gpu.py"
BENCH = ROOT.parent / "shared" / "bench" / "multihop-rag-dev"
HEADER = ("| run | model | method | layers on GPU | summaries / graph | index (s) | answer median (s) | answer p95 (s) "
          "| LLM tok/s | gen tok/s | VRAM peak (MiB) | strict accuracy |")


def load_script():
    spec = importlib.util.spec_from_file_location("bench_gpu", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench_gpu = load_script()
needs_bench = pytest.mark.skipif(not (BENCH / "corpus.jsonl").is_file(), reason=f"{BENCH} is not here")


@pytest.mark.slow  # 4-11 min on 2 shared cores: 3 articles indexed, 3 K²RAG answers by SmolLM2 (16 LLM calls)
@needs_bench
def test_cpu_dry_run_prints_the_table(tmp_path, tiny_llm_path, models_dir):
    work = tmp_path / "work"
    env = {**os.environ, "K2DESK_MODELS": str(models_dir)}
    done = subprocess.run([sys.executable, str(SCRIPT), "--cpu-dry-run", "--quiet", "--work", str(work)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert HEADER in out
    table = (work / "bench_gpu.md").read_text(encoding="utf-8")
    assert table in out  # the same table printed and written
    gpus = bench_gpu.nvidia_gpus()
    row = next(line for line in out.splitlines() if line.startswith("| CPU dry run"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert len(cells) == len(bench_gpu.COLUMNS)
    assert cells[1:5] == ["smollm2-135m", "k2rag", cells[3], "extractive / fast"]
    assert cells[3].startswith("0/")  # no layer offloaded
    assert cells[10] == ("n/a (no GPU)" if not gpus else "n/a (CPU run)")
    assert cells[11].endswith("/3)")
    if not gpus:
        assert "- no GPU was available: this was a CPU dry run" in out

    record = json.loads((work / "bench_gpu.json").read_text(encoding="utf-8"))
    assert record["cpu_dry_run"] is True and record["limit"] == 3
    (r,) = record["rows"]
    assert r["kind"] == "cpu" and r["model"] == "smollm2-135m" and r["method"] == "k2rag"
    assert r["questions"] == 3 and r["index_documents"] == 3 and r["errors"] == 0
    assert r["summarizer"] == "extractive" and r["graph_extractor"] == "fast" and r["gpu_layers"] == 0
    assert r["index_seconds"] > 0 and r["index_stage_seconds"]
    assert 0 < r["latency_median_s"] <= r["latency_p95_s"]
    assert r["llm_tok_s"] > 0 and r["gen_tok_s"] >= 0 and r["prompt_tokens"] > 0
    assert 0.0 <= r["strict"] <= 1.0 and r["strict_right"] == round(r["strict"] * 3)
    assert r["vram_peak_mib"] is None
    assert "llama-cpp-python" in r["llm_build"]
    # k2desk's own eval ran in a fresh home: its run folder is kept beside the table
    assert (work / "eval-smollm2-135m" / "results.jsonl").is_file()
    assert json.loads((work / "home-smollm2-135m" / "settings.json").read_text())["build_profile"] == "default"


@pytest.mark.skipif(bool(bench_gpu.nvidia_gpus()), reason="an NVIDIA GPU is here")
def test_a_gpu_run_without_a_gpu_stops_with_one_line(tmp_path):
    done = subprocess.run([sys.executable, str(SCRIPT), "--work", str(tmp_path / "w")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stdout == ""  # nothing set up, nothing indexed
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bench_gpu: no NVIDIA GPU here"), done.stderr
    assert "--cpu-dry-run" in lines[0]
    assert not (tmp_path / "w").exists()


@needs_bench
def test_the_small_bench_holds_each_questions_evidence(tmp_path):
    small = bench_gpu.small_bench(BENCH, "queries_sample.jsonl", tmp_path / "b")
    urls = {json.loads(line)["url"] for line in (small / "corpus.jsonl").read_text().splitlines()}
    questions = [json.loads(line) for line in (small / "queries_sample.jsonl").read_text().splitlines()]
    assert len(urls) == 3 and len(questions) == 3
    assert len({q["question_type"] for q in questions}) == 3
    for q in questions:
        assert {e["url"] for e in q["evidence_list"]} <= urls


def _eval_folder(tmp_path: Path) -> Path:
    """A k2desk eval folder of a CPU run on a two-question bench (as `k2desk eval --out` writes it)."""
    bench = tmp_path / "tiny-bench"
    bench.mkdir()
    (bench / "corpus.jsonl").write_text(json.dumps({"title": "t", "url": "u1", "body": "Ann chairs it."}) + "\n")
    questions = [{"id": "q1", "query": "Who chairs it?", "answer": "Ann", "question_type": "inference_query"},
                 {"id": "q2", "query": "Is it red?", "answer": "Yes", "question_type": "comparison_query"}]
    (bench / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    out = tmp_path / "cpu-run"
    out.mkdir()
    (out / "run.json").write_text(json.dumps({
        "bench": "tiny-bench", "bench_dir": str(bench), "queries_file": "queries.jsonl", "limit": None, "folds": 2, "seed": 0,
        "methods": ["k2rag"], "machine": {"cpus": 2, "summary": "Linux x86_64, 2 CPUs"},
        "settings": {"llm": "qwen2.5-coder-1.5b", "summarizer": "auto", "graph_extractor": "auto", "gpu_layers": -1},
        "index_build": {"added": 1, "seconds": 400.0, "stage_seconds": {"embed": 1.0}}}))
    rows = [{"id": "q1", "method": "k2rag", "prediction": "Ann does.", "seconds": 10.0, "prompt_tokens": 900,
             "completion_tokens": 10, "error": None},
            {"id": "q2", "method": "k2rag", "prediction": "No.", "seconds": 30.0, "prompt_tokens": 1100,
             "completion_tokens": 0, "error": None}]
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return out


def test_cpu_results_sit_beside_the_gpu_rows(tmp_path):
    (cpu,) = bench_gpu.cpu_rows(_eval_folder(tmp_path), BENCH)
    assert cpu["kind"] == "cpu" and cpu["where"] == "CPU (2 cores)" and cpu["vram"] == "n/a (CPU run)"
    assert cpu["model"] == "qwen2.5-coder-1.5b" and cpu["questions"] == 2 and cpu["index_seconds"] == 400.0
    assert cpu["latency_median_s"] == pytest.approx(20.0) and cpu["latency_p95_s"] == pytest.approx(29.0)
    assert cpu["llm_tok_s"] == pytest.approx(2010 / 40) and cpu["gen_tok_s"] == pytest.approx(10 / 40)
    assert cpu["strict"] == pytest.approx(0.5) and cpu["strict_right"] == 1  # "Ann does." right, "No." wrong
    gpu = dict(cpu, kind="gpu", where="GPU (NVIDIA H100)", vram=None, vram_peak_mib=2345.4, layers="29/29",
               index_seconds=40.0, latency_median_s=2.0, latency_p95_s=2.9)
    speed = bench_gpu.speedups([gpu, cpu])
    assert speed == ["qwen2.5-coder-1.5b k2rag, GPU (NVIDIA H100) vs CPU (2 cores): index x10.0, median answer x10.0, "
                     "p95 answer x10.0 faster"]
    table = bench_gpu.markdown([gpu, cpu], speed)
    assert table.splitlines()[0] == HEADER
    assert "| GPU (NVIDIA H100) | qwen2.5-coder-1.5b | k2rag | 29/29 | auto / auto | 40.0 | 2.00 | 2.90 | 50.2 | 0.2 | 2,345 | " \
           "0.500 (1/2) |" in table
    assert "| CPU (2 cores) | qwen2.5-coder-1.5b | k2rag | 0 | auto / auto | 400.0 | 20.00 | 29.00 | 50.2 | 0.2 | n/a (CPU run) | " \
           "0.500 (1/2) |" in table
