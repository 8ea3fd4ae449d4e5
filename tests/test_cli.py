"""The CLI contract, through a real subprocess: exit codes, one-line errors, --json schema."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def cli(tmp_path, models_dir):
    env = {**os.environ, "K2DESK_HOME": str(tmp_path / "home"), "K2DESK_MODELS": str(models_dir)}
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "settings.json").write_text(json.dumps({"build_profile": "naive", "threads": 2}))

    def run(*args, check=None, tty=False):
        if tty:  # stdout on a terminal (a pseudo-terminal): what a person at it would read
            import pty

            leader, follower = pty.openpty()
            subprocess.run([sys.executable, "-m", "k2desk", *map(str, args)], env=env, stdout=follower,
                           stderr=subprocess.DEVNULL, timeout=600, check=True)
            os.close(follower)
            chunks = []
            while True:
                try:
                    chunk = os.read(leader, 4096)
                except OSError:  # the terminal closed
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            os.close(leader)
            return b"".join(chunks).decode("utf-8", errors="replace")
        proc = subprocess.run([sys.executable, "-m", "k2desk", *map(str, args)], env=env, capture_output=True,
                              text=True, timeout=600)
        if check is not None:
            assert proc.returncode == check, proc.stderr
        return proc

    return run


def test_index_ask_json_docs(cli, tmp_path):
    folder = tmp_path / "docs"
    shutil.copytree(FIXTURES / "mixed", folder)
    out = cli("index", folder, "--json", check=0)
    report = json.loads(out.stdout)
    assert len(report["added"]) == 6 and len(report["failed"]) == 3

    text = cli("index", folder, check=0).stdout
    assert "0 added" in text and "6 unchanged" in text and "corrupt.pdf" in text

    out = cli("ask", "What is the chess club's membership?", "--method", "hybrid", "--json", "--llm", "smollm2-135m", check=0)
    payload = json.loads(out.stdout)
    assert set(payload) - {"caution", "reason"} == {"question", "method", "answer", "outcome", "verdict", "sources",
                                                     "trace", "timings", "llm", "models"}
    assert payload["verdict"]["outcome"] == payload["outcome"] and payload["verdict"].get("reason") == payload.get("reason")
    assert payload["models"] == {"llm": "smollm2-135m", "reader": "smollm2-135m", "check": "smollm2-135m"}  # --llm: it alone
    assert ("reason" in payload) is (payload["outcome"] != "answered")  # the tiny model's answer may be declined
    assert payload["method"] == "hybrid" and payload["answer"]
    assert Path(payload["sources"][0]["document"]).name == "chess_club.txt"
    assert payload["llm"]["calls"] == 1 and payload["llm"]["prompt_tokens"] > 0

    history = json.loads(cli("history", "list", "--json", check=0).stdout)  # ask keeps what it answered
    assert [(h["question"], h["method"], h["answer"]) for h in history] == [
        ("What is the chess club's membership?", "hybrid", payload["answer"])]
    assert [s["document"] for s in history[0]["sources"]] == [s["document"] for s in payload["sources"]]
    assert cli("history", "export", tmp_path / "qa.md", check=0).stdout.startswith("wrote 1 question to")
    md = (tmp_path / "qa.md").read_text(encoding="utf-8")
    assert "## What is the chess club's membership?" in md and "`chess_club.txt`" in md
    proc = cli("history", "export", tmp_path / "no" / "such" / "dir.md")
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1 and "cannot write" in proc.stderr

    far = "Which submarine does the harbour master sail?"  # no passage mentions a harbour master
    declined = json.loads(cli("ask", far, "--method", "hybrid", "--json", "--llm", "smollm2-135m", check=0).stdout)
    assert declined["outcome"] == "declined" and "harbour" in declined["reason"], declined
    text = cli("ask", far, "--method", "hybrid", "--llm", "smollm2-135m", check=0).stdout
    assert text.startswith("Not in your documents") and f"Why: {declined['reason']}." in text

    # on a terminal the answer streams; a declined one, which streamed nothing, is printed all the same
    shown = cli("ask", far, "--method", "hybrid", "--llm", "smollm2-135m", tty=True)
    assert "Not in your documents" in shown and f"Why: {declined['reason']}." in shown, shown

    listing = json.loads(cli("docs", "list", "--json", check=0).stdout)
    assert sum(d["status"] == "done" for d in listing) == 6
    assert cli("docs", "remove", folder / "recipes.md", check=0).stdout.startswith("removed ")
    assert sum(d["status"] == "done" for d in json.loads(cli("docs", "list", "--json").stdout)) == 5


def test_usage_errors_exit_2_with_one_line(cli):
    proc = cli("ask", "hi", "--method", "nonsense")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "invalid choice" in proc.stderr
    proc = cli("frobnicate")
    assert proc.returncode == 2


def test_failures_exit_1_with_an_actionable_line(cli, tmp_path):
    folder = tmp_path / "docs"
    shutil.copytree(FIXTURES / "mixed" / "nested", folder)
    cli("index", folder, check=0)
    missing = tmp_path / "nowhere" / "model.gguf"
    proc = cli("ask", "Who won?", "--method", "hybrid", "--llm", missing)
    assert proc.returncode == 1
    line = proc.stderr.strip()
    assert len(line.splitlines()) == 1 and str(missing) in line and "--llm" in line
    proc = cli("index", tmp_path / "does-not-exist")
    assert proc.returncode == 1 and "no such file or folder" in proc.stderr


def test_every_new_method_answers_json_on_one_collection(cli, tmp_path):
    """Issue 6: LightRAG's three modes, CoE and mindmap on one collection indexed once (profile
    raw: raw-text vectors and the raw-text graph, built by the tiny model), each trace showing its
    own steps."""
    from tests.methods.support import write_documents

    folder = write_documents(tmp_path / "world")
    (tmp_path / "home" / "settings.json").write_text(json.dumps({"build_profile": "raw", "threads": 2, "llm": "smollm2-135m"}))
    report = json.loads(cli("index", folder, "--json", check=0).stdout)
    assert len(report["added"]) == 2 and not report["failed"]
    steps = {"lightrag-local": "keywords", "lightrag-global": "keywords", "lightrag-hybrid": "keywords",
             "coe": "attempts", "mindmap": "sub_queries"}
    for method, key in steps.items():
        out = cli("ask", "Who keeps the Harwick Point lighthouse?", "--method", method, "--json", check=0)
        payload = json.loads(out.stdout)
        assert payload["method"] == method and payload["answer"].strip()
        assert key in payload["trace"] and payload["llm"]["calls"] >= 2, (method, payload["trace"])


def _sigterm_mid_run(stand_in: str, argv: list, env=None) -> tuple[int, str]:
    """Run ``k2desk.cli.main(argv)`` in a subprocess where ``stand_in`` (Python source) has replaced
    the long step by one that prints 'ready' and waits; SIGTERM it once ready. Returns (rc, stderr)."""
    script = f"import sys, time\n{stand_in}\nfrom k2desk.cli import main\nsys.exit(main({argv!r}))\n"
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        assert proc.stdout.readline().strip() == "ready"
        proc.terminate()
        _, stderr = proc.communicate(timeout=30)
    finally:
        proc.kill()
    return proc.returncode, stderr


def test_sigterm_stops_a_command_like_ctrl_c(tmp_path):
    """A background job (`&`) ignores SIGINT, so `kill PID` must stop it the way Ctrl-C does: exit
    130 with one line, not a silent death. A stand-in command waits so the signal lands mid-run."""
    stand_in = (
        "import k2desk.commands as c\n"
        "def waiting(args, settings):\n"
        "    print('ready', flush=True)\n"
        "    time.sleep(60)\n"
        "    return 0\n"
        "c.cmd_docs = waiting"
    )
    rc, stderr = _sigterm_mid_run(stand_in, ["--home", str(tmp_path / "home"), "docs", "list"])
    assert rc == 130, stderr
    assert stderr.strip() == "k2desk: interrupted"


def test_output_piped_into_a_reader_that_stops_early_ends_quietly(tmp_path):
    """`k2desk ask … | head -1`: the reader closes the pipe; k2desk stops writing without a
    traceback (exit 141, as a process ended by SIGPIPE). A stand-in command writes more than a pipe
    holds once the reader is gone."""
    stand_in = (
        "import k2desk.commands as c\n"
        "def talkative(args, settings):\n"
        "    print('ready', flush=True)\n"
        "    time.sleep(0.5)\n"
        "    for _ in range(10000):\n"
        "        print('x' * 100)\n"
        "    return 0\n"
        "c.cmd_docs = talkative"
    )
    script = f"import sys, time\n{stand_in}\nfrom k2desk.cli import main\nsys.exit(main(['--home', {str(tmp_path)!r}, 'docs', 'list']))\n"
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        proc.stdout.close()  # the reader goes away, as `head -1` does
        stderr = proc.stderr.read()
        proc.wait(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 141 and stderr == "", stderr


def test_sigterm_during_index_says_how_to_resume(tmp_path, models_dir):
    """The real `index` command and engine; only the indexing itself waits so the signal lands mid-run."""
    stand_in = (
        "import k2desk.engine as e\n"
        "def waiting(self, paths, progress=None, cancel=None):\n"
        "    print('ready', flush=True)\n"
        "    time.sleep(60)\n"
        "e.Engine.index = waiting"
    )
    env = {**os.environ, "K2DESK_MODELS": str(models_dir)}
    rc, stderr = _sigterm_mid_run(stand_in, ["--home", str(tmp_path / "home"), "index", str(FIXTURES / "mixed")], env)
    assert rc == 130, stderr
    assert stderr.strip().splitlines()[-1] == "k2desk: indexing interrupted; run `k2desk index` again to resume"
