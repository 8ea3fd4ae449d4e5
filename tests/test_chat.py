"""`k2desk chat` in a real terminal (a pseudo-terminal it controls): a three-turn conversation,
each answer's steps shown while it reads, the follow-up shown as understood, Ctrl-C during an answer stopping that answer and not the
conversation, /threads, /sources, bad commands in one line, Ctrl-D ending it with the thread kept."""

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[1] / "resources" / "sample"
PROMPT = b"\r\n> "


@pytest.fixture(scope="module")
def home(tmp_path_factory, models_dir):
    home = tmp_path_factory.mktemp("chat") / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"llm": "smollm2-135m", "threads": 2, "summarizer": "extractive",
                                                    "graph_extractor": "fast"}))
    env = {**os.environ, "K2DESK_HOME": str(home), "K2DESK_MODELS": str(models_dir)}
    subprocess.run([sys.executable, "-m", "k2desk", "index", str(SAMPLE)], env=env, check=True, capture_output=True,
                   timeout=900)
    return env


class Terminal:
    """A child on a pseudo-terminal of its own: what is typed, what a person would read."""

    def __init__(self, argv, env):
        import pty

        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the pty is its controlling terminal (Ctrl-C sends it SIGINT)
            os.execvpe(argv[0], argv, env)
        self.seen = b""
        self.pos = 0  # what was read up to: a marker is looked for after it (a chunk may hold two)

    def read_until(self, marker: bytes, timeout: float = 600) -> bytes:
        start, end = self.pos, time.monotonic() + timeout
        while marker not in self.seen[start:]:
            left = end - time.monotonic()
            assert left > 0, f"no {marker!r} in {self.seen[start:].decode(errors='replace')!r}"
            ready, _, _ = select.select([self.fd], [], [], min(left, 1.0))
            if ready:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:
                    chunk = b""
                assert chunk or marker in self.seen[start:], f"the terminal closed before {marker!r}"
                self.seen += chunk
        self.pos = self.seen.index(marker, start) + len(marker)
        return self.seen[start:self.pos]

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def close(self) -> int:
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


@pytest.mark.slow
def test_a_conversation_in_a_terminal(home):
    term = Terminal([sys.executable, "-m", "k2desk", "chat"], home)
    try:
        term.read_until(b"/help for commands")
        term.read_until(b"> ")
        term.type("Who leads the Lindenfeld Solar Cooperative?\r")
        first = term.read_until(PROMPT).decode(errors="replace")
        assert "Sources:" in first and "solar-cooperative.md" in first and "Understood as" not in first
        # what it is doing while it reads, on the answer's line until the answer's first word
        assert "\r… finding the passages" in first and "passages" in first.split("\r… reading ")[1].split("\r")[0]
        term.type("And who is its treasurer?\r")
        second = term.read_until(PROMPT).decode(errors="replace")
        assert "Understood as:" in second and "Lindenfeld Solar Cooperative" in second.split("Understood as:")[1]
        assert "\r… reading the message against the conversation" in second
        term.type("/sources 1\r")
        assert b"solar-cooperative.md" in term.read_until(PROMPT)
        term.type("/sources 99\r")
        assert b"k2desk: /sources takes a number from 1 to" in term.read_until(PROMPT)
        term.type("/nonsense\r")
        assert b"k2desk: no command /nonsense; /help lists them" in term.read_until(PROMPT)
        term.type("How many cars can its ferry carry?\r")  # the third turn, stopped while it is answered:
        term.read_until("carry?".encode())
        term.read_until("… ".encode())  # the answer has begun: Ctrl-C now stops it
        term.type("\x03")
        third = term.read_until(PROMPT).decode(errors="replace")
        assert "(answer stopped; the conversation goes on)" in third
        term.type("/threads\r")
        threads = term.read_until(PROMPT).decode(errors="replace")
        assert "*   1" in threads and " 2 turns  Who leads the Lindenfeld Solar Cooperative?" in threads  # the stopped turn not kept
        term.type("\x04")  # Ctrl-D
        assert b"(conversation 1 kept: `k2desk chat --thread 1` continues it)" in term.read_until(b"continues it)")
    finally:
        try:
            os.kill(term.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        code = term.close()
    assert code in (0, -signal.SIGKILL)
    history = subprocess.run([sys.executable, "-m", "k2desk", "history", "list", "--json"], env=home, capture_output=True,
                             text=True, timeout=300, check=True)
    rows = json.loads(history.stdout)
    assert [(r["thread_id"], r["message"]) for r in rows] == [(1, "And who is its treasurer?"), (1, "")]


@pytest.mark.slow
def test_bad_input_each_gets_one_line(home):
    def ask(*args):
        return subprocess.run([sys.executable, "-m", "k2desk", "ask", *args], env=home, capture_output=True, text=True,
                              timeout=600)

    empty = ask("--thread", "new", "   ")
    assert empty.returncode != 0 and empty.stderr.strip() == "k2desk: error: the message is empty"
    long = ask("--thread", "new", "why" + "?" * 99_997)
    assert long.returncode != 0 and len(long.stderr.strip().splitlines()) == 1
    assert "100,000 characters long; a question is read up to 4,000" in long.stderr
    missing = ask("--thread", "4711", "And its treasurer?")
    assert missing.returncode != 0 and missing.stderr.strip().startswith("k2desk: error: no conversation 4711 in collection")
    word = ask("--thread", "soon", "Who?")
    assert word.returncode != 0 and "--thread takes 'new' or a conversation's number" in word.stderr


def test_the_next_message_is_read_ahead_while_it_is_typed(home):
    """After an answer, the model reads what the follow-up's rewrite reads first, in a thread of
    its own; the next line stops it and waits for it before the model is asked anything."""
    import io

    from k2desk.chat import ChatSession
    from k2desk.config import Settings
    from k2desk.engine import Engine

    settings = Settings.load(home=Path(home["K2DESK_HOME"]), models_dir=Path(home["K2DESK_MODELS"]))
    with Engine(settings) as engine:
        read = []
        real = engine.read_ahead
        engine.read_ahead = lambda thread=None, turns=None, cancel=None: read.append(  # type: ignore[method-assign]
            (list(turns or []), real(thread, turns, cancel)))[-1][1]
        session = ChatSession(engine, out=io.StringIO())
        session.handle("/new")
        assert session._ahead is None  # no conversation yet: nothing to read ahead
        session.handle("Who leads the Lindenfeld Solar Cooperative?")
        worker = session._ahead[0]
        session.handle("And who is its treasurer?")
        assert not worker.is_alive()  # stopped and waited for before the follow-up was read
        turns, _ = read[0]  # what it read depends on when the next line came: nothing, or up to the whole conversation
        assert [t.question for t in turns] == ["Who leads the Lindenfeld Solar Cooperative?"]
        assert session._ahead is not None and len(read) >= 1
        session.stop_reading_ahead()
        assert session._ahead is None
