"""A prompt's fixed beginning, read once per model: kept in memory, and on disk across processes
(issue 72).

Some prompts begin with the same instructions and worked examples every time (a follow-up's
rewrite: ~390 tokens, ~4 s of reading on two cores). Once read, the model's evaluated state after
that beginning (llama.cpp's KV cache: ~10 MiB for the 1.5B) is kept: in this process (restored in
milliseconds: llama-cpp-python's own RAM cache took 1.1 s to restore, copying its logits array),
and in one file per beginning that a later process restores (each `k2desk ask --thread` is one).

A state is used only for the model and the text it was made from: its file is named by the
sha256 of the model file, the llama.cpp build and the prefix text, and its header repeats them
with the tokens and the state's own sha256, all checked again on reading. A file that does not
read back (cut short, changed on disk, another build's format) is removed with one line on
stderr, and the prompt is read as if there had been none. Files are written whole or not at all
(a temporary file renamed). They hold k2desk's own instructions, never a document or a question.
"""

from __future__ import annotations

import collections
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

MAGIC = b"K2STATE1\n"
STATES_MAX = 16  # files kept per folder (the oldest go): a few prompts per model, a few models
MEMORY_BYTES = 64 << 20  # states kept in memory per model (the least recently used go)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class PrefixStates:
    """The prefix states of one model, in memory and (``folder`` not None) on disk;
    ``model_sha256`` is read when a file is first needed (a model's hash is remembered by size and
    mtime, runtime.models.file_sha256)."""

    def __init__(self, folder: Optional[Path], model_sha256: Callable[[], str], build: str,
                 memory_bytes: int = MEMORY_BYTES) -> None:
        self.folder = Path(folder) if folder is not None else None
        self._memory: collections.OrderedDict[str, tuple[list[int], bytes]] = collections.OrderedDict()
        self.memory_bytes = memory_bytes
        self._model_sha256 = model_sha256
        self._sha: Optional[str] = None
        self.build = build  # llama.cpp's build (its state format): llama-cpp-python's version
        self.restored = 0  # states read back from disk in this process (tests and benchmarks read it)
        self.saved = 0  # states written to disk
        self.recalled = 0  # states restored from memory

    def get(self, text: str, tokens: list[int], restore: Callable[[bytes], None]) -> bool:
        """Restore the state of ``text`` (whose tokens are ``tokens``) through ``restore(state
        bytes)``: from memory, else from its file; False when neither holds it."""
        kept = self._memory.get(text)
        if kept is not None and kept[0] == tokens:
            self._memory.move_to_end(text)
            restore(kept[1])
            self.recalled += 1
            return True
        found: list[bytes] = []
        if self.folder is None or not self.load(text, tokens, lambda state: (restore(state), found.append(state))):
            return False
        self._remember(text, tokens, found[0])
        return True

    def has(self, text: str) -> bool:
        """Whether a state of ``text`` is kept (in memory, or a file for it)."""
        return text in self._memory or (self.folder is not None and self.path(text).is_file())

    def put(self, text: str, tokens: list[int], state: bytes) -> None:
        """Keep ``state``, the model's state after ``tokens`` (the tokens of ``text``)."""
        self._remember(text, tokens, state)
        if self.folder is not None:
            self.save(text, tokens, state)

    def _remember(self, text: str, tokens: list[int], state: bytes) -> None:
        self._memory[text] = (list(tokens), state)
        self._memory.move_to_end(text)
        while len(self._memory) > 1 and sum(len(s) for _, s in self._memory.values()) > self.memory_bytes:
            self._memory.popitem(last=False)

    @property
    def model_sha256(self) -> str:
        if self._sha is None:
            self._sha = self._model_sha256()
        return self._sha

    def header(self, text: str, tokens: list[int]) -> dict[str, Any]:
        return {"model_sha256": self.model_sha256, "build": self.build, "prefix_sha256": _sha(text),
                "tokens": len(tokens), "tokens_sha256": _sha(" ".join(map(str, tokens)))}

    def path(self, text: str) -> Path:
        assert self.folder is not None
        return self.folder / f"{_sha(self.model_sha256 + '|' + self.build + '|' + text)[:40]}.state"

    def load(self, text: str, tokens: list[int], restore: Callable[[bytes], None]) -> bool:
        """Restore the state saved for ``text`` (whose tokens are ``tokens``) through
        ``restore(state bytes)``; False when there is none or it does not read back (removed)."""
        path = self.path(text)
        if not path.is_file():
            return False
        try:
            with path.open("rb") as f:
                if f.readline() != MAGIC:
                    raise ValueError("not a k2desk prompt state")
                head = json.loads(f.readline())
                if head != {**self.header(text, tokens), "state_bytes": head.get("state_bytes"),
                            "state_sha256": head.get("state_sha256")}:
                    raise ValueError("made for another model, build or prompt")
                state = f.read()
            if len(state) != head["state_bytes"] or not state:
                raise ValueError(f"{len(state)} bytes of {head['state_bytes']}")
            if hashlib.sha256(state).hexdigest() != head["state_sha256"]:
                raise ValueError("its bytes changed since it was written")
            restore(state)
        except Exception as exc:  # noqa: BLE001 - any unreadable state is discarded, never fatal
            print(f"k2desk: a saved prompt state could not be read ({str(exc).splitlines()[0][:120] or type(exc).__name__});"
                  f" it is removed and the prompt is read again: {path.name}", file=sys.stderr, flush=True)
            path.unlink(missing_ok=True)
            return False
        self.restored += 1
        return True

    def save(self, text: str, tokens: list[int], state: bytes) -> Optional[Path]:
        """Write ``state`` (the model's state after ``tokens``, the tokens of ``text``); None when
        the folder cannot be written (the state is then read again next time: nothing is lost)."""
        path = self.path(text)
        head = {**self.header(text, tokens), "state_bytes": len(state), "state_sha256": hashlib.sha256(state).hexdigest()}
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".part")
            with os.fdopen(fd, "wb") as f:
                f.write(MAGIC + json.dumps(head, sort_keys=True).encode() + b"\n" + state)
            os.replace(tmp, path)
        except OSError:
            return None
        self.saved += 1
        self._prune()
        return path

    def _prune(self) -> None:
        assert self.folder is not None
        files = sorted(self.folder.glob("*.state"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in files[STATES_MAX:]:
            old.unlink(missing_ok=True)


def llama_state(llm: Any) -> bytes:
    """The llama.cpp context's state (its KV cache and what goes with it) as bytes."""
    import ctypes

    import llama_cpp

    size = llama_cpp.llama_state_get_size(llm.ctx)
    buffer = (ctypes.c_uint8 * int(size))()
    written = llama_cpp.llama_state_get_data(llm.ctx, buffer, size)
    if int(written) > int(size) or int(written) <= 0:
        raise RuntimeError("llama.cpp did not give its state")
    return bytes(buffer[: int(written)])


def restore_llama_state(llm: Any, tokens: list[int], state: bytes) -> None:
    """Set a llama-cpp-python ``Llama``'s context to ``state``, made after reading ``tokens``
    (its sampling reads logits afresh: the next call evaluates at least one token)."""
    import ctypes

    import llama_cpp

    buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
    if int(llama_cpp.llama_state_set_data(llm.ctx, buffer, len(state))) != len(state):
        llm.reset()
        raise ValueError("llama.cpp did not take the state")
    llm.input_ids[: len(tokens)] = np.asarray(tokens, dtype=np.intc)
    llm.n_tokens = len(tokens)
    llm._requires_eval = True  # noqa: SLF001 - the restored logits are not a live decode's
