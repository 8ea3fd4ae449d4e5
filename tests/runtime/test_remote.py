"""``--llm-url``: answering through an OpenAI-compatible server, against a real ``llama-server``
(built by scripts/setup.sh from the llama.cpp source of llama-cpp-python) that the test starts
on loopback with the tests' model."""

import json
import math
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.errors import ModelError
from k2desk.graph.extract import EXTRACTION_SCHEMA
from k2desk.runtime.llm import LLM
from k2desk.runtime.remote import RemoteLLM

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


def llama_server_binary() -> str:
    found = os.environ.get("K2DESK_LLAMA_SERVER") or (str(ROOT / ".venv" / "bin" / "llama-server")
                                                      if (ROOT / ".venv" / "bin" / "llama-server").is_file() else None)
    found = found or shutil.which("llama-server")
    if not found:
        pytest.fail("llama-server is missing: scripts/setup.sh builds it into .venv/bin (or set K2DESK_LLAMA_SERVER)",
                    pytrace=False)
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tiny_llm_path):
    port = free_port()
    proc = subprocess.Popen([llama_server_binary(), "-m", str(tiny_llm_path), "--host", "127.0.0.1", "--port", str(port),
                             "-c", "4096", "-t", "2", "-np", "1", "--no-webui"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            if proc.poll() is not None:
                pytest.fail(f"llama-server exited: {proc.stderr.read()[-2000:]}", pytrace=False)
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=1) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("llama-server did not become ready in 120 s", pytrace=False)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def remote(server):
    return RemoteLLM(server)


def test_tokens_and_context_come_from_the_server(remote, tiny_llm_path):
    local = LLM(tiny_llm_path, n_ctx=256, threads=2)
    text = "The Harwick Point lighthouse was built in 1887 on a granite headland."
    assert remote.count_tokens(text) == local.count_tokens(text)  # the same model's tokenizer, exactly
    assert remote.count_tokens(remote.truncate(text, 5)) <= 5 and remote.n_ctx == 4096


def test_chat_streams_and_counts(remote):
    pieces = []
    out = remote.chat([{"role": "user", "content": "Name one colour."}], max_tokens=8, on_token=pieces.append)
    assert out.text and "".join(pieces).strip() == out.text
    assert 0 < out.completion_tokens <= 8 and out.prompt_tokens > 5 and remote.total.calls >= 1


def test_json_follows_the_schema(remote):
    # room for the longest object the schema allows (its lists and strings are bounded): the tiny
    # model fills the relations list with repeats, and a reply cut by max_tokens is no JSON
    data = remote.json([{"role": "user", "content": "Extract entities: Mirela Varga keeps the Harwick Point lighthouse."}],
                       EXTRACTION_SCHEMA, max_tokens=3000)
    assert isinstance(data, dict) and isinstance(data.get("entities"), list) and isinstance(data.get("relations"), list)


def test_first_token_scores_rank_the_answers(remote):
    words = {"yes": ["Yes", " Yes", "yes"], "no": ["No", " No", "no"]}
    scores = remote.first_token_logits([{"role": "user", "content": "Is the sky blue on a clear day? Answer Yes or No."}], words)
    assert set(scores) == {"yes", "no"} and all(math.isfinite(v) and v <= 0 for v in scores.values())  # log-probabilities
    assert scores["yes"] != scores["no"]


def test_the_engine_answers_through_the_server(server, tmp_path, models_dir):
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(FIXTURES / "mixed" / "lighthouse.txt", docs)
    settings = Settings(home=tmp_path / "home", models_dir=models_dir, llm_url=server, threads=2, build_profile="naive")
    with Engine(settings, "remote") as engine:
        engine.index([docs])
        answer = engine.ask("Who keeps the Harwick Point lighthouse?", method="hybrid")
        assert answer.answer and answer.llm.calls == 1 and answer.llm.prompt_tokens > 100
        assert Path(answer.sources[0].document).name == "lighthouse.txt"


def test_the_cli_takes_the_flag_and_a_dead_server_is_one_line(server, tmp_path, models_dir):
    env = {**os.environ, "K2DESK_HOME": str(tmp_path / "home"), "K2DESK_MODELS": str(models_dir)}
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "settings.json").write_text(json.dumps({"build_profile": "naive", "threads": 2}))
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(FIXTURES / "mixed" / "lighthouse.txt", docs)
    run = lambda *a: subprocess.run([sys.executable, "-m", "k2desk", *map(str, a)], env=env, capture_output=True,  # noqa: E731
                                    text=True, timeout=600)
    assert run("index", docs).returncode == 0
    out = run("--llm-url", server, "ask", "Who keeps the lighthouse?", "--method", "hybrid", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["llm"]["calls"] == 1
    dead = run("--llm-url", f"http://127.0.0.1:{free_port()}", "ask", "Who keeps the lighthouse?", "--method", "hybrid")
    assert dead.returncode == 1 and "cannot reach the LLM server at http://127.0.0.1:" in dead.stderr
    assert len(dead.stderr.strip().splitlines()) == 1
    with pytest.raises(ModelError, match="must be an http"):
        RemoteLLM("127.0.0.1:8080")


def test_a_reply_that_avoids_another_begins_otherwise(remote):
    messages = [{"role": "user", "content": "Name one colour of the rainbow. Answer with one word."}]
    first = remote.chat(messages, max_tokens=6)
    again = remote.chat(messages, max_tokens=6, avoid=first.text)
    assert again.text and remote.tokenize(again.text, special=False)[0] != remote.tokenize(first.text, special=False)[0]
