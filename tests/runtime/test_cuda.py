"""The CUDA build of llama.cpp (``K2DESK_CUDA=1 scripts/setup.sh``) on a machine without a GPU.

The last test takes the CUDA wheel setup cached (built from the registry's CUDA 13 wheels alone)
and the CUDA runtime libraries setup installed beside it, puts both in front of this
environment's CPU build, and runs the README's demo: it must answer right on the CPU, with the
one line saying that there is no GPU. Skipped only where no CUDA wheel was built.
"""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

from k2desk.runtime import cuda

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("K2DESK_WHEEL_CACHE", Path.home() / ".cache" / "k2desk" / "wheels"))


def cuda_wheel() -> Optional[Path]:
    found = sorted(CACHE.glob("llama-*-cuda-*/llama_cpp_python-*.whl"), key=lambda p: p.stat().st_mtime)
    return found[-1] if found else None


def cuda_runtime() -> Optional[Path]:
    """The folder setup installed the registry's CUDA 13 wheels into (nvidia/cu13/lib inside)."""
    folder = CACHE / "cuda-13.0"
    return folder if (folder / "nvidia" / "cu13" / "lib" / "libcublas.so.13").is_file() else None


@pytest.fixture
def fresh_state(monkeypatch):
    monkeypatch.setattr(cuda, "_state", None)


def test_a_cpu_build_has_no_cuda_backend_and_says_nothing(fresh_state, capfd):
    if cuda.backend_file() is not None:
        pytest.skip("this environment's llama-cpp-python is the CUDA build")
    state = cuda.load_cuda_backend()
    assert not state.built and state.devices == 0
    assert "CUDA" not in capfd.readouterr().err


def test_the_runtime_folders_are_found_where_the_wheels_put_them(tmp_path, monkeypatch):
    (tmp_path / "a" / "nvidia" / "cu13" / "lib").mkdir(parents=True)
    (tmp_path / "b" / "nvidia" / "cu12" / "lib").mkdir(parents=True)  # another CUDA's layout: not ours
    monkeypatch.setattr(sys, "path", [str(tmp_path / "b"), str(tmp_path / "a"), str(tmp_path / "a")])
    assert cuda.runtime_folders() == [tmp_path / "a" / "nvidia" / "cu13" / "lib"]


def test_the_line_says_why_and_where_the_llm_runs():
    line = cuda.CudaState(built=True, why="no NVIDIA GPU answered (no driver, or no device)").line
    assert line == ("k2desk: this llama.cpp build has CUDA, but no NVIDIA GPU answered (no driver, or no device): "
                    "the LLM runs on the CPU")


@pytest.mark.slow  # ~1 min: the wheel installed into a folder, the sample indexed, one answer
def test_the_cuda_build_answers_the_readme_demo_on_the_cpu(tmp_path, models_dir, model_store):
    wheel, runtime = cuda_wheel(), cuda_runtime()
    if wheel is None or runtime is None:
        pytest.skip(f"no CUDA build of llama-cpp-python in {CACHE} (K2DESK_CUDA=1 scripts/setup.sh builds one)")
    model_store.resolve_llm("qwen2.5-coder-0.5b")
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True)
    assert any(target.glob("**/libggml-cuda.so*")), sorted(str(p.relative_to(target)) for p in target.rglob("*.so*"))
    env = {**os.environ, "K2DESK_HOME": str(tmp_path / "home"), "K2DESK_MODELS": str(models_dir),
           "PYTHONPATH": os.pathsep.join([str(target), str(runtime), str(ROOT)]),
           "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES", "")}
    k2desk = [sys.executable, "-m", "k2desk"]
    # found, not imported: CUDA built in needs its runtime loaded first (k2desk/runtime/llama_import.py)
    which = subprocess.run([sys.executable, "-c", "import importlib.util; print(importlib.util.find_spec('llama_cpp').origin)"],
                           env=env, capture_output=True, text=True, check=True)
    assert Path(which.stdout.strip()).is_relative_to(target)  # the CUDA build, not this environment's

    done = subprocess.run([*k2desk, "index", str(ROOT / "resources" / "sample")], env=env, capture_output=True,
                          text=True, timeout=1800)
    assert done.returncode == 0, done.stderr
    out = subprocess.run([*k2desk, "ask", "Who leads the Lindenfeld Solar Cooperative?", "--json"], env=env,
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    assert "Henrike Albers" in json.loads(out.stdout)["answer"]
    said = [ln for ln in out.stderr.splitlines() if "build has CUDA" in ln]
    assert said and said[0].endswith("the LLM runs on the CPU"), out.stderr

    doctor = subprocess.run([*k2desk, "doctor", "--json"], env=env, capture_output=True, text=True, timeout=600)
    checks = {c["key"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert "CUDA" in checks["llm.build"]["found"], checks["llm.build"]
    assert checks["llm.gpu"]["status"] == "warning" and "runs on the CPU" in checks["llm.gpu"]["found"]
