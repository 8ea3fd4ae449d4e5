"""Recorded LLM replies: a model that answers each prompt with what a real model answered it once.

``ReplayLLM(model, path)`` wraps a real ``LLM`` (its tokenizer counts and cuts exactly as when the
replies were recorded, so the methods build the same prompts) and answers ``chat`` and
``first_token_logits`` from a JSON file keyed by the rendered prompt, the schema, the token
limit and the stop words. ``record=True`` asks the real model for what is missing and writes it
down; without it a prompt never seen is an error naming what to do, so a test that changes a
prompt cannot pass on a stale reply. The methods' tests use it to assert what the answer and the
trace contain, offline, in seconds, with the default model's real replies.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any, Callable, Optional

from k2desk.errors import ModelError
from k2desk.progress import CancelToken
from k2desk.runtime.llm import ChatModel, Completion, Message
from k2desk.types import LLMUsage


class ReplayLLM(ChatModel):
    def __init__(self, model: ChatModel, path: Path | str, record: bool = False) -> None:
        self.model = model
        self.path = Path(path)
        self.record = record
        self.total = LLMUsage()
        self.replies: dict[str, dict[str, Any]] = (json.loads(self.path.read_text(encoding="utf-8"))
                                                   if self.path.is_file() else {})
        self.used: set[str] = set()
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:  # tokenizer, budgets, context size: the real model's
        return getattr(self.model, name)

    def _key(self, kind: str, messages: list[Message], **options: Any) -> str:
        prompt, _ = self.model.render(messages)  # type: ignore[attr-defined]
        blob = json.dumps({"kind": kind, "prompt": prompt, **options}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:24]

    def _reply(self, key: str, ask: Callable[[], dict[str, Any]], what: str) -> dict[str, Any]:
        with self._lock:
            self.used.add(key)
            if key not in self.replies:
                if not self.record:
                    raise ModelError(f"no recorded reply for this {what} in {self.path.name} (a prompt changed?); "
                                     "record again with K2DESK_RECORD=1")
                self.replies[key] = ask()
                self.save()
            return self.replies[key]

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(dict(sorted(self.replies.items())), indent=1, ensure_ascii=False) + "\n",
                             encoding="utf-8")

    def chat(self, messages: list[Message], max_tokens: int = 256, temperature: float = 0.0,
             schema: Optional[dict] = None, on_token: Optional[Callable[[str], None]] = None,
             usage: Optional[LLMUsage] = None, cancel: Optional[CancelToken] = None,
             stop: Optional[list[str]] = None, avoid: str = "", keep_state: bool = False) -> Completion:
        key = self._key("chat", messages, max_tokens=max_tokens, schema=schema, stop=stop or [],
                        **({"avoid": avoid} if avoid else {}))

        def ask() -> dict[str, Any]:
            out = self.model.chat(messages, max_tokens=max_tokens, temperature=temperature, schema=schema, stop=stop,
                                  avoid=avoid, keep_state=keep_state)
            return {"text": out.text, "prompt_tokens": out.prompt_tokens, "completion_tokens": out.completion_tokens,
                    "finish_reason": out.finish_reason}

        reply = self._reply(key, ask, "prompt")
        if cancel:
            cancel.check()
        text, _ = self._collect([(reply["text"], reply["finish_reason"])], on_token, cancel)
        self._spent(usage, reply["prompt_tokens"], reply["completion_tokens"])
        return Completion(text, reply["prompt_tokens"], reply["completion_tokens"], 0.0, reply["finish_reason"])

    def first_token_logits(self, messages: list[Message], words: dict[str, list[str]],
                           usage: Optional[LLMUsage] = None, cancel: Optional[CancelToken] = None) -> dict[str, float]:
        key = self._key("scores", messages, words=words)

        def ask() -> dict[str, Any]:
            scores = self.model.first_token_logits(messages, words)  # type: ignore[attr-defined]
            return {"scores": scores, "prompt_tokens": self.model.count_tokens(self.model.render(messages)[0])}  # type: ignore[attr-defined]

        reply = self._reply(key, ask, "yes/no prompt")
        self._spent(usage, reply["prompt_tokens"], 0)
        return dict(reply["scores"])
