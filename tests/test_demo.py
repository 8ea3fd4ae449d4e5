"""The README's main job, as a person runs it: the sample documents indexed with the default
settings (default build profile, default 0.5B model) and the demo question asked with the
default method, which must name the cooperative's chair."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "Who leads the Lindenfeld Solar Cooperative?"


@pytest.mark.slow  # a few minutes on 2 cores: LLM summaries and graph of 3 documents, one K²RAG answer
def test_the_readme_demo_answers_right_with_the_defaults(tmp_path, models_dir, model_store):
    model_store.resolve_llm("qwen2.5-coder-0.5b")  # prepared by setup
    env = {**os.environ, "K2DESK_HOME": str(tmp_path / "home"), "K2DESK_MODELS": str(models_dir)}
    k2desk = [sys.executable, "-m", "k2desk"]
    done = subprocess.run([*k2desk, "index", str(ROOT / "resources" / "sample")], env=env, capture_output=True,
                          text=True, timeout=1800)
    assert done.returncode == 0, done.stderr
    out = subprocess.run([*k2desk, "ask", QUESTION, "--json"], env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["method"] == "k2rag"
    assert "Henrike Albers" in answer["answer"], answer["answer"]
    assert Path(answer["sources"][0]["document"]).name == "solar-cooperative.md"
