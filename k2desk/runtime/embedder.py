"""ONNX sentence embeddings (onnxruntime + tokenizers; no torch at run time).

Mean pooling over the attention mask and L2 normalization, as sentence-transformers does for
all-MiniLM-L6-v2. The same tokenizer gives the word-piece spans used to chunk text by tokens.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import numpy as np

from k2desk.config import prepare_hint
from k2desk.errors import ModelError
from k2desk.progress import NEVER, CancelToken, Progress, progress_or_noop

DEFAULT_MAX_TOKENS = 256
PAD_SLACK_CHARS = 32  # a batch takes texts up to twice its shortest text's length plus this


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        return {}


def default_providers() -> list[str]:
    """onnxruntime's CUDA provider when it has one (onnxruntime-gpu), then the CPU provider."""
    import onnxruntime as ort

    available = ort.get_available_providers()
    return (["CUDAExecutionProvider"] if "CUDAExecutionProvider" in available else []) + ["CPUExecutionProvider"]


class Embedder:
    def __init__(self, model_dir: Path, threads: Optional[int] = None, providers: Optional[list[str]] = None):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.model_dir = Path(model_dir)
        fix = prepare_hint("all-minilm-l6-v2")
        onnx_path, tok_path = self.model_dir / "model.onnx", self.model_dir / "tokenizer.json"
        for p in (onnx_path, tok_path):
            if not p.is_file():
                raise ModelError(f"embedder file not found: {p}; {fix}")
        record = _read_json(self.model_dir / "k2desk-export.json")
        self.name: str = record.get("name") or self.model_dir.name

        opts = ort.SessionOptions()
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")  # no busy-wait: the LLM shares the cores
        if threads:
            opts.intra_op_num_threads = int(threads)
            opts.inter_op_num_threads = 1
        if providers is None:
            providers = default_providers()
        try:
            self._session = ort.InferenceSession(str(onnx_path), opts, providers=providers)
            self._tok = Tokenizer.from_file(str(tok_path))
            self._span_tok = Tokenizer.from_file(str(tok_path))
        except Exception as exc:  # onnxruntime/tokenizers raise their own types
            detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise ModelError(f"cannot load the embedder in {self.model_dir}: {detail}; delete the folder and {fix}") from exc
        self._inputs = {i.name for i in self._session.get_inputs()}
        if "input_ids" not in self._inputs:
            raise ModelError(f"{onnx_path} has no input_ids input; it is not a sentence embedder; {fix}")
        out = self._session.get_outputs()
        names = [o.name for o in out]
        self._output = "last_hidden_state" if "last_hidden_state" in names else names[0]

        st = _read_json(self.model_dir / "sentence_bert_config.json")
        cfg = _read_json(self.model_dir / "config.json")
        self.max_tokens: int = int(st.get("max_seq_length") or DEFAULT_MAX_TOKENS)
        if cfg.get("max_position_embeddings"):
            self.max_tokens = min(self.max_tokens, int(cfg["max_position_embeddings"]))
        self._tok.no_padding()
        self._tok.enable_truncation(self.max_tokens)
        self._span_tok.no_padding()
        self._span_tok.no_truncation()
        pad_id = self._tok.token_to_id("[PAD]")
        self._pad_id = 0 if pad_id is None else pad_id

        shape = next(o.shape for o in out if o.name == self._output)
        dim = shape[-1] if shape else None
        self.dim: int = dim if isinstance(dim, int) else int(self._run(["dimension probe"]).shape[1])

    @property
    def providers(self) -> list[str]:
        """The execution providers the session runs on, best first (a CUDA provider that cannot
        start is not among them)."""
        return list(self._session.get_providers())

    # -- embeddings --------------------------------------------------------------------
    def _run(self, texts: list[str]) -> np.ndarray:
        encs = self._tok.encode_batch(texts)
        width = max(len(e.ids) for e in encs)
        ids = np.full((len(encs), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(encs), width), dtype=np.int64)
        for row, e in enumerate(encs):
            ids[row, : len(e.ids)] = e.ids
            mask[row, : len(e.ids)] = 1
        feeds = {"input_ids": ids}
        if "attention_mask" in self._inputs:
            feeds["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run([self._output], feeds)[0].astype(np.float32, copy=False)
        if hidden.ndim == 3:  # token embeddings: mean over real tokens
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        else:  # the graph already pools
            pooled = hidden
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def embed(self, texts: list[str], batch_size: int = 32, progress: Optional[Progress] = None,
              cancel: Optional[CancelToken] = None) -> np.ndarray:
        """float32 (n, dim), L2-normalized, in input order; texts longer than max_tokens are truncated."""
        progress, cancel = progress_or_noop(progress), cancel or NEVER
        texts = list(texts)
        result = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return result
        # sorted by length, and a batch ends where a text is more than twice its first's length, so
        # that each batch pads little (character length is a good proxy): a question embedded with
        # its keywords runs as two batches, not as every keyword padded to the question's length
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        batch_size = max(1, int(batch_size))
        start = 0
        while start < len(order):
            cancel.check()
            limit, end = 2 * len(texts[order[start]]) + PAD_SLACK_CHARS, start + 1
            while end < len(order) and end - start < batch_size and len(texts[order[end]]) <= limit:
                end += 1
            idx = order[start:end]
            result[idx] = self._run([texts[i] for i in idx])
            progress("embed", end, len(texts))
            start = end
        return result

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    # -- tokens ------------------------------------------------------------------------
    def token_spans(self, text: str) -> list[tuple[int, int]]:
        """Character (start, end) of every word-piece token of text; no special tokens, no truncation."""
        return [tuple(o) for o in self._span_tok.encode(text, add_special_tokens=False).offsets]

    def count_tokens(self, text: str) -> int:
        return len(self._span_tok.encode(text, add_special_tokens=False).ids)


def export_onnx(src: Path, out: Path, name: str = "the embedder") -> dict:
    """Build time only (torch + optimum-onnx, the ``k2desk[export]`` extra): export a local
    sentence-transformers checkpoint to ``out/model.onnx`` (last_hidden_state) plus its tokenizer
    files, offline. Returns the versions used, for the export record."""
    import logging
    import os
    import shutil
    import warnings

    os.environ["HF_HUB_OFFLINE"] = os.environ["TRANSFORMERS_OFFLINE"] = "1"
    from importlib import metadata

    from optimum.exporters.onnx import main_export

    quiet = [logging.getLogger(n) for n in ("optimum", "transformers")]
    levels = [q.level for q in quiet]
    try:
        for q in quiet:  # tracer and deprecation chatter a person cannot act on
            q.setLevel(logging.ERROR)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # library "transformers": the plain encoder (pooling is done here, in numpy), not sentence-transformers'
            main_export(str(src), str(out), task="feature-extraction", device="cpu", library_name="transformers",
                        local_files_only=True, do_validation=True)
    except Exception as exc:  # optimum raises many kinds; the first line is what a person needs
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ModelError(f"ONNX export of {name} failed: {first}; check the versions of pip install 'k2desk[export]'") from exc
    finally:
        for q, level in zip(quiet, levels):
            q.setLevel(level)
    for extra in ("sentence_bert_config.json", "modules.json", "1_Pooling/config.json"):
        if (Path(src) / extra).is_file():
            (Path(out) / extra).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(Path(src) / extra, Path(out) / extra)
    return {d: metadata.version(d) for d in ("optimum-onnx", "optimum", "torch", "transformers", "onnx")}
