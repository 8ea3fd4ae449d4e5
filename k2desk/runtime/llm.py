"""The one LLM runtime: llama-cpp-python over a quantized GGUF file (GPU offload when built so).

* Prompts are rendered with the model's own chat template (from the GGUF), then completed with
  ``create_completion``, so token counts and context budgets are exact.
* JSON output is constrained by a grammar compiled from a JSON schema (``LlamaGrammar``); note
  that the OpenAI-style ``json_schema`` response_format key is silently ignored by 0.3.x. Greedy
  calls check the chosen token against the grammar first (``grammar_sampling``).
* The context never overflows ``n_ctx``: callers ask ``budget()`` how many tokens the context may
  take and ``truncate()`` it; the question is never cut.
* One model job at a time: a lock serializes every call (two llama.cpp jobs on the same cores
  slow each other down by an order of magnitude).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

from k2desk.config import in_bundle
from k2desk.errors import Cancelled, ModelError
from k2desk.progress import CancelToken
from k2desk.runtime import grammar_sampling
from k2desk.runtime.cpu_dispatch import load_cpu_backend
from k2desk.runtime.cuda import load_cuda_backend
from k2desk.runtime.llama_import import import_llama
from k2desk.types import LLMUsage

Message = dict[str, str]
TEMPLATE_MARGIN = 8  # tokens kept free besides the rendered prompt and the answer
PREREAD_PIECE = 16  # tokens read ahead at a time (~0.2 s of a 1.5B on 2 cores): what a question asked meanwhile waits
FIXED_MIN = 64  # tokens of a fixed beginning worth keeping its state (~10 MiB for a 1.5B's 390 tokens)


@dataclass
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    finish_reason: str = "stop"


class ChatModel:
    """What every answering model shares, local (``LLM``) or behind a server
    (``runtime.remote.RemoteLLM``): usage accounting, a streamed reply collected with cancel and
    token callbacks, JSON under a schema, plain completion. Subclasses give ``chat``."""

    total: LLMUsage

    def chat(self, messages: list[Message], max_tokens: int = 256, temperature: float = 0.0,
             schema: Optional[dict] = None, on_token: Optional[Callable[[str], None]] = None,
             usage: Optional[LLMUsage] = None, cancel: Optional[CancelToken] = None,
             stop: Optional[list[str]] = None, avoid: str = "", keep_state: bool = False) -> Completion:
        """The model's reply to ``messages``; with ``avoid`` (an earlier reply), one that does not
        begin with that reply's first token (a local model bars it from the first place only, a
        server through OpenAI's ``logit_bias`` from every place; a server without a tokenizer
        endpoint cannot bar it). ``keep_state``: a prompt asked again and again with the same
        beginning between other prompts (a follow-up's rewrite: every message but the last is the
        same each time) keeps its evaluated state, so the next one reads only what differs, in
        this process and, where the model keeps states on disk, in the next (a local model; a
        server keeps its own)."""
        raise NotImplementedError

    def preread(self, messages: list[Message], cancel: Optional[CancelToken] = None) -> int:
        """Read ahead, while the model is idle, the beginning of a prompt to come: ``messages`` as
        it will begin, its last message cut where the text still to come goes (a follow-up's rewrite
        before the follow-up is typed: the conversation is known). The next ``chat(keep_state=True)``
        whose prompt begins so reads only the rest. The tokens read (0: nothing to read ahead, as
        with a server, which keeps its own cache); stops between pieces when ``cancel`` is."""
        return 0

    def _spent(self, usage: Optional[LLMUsage], prompt_tokens: int, completion_tokens: int, reused: int = 0) -> None:
        """Count one call in the model's lifetime total and in the caller's ``usage``; ``reused``:
        its prompt tokens the model had evaluated already."""
        self.total.add(LLMUsage(1, prompt_tokens, completion_tokens, reused))
        if usage is not None:
            usage.add(LLMUsage(1, prompt_tokens, completion_tokens, reused))

    @staticmethod
    def _collect(parts: Iterable[tuple[str, Optional[str]]], on_token: Optional[Callable[[str], None]],
                 cancel: Optional[CancelToken], on_cancel: Optional[Callable[[str], None]] = None) -> tuple[str, str]:
        """(text, finish reason) of a streamed reply given as (piece, finish reason) pairs; each
        piece goes to ``on_token``; a cancel stops it between pieces, after ``on_cancel`` got the
        text so far (the call is counted: its prompt was read and its tokens were made)."""
        pieces: list[str] = []
        finish = "stop"
        for piece, reason in parts:
            if piece:
                pieces.append(piece)
                if on_token:
                    on_token(piece)
            if reason:
                finish = reason
            if cancel and cancel.cancelled:
                if on_cancel:
                    on_cancel("".join(pieces))
                raise Cancelled("cancelled by the user")
        return "".join(pieces), finish

    def json(self, messages: list[Message], schema: dict, max_tokens: int = 512,
             usage: Optional[LLMUsage] = None, cancel: Optional[CancelToken] = None) -> Optional[Any]:
        """A JSON value produced under ``schema``; None when the model's output does not parse
        (e.g. cut by ``max_tokens``) — callers treat that as "nothing extracted"."""
        out = self.chat(messages, max_tokens=max_tokens, schema=schema, usage=usage, cancel=cancel)
        try:
            return json.loads(out.text)
        except ValueError:
            return None


class LLM(ChatModel):
    def __init__(self, model_path: Path | str, n_ctx: int = 4096, gpu_layers: int = -1,
                 threads: Optional[int] = None, seed: int = 0, state_dir: Optional[Path] = None) -> None:
        """``state_dir``: where the states of fixed prompt beginnings are kept across processes
        (runtime.prefix_state; None: only within this process)."""
        self.path = Path(model_path)
        if not self.path.is_file():
            raise ModelError(f"model file not found: {self.path}; pass --llm with the path of a GGUF file"
                             + ("" if in_bundle() else " or run `k2desk models prepare`"))
        try:
            import_llama()  # a CUDA build's runtime libraries first
            from llama_cpp import Llama

            self.cpu_backend = load_cpu_backend(self.path)  # the variant for this CPU, when the build has several
            self.cuda = load_cuda_backend(announce=gpu_layers != 0)  # a CUDA build's GPU, or one line saying there is none
        except ImportError as exc:  # pragma: no cover - installation problem
            raise ModelError(f"llama-cpp-python is not installed ({exc}); run the README's setup command") from exc
        try:
            # flash attention: prompt eval of 3,000 tokens 171 vs 149 tok/s on 2 cores (AVX-512 level)
            self._llm = Llama(model_path=str(self.path), n_ctx=n_ctx, n_gpu_layers=gpu_layers, n_threads=threads,
                              n_threads_batch=threads, seed=seed, flash_attn=True, verbose=False)
        except Exception as exc:  # llama.cpp reports load failures as ValueError/RuntimeError
            raise ModelError(f"cannot load {self.path.name}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                             "; is it a complete GGUF file?") from exc
        # greedy decoding under a grammar checks the chosen token first, as llama.cpp does
        self.grammar_stats = grammar_sampling.install(self._llm)
        self.name = self.path.stem
        self.n_ctx = self._llm.n_ctx()
        self.gpu_layers = gpu_layers
        self._lock = threading.RLock()
        import llama_cpp

        from k2desk.runtime.models import file_sha256
        from k2desk.runtime.prefix_state import PrefixStates

        # the fixed beginnings' states (chat(keep_state=True)): in memory, and on disk with a state_dir;
        # a state is llama.cpp's for this build, context size and offload
        build = f"llama-cpp-python {llama_cpp.__version__}, n_ctx {self.n_ctx}, gpu layers {gpu_layers}, " \
                f"{'cuda' if self.cuda else 'cpu'}"
        self.states = PrefixStates(state_dir, lambda: file_sha256(self.path), build)
        self._grammars: dict[str, Any] = {}
        self._formatter = self._make_formatter()
        self.total = LLMUsage()  # every call of this model's lifetime (tests count calls with it)

    # -- templates and tokens ------------------------------------------------------------
    def _make_formatter(self):
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        template = self._llm.metadata.get("tokenizer.chat_template")
        if not template:
            return None
        vocab = self._llm._model  # noqa: SLF001 - token text lookups are only exposed there
        eos = vocab.token_get_text(self._llm.token_eos()) if self._llm.token_eos() >= 0 else ""
        bos = vocab.token_get_text(self._llm.token_bos()) if self._llm.token_bos() >= 0 else ""
        return Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos, add_generation_prompt=True)

    def render(self, messages: list[Message]) -> tuple[str, list[str]]:
        """The prompt text for ``messages`` and the template's stop strings."""
        if self._formatter is None:
            text = "".join(f"### {m['role'].capitalize()}:\n{m['content']}\n\n" for m in messages) + "### Assistant:\n"
            return text, ["### User:"]
        result = self._formatter(messages=messages)
        stop = result.stop if isinstance(result.stop, list) else ([result.stop] if result.stop else [])
        return result.prompt, stop

    def tokenize(self, text: str, special: bool = True) -> list[int]:
        return self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=special)

    def count_tokens(self, text: str) -> int:
        return len(self.tokenize(text, special=False))

    def truncate(self, text: str, max_tokens: int) -> str:
        """``text`` cut to at most ``max_tokens`` tokens (at a token boundary)."""
        if max_tokens <= 0:
            return ""
        tokens = self.tokenize(text, special=False)
        if len(tokens) <= max_tokens:
            return text
        return self._llm.detokenize(tokens[:max_tokens]).decode("utf-8", errors="ignore")

    def budget(self, messages: list[Message], max_tokens: int) -> int:
        """Tokens left for context once ``messages`` (without it) and the answer are counted."""
        prompt, _ = self.render(messages)
        return self.n_ctx - len(self.tokenize(prompt)) - max_tokens - TEMPLATE_MARGIN

    # -- generation ----------------------------------------------------------------------
    def chat(self, messages: list[Message], max_tokens: int = 256, temperature: float = 0.0,
             schema: Optional[dict] = None, on_token: Optional[Callable[[str], None]] = None,
             usage: Optional[LLMUsage] = None, cancel: Optional[CancelToken] = None,
             stop: Optional[list[str]] = None, avoid: str = "", keep_state: bool = False) -> Completion:
        prompt, template_stop = self.render(messages)
        tokens = self.tokenize(prompt)
        prompt_tokens = len(tokens)
        if prompt_tokens + max_tokens > self.n_ctx:
            max_tokens = self.n_ctx - prompt_tokens - 1
            if max_tokens <= 0:
                raise ModelError(f"prompt of {prompt_tokens} tokens does not fit the {self.n_ctx}-token context of {self.name}")
        kwargs: dict[str, Any] = dict(max_tokens=max_tokens, temperature=temperature, top_k=1 if temperature == 0 else 40,
                                      stop=(stop or []) + template_stop, stream=True)
        if schema is not None:
            kwargs["grammar"] = self._grammar(schema)
        if avoid:
            kwargs["logits_processor"] = _not_first(self.tokenize(avoid, special=False)[:1])
        t0 = time.perf_counter()
        with self._lock:
            if cancel:
                cancel.check()
            # what the context holds of the prompt is reused by llama-cpp-python (its prefix match);
            # a fixed beginning it does not hold is restored first (keep_state)
            read_first = self._fixed_beginning(messages, tokens) if keep_state and len(messages) > 1 else 0
            reused = self._reused(tokens) - read_first
            parts = ((p["choices"][0].get("text") or "", p["choices"][0].get("finish_reason"))
                     for p in self._llm.create_completion(prompt, **kwargs))
            text, finish = self._collect(parts, on_token, cancel, lambda partial: self._spent(
                usage, prompt_tokens, len(self.tokenize(partial, special=False)) if partial else 0, reused))
        completion_tokens = len(self.tokenize(text, special=False)) if text else 0
        self._spent(usage, prompt_tokens, completion_tokens, reused)
        return Completion(text.strip(), prompt_tokens, completion_tokens, time.perf_counter() - t0, finish)

    def first_token_logits(self, messages: list[Message], words: dict[str, list[str]],
                           usage: Optional[LLMUsage] = None, cancel: Optional[CancelToken] = None) -> dict[str, float]:
        """The model's score for each answer in ``words`` (name -> spellings) as the first token
        of its reply: the log-sum-exp of the raw logits of each spelling's first token. One
        forward pass over the prompt, no sampling; the evaluated prefix is reused as in ``chat``."""
        import numpy as np

        prompt, _ = self.render(messages)
        tokens = self.tokenize(prompt)
        with self._lock:
            if cancel:
                cancel.check()
            reused = self._reused(tokens)
            logits = self.next_logits(tokens)
            scores = {}
            for name, spellings in words.items():
                ids = sorted({self.tokenize(s, special=False)[0] for s in spellings})
                vals = logits[ids].astype(np.float64)
                scores[name] = float(vals.max() + np.log(np.exp(vals - vals.max()).sum()))
        self._spent(usage, len(tokens), 0, reused)
        return scores

    def preread(self, messages: list[Message], cancel: Optional[CancelToken] = None) -> int:
        from llama_cpp import Llama

        tokens = self.tokenize(self._beginning(messages))
        read = 0
        with self._lock:
            read += self._fixed_beginning(messages, tokens) if len(messages) > 1 else 0
            llm = self._llm
            llm.n_tokens = Llama.longest_token_prefix(llm.input_ids[: llm.n_tokens].tolist(), tokens)
        while llm.n_tokens < len(tokens):
            if cancel is not None and cancel.cancelled:
                break
            with self._lock:  # a piece at a time: a question asked meanwhile waits for one piece at most
                start = Llama.longest_token_prefix(llm.input_ids[: llm.n_tokens].tolist(), tokens)
                if start < llm.n_tokens:  # another prompt took the context meanwhile: it is not ours to fill
                    break
                piece = tokens[start: start + PREREAD_PIECE]
                llm.eval(piece)
                read += len(piece)
        return read

    def _beginning(self, messages: list[Message]) -> str:
        """``messages`` rendered up to the end of the last one's text: what a prompt that goes on
        from there (more text in the last message, then the template's close) begins with."""
        marker = "\x00K2DESK-PROMPT-END\x00"
        rendered, _ = self.render([*messages[:-1], {"role": messages[-1]["role"], "content": messages[-1]["content"] + marker}])
        return rendered.split(marker, 1)[0]

    def _fixed_beginning(self, messages: list[Message], tokens: list[int]) -> int:
        """Hold the evaluated state of ``messages``' fixed beginning (all but the last message,
        rendered up to the last one's text) before ``tokens`` are read: held already by the
        context, restored (runtime.prefix_state), or read now and kept. The tokens read here."""
        from llama_cpp import Llama

        from k2desk.runtime.prefix_state import llama_state, restore_llama_state

        text = self._beginning([*messages[:-1], {"role": messages[-1]["role"], "content": ""}])
        fixed = tokens[: Llama.longest_token_prefix(self.tokenize(text), tokens)]
        if len(fixed) < FIXED_MIN:
            return 0
        llm = self._llm
        if self._reused(tokens) >= len(fixed):  # the context holds it: kept once, from there
            if not self.states.has(text):
                llm.n_tokens = len(fixed)
                llm._ctx.kv_cache_seq_rm(-1, len(fixed), -1)  # noqa: SLF001 - the state after the beginning alone
                self.states.put(text, fixed, llama_state(llm))
            return 0
        if self.states.get(text, fixed, lambda state: restore_llama_state(llm, fixed, state)):
            return 0
        llm.n_tokens = Llama.longest_token_prefix(llm.input_ids[: llm.n_tokens].tolist(), fixed)
        read = len(fixed) - llm.n_tokens
        llm.eval(fixed[llm.n_tokens:])
        self.states.put(text, fixed, llama_state(llm))
        return read

    def _reused(self, tokens: list[int]) -> int:
        """How many of ``tokens`` the model will not read again: the prefix its context holds
        evaluated, less the last token, which is always read."""
        from llama_cpp import Llama

        llm = self._llm
        held = Llama.longest_token_prefix(llm.input_ids[: llm.n_tokens].tolist(), tokens)
        return max(0, min(held, len(tokens) - 1))

    def next_logits(self, tokens: list[int]) -> Any:
        """The raw logits (numpy, one per vocabulary entry) of the token after ``tokens``: the
        evaluated prefix the context already holds is reused (a prompt just read to write a reply
        is not read again), the rest evaluated; the last token always is, so its logits are read."""
        import numpy as np

        if len(tokens) >= self.n_ctx:
            raise ModelError(f"prompt of {len(tokens)} tokens does not fit the {self.n_ctx}-token context of {self.name}")
        with self._lock:
            llm = self._llm
            keep = 0
            for a, b in zip(llm.input_ids[: llm.n_tokens], tokens):
                if a != b:
                    break
                keep += 1
            llm.n_tokens = min(keep, len(tokens) - 1)
            llm.eval(tokens[llm.n_tokens:])
            return np.ctypeslib.as_array(llm._ctx.get_logits_ith(-1), shape=(llm.n_vocab(),))  # noqa: SLF001

    def _grammar(self, schema: dict):
        from llama_cpp import LlamaGrammar

        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            self._grammars[key] = LlamaGrammar.from_json_schema(key, verbose=False)
        return self._grammars[key]

    def close(self) -> None:
        llm = getattr(self, "_llm", None)
        if llm is not None:
            llm.close()
            self._llm = None


def _not_first(tokens: list[int]) -> list[Callable[[Any, Any], Any]]:
    """A logits processor that bars ``tokens`` from the reply's first place only (llama-cpp-python
    calls it once per generated token, before sampling)."""
    first = [True]

    def processor(input_ids: Any, scores: Any) -> Any:
        if first[0]:
            first[0] = False
            scores[tokens] = -float("inf")
        return scores

    return [processor]
