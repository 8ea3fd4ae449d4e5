"""Serving under load and failure (issue 57): the answer streamed as OpenAI chunks ends with its
sources as data and says the same as the whole answer (the real tiny model); a client gone
mid-stream stops its generation and frees the model for the next request; a full queue answers 429
with Retry-After; a method that crashes answers 500 in one line and the server goes on. The last
three drive the serving layer with a stand-in for the engine's answer (its timing is the point)."""

import http.client
import json
import threading
import time

import pytest

from k2desk.engine import Engine
from k2desk.errors import Cancelled
from k2desk.types import Answer
from tests.serve.servers import call, indexed_home, serving

QUESTION = "Who keeps the lighthouse?"


@pytest.fixture(scope="module")
def settings(tmp_path_factory, models_dir, embedder, tiny_llm_path):
    settings = indexed_home(tmp_path_factory.mktemp("serving"), models_dir)
    settings.llm = "smollm2-135m"
    return settings


def events(server, body, read_all=True):
    """The data lines of a streamed completion (a connection left open when not ``read_all``)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.options.port, timeout=120)
    conn.request("POST", "/v1/chat/completions", json.dumps({**body, "stream": True}),
                 {"Host": f"127.0.0.1:{server.options.port}", "Content-Type": "application/json"})
    resp = conn.getresponse()
    assert resp.status == 200 and resp.getheader("content-type").startswith("text/event-stream")
    if not read_all:
        return conn, resp
    out = [line[6:].decode() for line in resp.read().splitlines() if line.startswith(b"data: ")]
    conn.close()
    return out


@pytest.mark.slow
def test_a_streamed_answer_is_the_whole_answer_with_its_sources_last(settings):
    body = {"model": "mixed/hybrid", "messages": [{"role": "user", "content": QUESTION}]}
    with serving(settings) as server:
        status, _, whole = call(server, "POST", "/v1/chat/completions", body)
        data = events(server, body)
    assert status == 200 and whole["object"] == "chat.completion" and whole["model"] == "mixed/hybrid"
    assert whole["sources"] and whole["sources"][0]["document"].endswith("lighthouse.txt")
    assert whole["k2desk"]["method"] == "hybrid" and whole["usage"]["total_tokens"] > 0
    assert data[-1] == "[DONE]"
    chunks = [json.loads(d) for d in data[:-1]]
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert all(c["object"] == "chat.completion.chunk" and c["id"] == chunks[0]["id"] for c in chunks)
    assert [c["choices"][0]["finish_reason"] for c in chunks].count("stop") == 1 == len(chunks[-1]["choices"]) \
        and chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert "sources" in chunks[-1] and "sources" not in chunks[-2]
    assert chunks[-1]["sources"] == whole["sources"]
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
    assert text == whole["choices"][0]["message"]["content"] and "\n\nSources:\n[1] " in text


@pytest.fixture
def stand_in(monkeypatch):
    """Engine.converse replaced: "stream" yields a token every 10 ms until cancelled, "crash"
    raises, "hold" waits for the event; anything else answers at once. Records cancels."""
    seen = {"cancelled": threading.Event(), "hold": threading.Event()}

    def converse(self, message, turns=None, method=None, cancel=None, on_token=None, **_):
        if message == "crash":
            raise RuntimeError("the method broke\nsecond line")
        if message == "hold":
            seen["hold"].wait(60)
        while message == "stream":
            try:
                cancel.check()
            except Cancelled:
                seen["cancelled"].set()
                raise
            if on_token:
                on_token("tok ")
            cancel.wait(0.01)
        return Answer(message, method or "k2rag", f"answer to {message}")

    monkeypatch.setattr(Engine, "converse", converse)
    return seen


def ask(server, message, stream=False):
    return call(server, "POST", "/v1/chat/completions",
                {"model": "mixed", "stream": stream, "messages": [{"role": "user", "content": message}]})


def test_a_client_gone_mid_stream_stops_its_generation_and_frees_the_model(settings, stand_in):
    with serving(settings) as server:
        conn, resp = events(server, {"model": "mixed", "messages": [{"role": "user", "content": "stream"}]},
                            read_all=False)
        while b"tok" not in resp.readline():
            pass
        conn.sock.close()  # the client is gone
        conn.close()
        assert stand_in["cancelled"].wait(60), "the generation went on after its client left"
        status, _, body = ask(server, "next")
        assert status == 200 and body["choices"][0]["message"]["content"] == "answer to next"
        assert server.service.jobs.status()["cancelled"] == 1


def test_a_full_queue_answers_429_with_retry_after(settings, stand_in):
    with serving(settings, queue=1) as server:
        replies = {}
        threads = [threading.Thread(target=lambda m=m: replies.__setitem__(m, ask(server, m))) for m in ("hold", "wait")]
        threads[0].start()
        while server.service.jobs.status()["running"] == 0:
            time.sleep(0.01)
        threads[1].start()
        while server.service.jobs.status()["waiting"] == 0:
            time.sleep(0.01)
        status, headers, body = ask(server, "one too many")
        assert status == 429 and body["error"]["type"] == "rate_limit_error" and int(headers["retry-after"]) >= 1
        stand_in["hold"].set()
        for t in threads:
            t.join(60)
        assert [replies[m][0] for m in ("hold", "wait")] == [200, 200]


@pytest.mark.parametrize("stream", [False, True])
def test_a_crashing_method_answers_500_in_one_line_and_the_server_goes_on(settings, stand_in, stream, capsys):
    with serving(settings) as server:
        status, _, body = ask(server, "crash", stream)
        if stream:  # the stream had started: the error comes as its event
            assert status == 200
            error = json.loads(body.split("data: ")[2].strip())["error"]
        else:
            assert status == 500
            error = body["error"]
        assert error["type"] == "server_error" and "the method broke" in error["message"] and "\n" not in error["message"]
        assert ask(server, "after")[0] == 200
    assert capsys.readouterr().err.count("k2desk serve: a request failed: RuntimeError") == 1


def test_stopping_cancels_an_answer_that_outlasts_the_drain(settings, stand_in, monkeypatch, capsys):
    monkeypatch.setattr("k2desk.serve.server.DRAIN_SECONDS", 1)
    with serving(settings) as server:
        conn, resp = events(server, {"model": "mixed", "messages": [{"role": "user", "content": "stream"}]},
                            read_all=False)
        while b"tok" not in resp.readline():
            pass
        server.stop()
        assert not server._thread.is_alive()
        assert stand_in["cancelled"].wait(30) and server.service.jobs.status()["running"] == 0
        rest = resp.read().decode()
        conn.close()
    error = json.loads(rest.split("data: ")[-2])["error"]  # the request is told, then the stream ends
    assert error["message"] == "the server is stopping" and error["code"] == "cancelled"
    assert rest.rstrip().endswith("data: [DONE]")
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.slow
def test_sigterm_lets_the_answer_in_flight_finish_then_exits_0(settings, tmp_path):
    import os
    import re
    import signal
    import subprocess
    import sys

    (settings.home / "settings.json").write_text(json.dumps({"llm": "smollm2-135m", "build_profile": "naive", "threads": 2}))
    env = {**os.environ, "K2DESK_HOME": str(settings.home), "K2DESK_MODELS": str(settings.models_dir)}
    proc = subprocess.Popen([sys.executable, "-m", "k2desk", "serve", "--port", "0"], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        port = int(re.search(r":(\d+)/v1", proc.stdout.readline()).group(1))

        class At:
            options = type("Options", (), {"port": port})

        conn, resp = events(At, {"model": "mixed/hybrid", "messages": [{"role": "user", "content": QUESTION}]},
                            read_all=False)
        assert resp.readline().startswith(b"data: ")  # the stream has begun
        proc.send_signal(signal.SIGTERM)
        rest = resp.read()
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert b'"finish_reason": "stop"' in rest and rest.rstrip().endswith(b"data: [DONE]")
    assert proc.returncode == 0 and "k2desk serve stopped after 1 request(s)" in out, err
