"""An LLM behind an OpenAI-compatible HTTP server (``--llm-url``): llama.cpp's ``llama-server``,
Ollama, LM Studio or vLLM, e.g. on the user's GPU box. Same interface as ``runtime.llm.LLM``.

* Only the address the user names is contacted (default none; the desktop app and the CLI take it
  from ``Settings.llm_url``); requests go through the standard library, no proxy from the
  environment (``ProxyHandler({})``), so a loopback server stays on this machine.
* ``POST /v1/chat/completions`` with ``stream: true``: tokens arrive as they are generated, a
  cancel closes the connection (the server stops the slot). JSON output is constrained with
  ``response_format: {"type": "json_schema", ...}`` (llama-server, vLLM, LM Studio, Ollama).
* Token counts: llama-server's ``/tokenize`` when the server has it (exact), else about four
  characters a token; prompt and completion counts come from the reply's ``usage``.
* Yes/No first-token scores: ``logprobs`` with ``top_logprobs`` of one generated token; an answer
  absent from the top list gets the lowest listed log-probability minus one.
* The context size is the server's (``/props``: llama-server) or ``n_ctx``.
"""

from __future__ import annotations

import json
import math
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Optional
from urllib.parse import urlsplit

from k2desk.errors import ModelError
from k2desk.progress import CancelToken
from k2desk.runtime.llm import TEMPLATE_MARGIN, ChatModel, Completion, Message
from k2desk.types import LLMUsage

TIMEOUT_S = 600
TOP_LOGPROBS = 20
CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 8  # template tokens around one message (role markers, separators)


class RemoteLLM(ChatModel):
    def __init__(self, url: str, model: str = "", n_ctx: int = 4096, api_key: str = "") -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ModelError(f"--llm-url must be an http(s) address like http://127.0.0.1:8080, not {url!r}")
        self.base = f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/').removesuffix('/v1')}"
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        self._headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {api_key}"} if api_key else {})}
        self._lock = threading.RLock()
        self.total = LLMUsage()
        self.gpu_layers = 0
        self.cpu_backend = "remote"
        self.path = None
        props = self._get("/props")
        self.model = model or self._model_name()
        self.name = self.model or parts.netloc
        settings = (props or {}).get("default_generation_settings") or {}
        self.n_ctx = int(props.get("n_ctx") or settings.get("n_ctx") or n_ctx) if props else n_ctx
        self._exact_tokens = self._post("/tokenize", {"content": "probe"}, quiet=True) is not None

    # -- HTTP ------------------------------------------------------------------------------
    def _request(self, path: str, payload: Optional[dict] = None):
        data = json.dumps(payload).encode() if payload is not None else None
        req = urllib.request.Request(self.base + path, data=data, headers=self._headers, method="POST" if data else "GET")
        return self._opener.open(req, timeout=TIMEOUT_S)

    def _get(self, path: str) -> Optional[dict]:
        try:
            with self._request(path) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError:
            return None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise ModelError(f"cannot reach the LLM server at {self.base}: {getattr(exc, 'reason', exc)}") from exc

    def _post(self, path: str, payload: dict, quiet: bool = False) -> Optional[dict]:
        try:
            with self._request(path, payload) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            if quiet:
                return None
            raise ModelError(f"the LLM server at {self.base} answered {exc.code} to {path}: {_reason(exc)}") from exc
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise ModelError(f"cannot reach the LLM server at {self.base}: {getattr(exc, 'reason', exc)}") from exc

    def _model_name(self) -> str:
        models = self._get("/v1/models") or {}
        data = models.get("data") or []
        return str(data[0].get("id", "")) if data and isinstance(data[0], dict) else ""

    # -- tokens ----------------------------------------------------------------------------
    def tokenize(self, text: str, special: bool = True) -> list[int]:
        if self._exact_tokens:
            out = self._post("/tokenize", {"content": text, "add_special": False, "parse_special": special})
            return list(out.get("tokens", [])) if out else []
        return list(range(math.ceil(len(text) / CHARS_PER_TOKEN)))  # a count, not ids

    def count_tokens(self, text: str) -> int:
        return len(self.tokenize(text, special=False)) if text else 0

    def truncate(self, text: str, max_tokens: int) -> str:
        if max_tokens <= 0:
            return ""
        if not self._exact_tokens:
            return text[: max_tokens * CHARS_PER_TOKEN]
        tokens = self.tokenize(text, special=False)
        if len(tokens) <= max_tokens:
            return text
        out = self._post("/detokenize", {"tokens": tokens[:max_tokens]})
        return (out or {}).get("content", text[: max_tokens * CHARS_PER_TOKEN])

    def _prompt_tokens(self, messages: list[Message]) -> int:
        return sum(self.count_tokens(m["content"]) + MESSAGE_OVERHEAD for m in messages)

    def budget(self, messages: list[Message], max_tokens: int) -> int:
        return self.n_ctx - self._prompt_tokens(messages) - max_tokens - TEMPLATE_MARGIN

    # -- generation ------------------------------------------------------------------------
    def _body(self, messages: list[Message], max_tokens: int, temperature: float, **extra: Any) -> dict:
        body = {"messages": messages, "max_tokens": max_tokens, "temperature": temperature, "seed": 0, **extra}
        if self.model:
            body["model"] = self.model
        return body

    def chat(self, messages: list[Message], max_tokens: int = 256, temperature: float = 0.0,
             schema: Optional[dict] = None, on_token: Optional[Callable[[str], None]] = None,
             usage: Optional[LLMUsage] = None, cancel: Optional[CancelToken] = None,
             stop: Optional[list[str]] = None, avoid: str = "", keep_state: bool = False) -> Completion:
        estimate = self._prompt_tokens(messages)
        if estimate + max_tokens > self.n_ctx:
            max_tokens = self.n_ctx - estimate - 1
            if max_tokens <= 0:
                raise ModelError(f"prompt of ~{estimate} tokens does not fit the {self.n_ctx}-token context of {self.name}")
        extra: dict[str, Any] = {"stream": True, "stream_options": {"include_usage": True}}
        if stop:
            extra["stop"] = stop
        if avoid and self._exact_tokens:  # a server bars the token everywhere, not only first (OpenAI's logit_bias)
            extra["logit_bias"] = {str(t): -100 for t in self.tokenize(avoid, special=False)[:1]}
        if schema is not None:
            extra["response_format"] = {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}
        counted: dict = {}

        def parts(resp):
            for event in _events(resp):
                counted.update(event.get("usage") or {})
                for choice in event.get("choices") or [{}]:  # the usage event has none: a cancel check
                    yield (choice.get("delta") or {}).get("content") or "", choice.get("finish_reason")

        t0 = time.perf_counter()
        with self._lock:
            if cancel:
                cancel.check()
            try:
                with self._request("/v1/chat/completions", self._body(messages, max_tokens, temperature, **extra)) as resp:
                    text, finish = self._collect(parts(resp), on_token, cancel,
                                                 lambda partial: self._spent(usage, estimate, self.count_tokens(partial)))
            except urllib.error.HTTPError as exc:
                raise ModelError(f"the LLM server at {self.base} answered {exc.code}: {_reason(exc)}") from exc
            except (urllib.error.URLError, OSError) as exc:
                raise ModelError(f"cannot reach the LLM server at {self.base}: {getattr(exc, 'reason', exc)}") from exc
        prompt_tokens = int(counted.get("prompt_tokens") or estimate)
        completion_tokens = int(counted.get("completion_tokens") or self.count_tokens(text))
        self._spent(usage, prompt_tokens, completion_tokens)
        return Completion(text.strip(), prompt_tokens, completion_tokens, time.perf_counter() - t0, finish)

    def first_token_logits(self, messages: list[Message], words: dict[str, list[str]],
                           usage: Optional[LLMUsage] = None, cancel: Optional[CancelToken] = None) -> dict[str, float]:
        """Each answer's log-probability as the first token of the reply (its spellings' summed
        probability among the server's top log-probabilities); the differences between answers
        are what the reader uses, as with the local model's logits."""
        with self._lock:
            if cancel:
                cancel.check()
            reply = self._post("/v1/chat/completions",
                               self._body(messages, 1, 0.0, logprobs=True, top_logprobs=TOP_LOGPROBS))
        choice = ((reply or {}).get("choices") or [{}])[0]
        content = ((choice.get("logprobs") or {}).get("content") or [{}])[0]
        top = {str(t.get("token", "")): float(t.get("logprob", -math.inf)) for t in content.get("top_logprobs") or []}
        if not top:
            raise ModelError(f"the LLM server at {self.base} returns no log-probabilities; yes/no checks need them "
                             "(llama-server, vLLM and LM Studio do)")
        floor = min(top.values()) - 1.0
        scores = {}
        for name, spellings in words.items():
            found = [lp for tok, lp in top.items() if any(tok.strip() and s.strip().startswith(tok.strip()) for s in spellings)]
            scores[name] = math.log(sum(math.exp(lp) for lp in found)) if found else floor
        counted = (reply or {}).get("usage") or {}
        self._spent(usage, int(counted.get("prompt_tokens") or self._prompt_tokens(messages)), 0)
        return scores

    def close(self) -> None:
        self._opener = None  # type: ignore[assignment]


def _events(resp):
    """The JSON objects of a server-sent event stream (``data: {...}`` lines, ``[DONE]`` ends)."""
    for raw in resp:
        line = raw.decode("utf-8", errors="replace").strip()
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            return
        try:
            yield json.loads(data)
        except ValueError:
            continue


def _reason(exc: urllib.error.HTTPError) -> str:
    try:
        body = json.loads(exc.read() or b"{}")
        error = body.get("error")
        return str(error.get("message") if isinstance(error, dict) else error or exc.reason)
    except (ValueError, OSError):
        return str(exc.reason)
