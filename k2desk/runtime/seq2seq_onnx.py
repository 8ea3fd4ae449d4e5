"""Run a seq2seq summarizer exported to ONNX (BART, T5, LED, ...): onnxruntime + tokenizers only.

Loads what ``k2desk.runtime.export.export_seq2seq`` (or optimum's exporter) writes: encoder_model.onnx,
decoder_model_merged.onnx or decoder_model.onnx + decoder_with_past_model.onnx, tokenizer.json,
config.json / generation_config.json (token ids) and k2desk-export.json (LED padding rule).
Generation follows transformers' ``generate`` (greedy and beam search, same logits processors
and length rules) so that the same model gives the same tokens here and in transformers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import numpy as np

from k2desk.errors import ModelError
from k2desk.progress import NEVER, CancelToken

_NEG = -1.0e9


def _read_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ModelError(f"cannot read {path}: {e}") from None


def _log_softmax(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float32, copy=False)
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


class Seq2SeqOnnxModel:
    """The ONNX sessions, tokenizer and token ids of one exported seq2seq model."""

    def __init__(self, model_dir: Path, threads: Optional[int] = None) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.dir = d = Path(model_dir)
        if not (d / "encoder_model.onnx").is_file():
            raise ModelError(f"no encoder_model.onnx in {d}; run `k2desk models export-summarizer SRC`")
        if not (d / "tokenizer.json").is_file():
            raise ModelError(f"no tokenizer.json in {d}; re-run `k2desk models export-summarizer SRC`")
        self.config = _read_json(d / "config.json")
        self.gen = {**self.config, **_read_json(d / "generation_config.json")}
        self.manifest = _read_json(d / "k2desk-export.json")
        opts = ort.SessionOptions()
        if threads:
            opts.intra_op_num_threads = int(threads)
        opts.inter_op_num_threads = 1
        # no busy-waiting between steps: the LLM and the GUI share these cores
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")

        def session(name: str):
            try:
                return ort.InferenceSession(str(d / name), opts, providers=["CPUExecutionProvider"])
            except Exception as e:  # noqa: BLE001 - onnxruntime raises its own exception types
                raise ModelError(f"cannot load {d / name}: {str(e).splitlines()[0]}") from None

        self.encoder = session("encoder_model.onnx")
        if (d / "decoder_model_merged.onnx").is_file():
            self.decoder, self.decoder_with_past = session("decoder_model_merged.onnx"), None
            self.merged = True
        elif (d / "decoder_model.onnx").is_file() and (d / "decoder_with_past_model.onnx").is_file():
            self.decoder = session("decoder_model.onnx")
            self.decoder_with_past = session("decoder_with_past_model.onnx")
            self.merged = False
        else:
            raise ModelError(f"no ONNX decoder in {d}; re-run `k2desk models export-summarizer SRC`")
        self._dec_inputs = {i.name: i for i in self.decoder.get_inputs()}
        self._dec_past_inputs = (
            {i.name for i in self.decoder_with_past.get_inputs()} if self.decoder_with_past else set())
        self.tokenizer = Tokenizer.from_file(str(d / "tokenizer.json"))
        self.tokenizer.no_padding()

        g = self.gen
        eos = g.get("eos_token_id")
        self.eos_ids = [int(e) for e in (eos if isinstance(eos, list) else [eos]) if e is not None]
        self.pad_id = int(g["pad_token_id"]) if g.get("pad_token_id") is not None else (
            self.eos_ids[0] if self.eos_ids else 0)
        start = g.get("decoder_start_token_id")
        self.decoder_start_id = int(start) if start is not None else self.pad_id
        self.forced_bos_id = g.get("forced_bos_token_id")
        self.forced_eos_id = g.get("forced_eos_token_id")
        self.pad_multiple = int(self.manifest.get("led", {}).get("pad_to_multiple_of") or 1)
        # LED pads to a multiple of its window: keep the padded length within its positions
        self.max_input_tokens = max(self.pad_multiple,
                                    self._max_input_tokens() // self.pad_multiple * self.pad_multiple)
        self.tokenizer.enable_truncation(self.max_input_tokens)
        # T5-style models are trained with a task prefix ("summarize: ")
        task = (self.config.get("task_specific_params") or {}).get("summarization") or {}
        self.prefix = str(task.get("prefix") or "")

    def _max_input_tokens(self) -> int:
        for value in (self.manifest.get("max_input_tokens"),
                      self.config.get("max_encoder_position_embeddings"),
                      self.config.get("max_position_embeddings"),
                      _read_json(self.dir / "tokenizer_config.json").get("model_max_length")):
            if isinstance(value, (int, float)) and 0 < value < 1_000_000:
                return int(value)
        return 512  # relative-position models (T5) have no hard limit; their training length

    # ------------------------------------------------------------ tensors

    def tokenize(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Token ids and mask, truncated to the model's input length, right-padded to the batch
        length and, for LED, to a multiple of the attention window."""
        rows = [e.ids or [self.eos_ids[0] if self.eos_ids else self.pad_id]
                for e in self.tokenizer.encode_batch([self.prefix + t for t in texts])]
        length = max(len(r) for r in rows)
        length = -(-length // self.pad_multiple) * self.pad_multiple
        ids = np.full((len(rows), length), self.pad_id, dtype=np.int64)
        mask = np.zeros((len(rows), length), dtype=np.int64)
        for i, r in enumerate(rows):
            ids[i, : len(r)] = r
            mask[i, : len(r)] = 1
        return ids, mask

    def encode(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        names = {i.name for i in self.encoder.get_inputs()}
        feeds = {"input_ids": input_ids.astype(np.int64), "attention_mask": attention_mask.astype(np.int64)}
        return self.encoder.run(None, {k: v for k, v in feeds.items() if k in names})[0]

    def _empty_past(self, batch: int) -> dict[str, np.ndarray]:
        past = {}
        for name, info in self._dec_inputs.items():
            if name.startswith("past_key_values."):
                heads, dim = info.shape[1], info.shape[3]
                if not isinstance(heads, int) or not isinstance(dim, int):
                    raise ModelError(f"cannot size the empty cache of {self.dir}: shape {info.shape}")
                past[name] = np.zeros((batch, heads, 0, dim), dtype=np.float32)
        return past

    def decode(self, decoder_ids: np.ndarray, hidden: np.ndarray, mask: np.ndarray,
               past: Optional[dict[str, np.ndarray]] = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Logits (batch, len, vocab) for ``decoder_ids`` and the new cache.

        ``past`` None: the first call (the whole decoder prefix); else one new token per row."""
        feeds: dict[str, Any] = {"input_ids": decoder_ids.astype(np.int64),
                                 "encoder_attention_mask": mask.astype(np.int64),
                                 "encoder_hidden_states": hidden}
        if self.merged:
            feeds["use_cache_branch"] = np.array([past is not None])
            feeds.update(past if past is not None else self._empty_past(decoder_ids.shape[0]))
            sess, names = self.decoder, set(self._dec_inputs)
        elif past is None:
            sess, names = self.decoder, set(self._dec_inputs)
        else:
            feeds.update(past)
            sess, names = self.decoder_with_past, self._dec_past_inputs
        out_names = [o.name for o in sess.get_outputs()]
        outs = dict(zip(out_names, sess.run(None, {k: v for k, v in feeds.items() if k in names})))
        new_past = dict(past) if past is not None else {}
        for name, value in outs.items():
            if name.startswith("present.") and (past is None or ".encoder." not in name):
                new_past["past_key_values." + name[len("present."):]] = value
        return outs["logits"], new_past


class OnnxSeq2SeqSummarizer:
    """Summaries from an exported seq2seq model: greedy (num_beams=1) or beam search, with a cache."""

    def __init__(self, model_dir: Path, threads: Optional[int] = None, num_beams: int = 1,
                 min_tokens: int = 0, no_repeat_ngram_size: int = 3, length_penalty: float = 1.0,
                 early_stopping: Optional[bool | str] = None,
                 repetition_penalty: Optional[float] = None) -> None:
        self.model = Seq2SeqOnnxModel(Path(model_dir), threads)
        self.name = f"onnx:{Path(model_dir).name}"
        self.num_beams = max(1, int(num_beams))
        self.min_tokens = max(0, int(min_tokens))
        self.no_repeat_ngram_size = int(no_repeat_ngram_size or 0)
        self.length_penalty = float(length_penalty)
        gen = self.model.gen
        self.early_stopping = early_stopping if early_stopping is not None else gen.get("early_stopping", False)
        self.repetition_penalty = float(repetition_penalty if repetition_penalty is not None
                                        else gen.get("repetition_penalty") or 1.0)

    def summarize(self, text: str, max_tokens: int = 200, cancel: Optional[CancelToken] = None, usage=None) -> str:
        """``usage`` is accepted and left alone: no LLM is called."""
        ids = self.generate(text, max_tokens, cancel)
        return self.model.tokenizer.decode(ids, skip_special_tokens=True).strip()

    def generate(self, text: str, max_tokens: int = 200, cancel: Optional[CancelToken] = None) -> list[int]:
        """Token ids of the summary: decoder start token first, as transformers returns them."""
        cancel = cancel or NEVER
        cancel.check()
        ids, mask = self.model.tokenize([text])
        hidden = self.model.encode(ids, mask)
        max_length = 1 + max(1, int(max_tokens))
        if self.num_beams == 1:
            return self._greedy(hidden, mask, max_length, cancel)
        return self._beam(hidden, mask, max_length, cancel)

    # ------------------------------------------------------------ logits processors

    def _process(self, seq: list[int], scores: np.ndarray, max_length: int) -> np.ndarray:
        """transformers' processors, in its order: repetition penalty, no-repeat n-gram,
        min new tokens, forced BOS, forced EOS (``scores`` is one row, changed in place)."""
        m, cur_len = self.model, len(seq)
        if self.repetition_penalty != 1.0:
            prev = np.unique(np.asarray(seq))
            s = scores[prev]
            scores[prev] = np.where(s < 0, s * self.repetition_penalty, s / self.repetition_penalty)
        n = self.no_repeat_ngram_size
        if n > 0 and cur_len + 1 >= n:
            prefix = tuple(seq[cur_len - n + 1:])
            banned = {seq[i + n - 1] for i in range(cur_len - n + 1) if tuple(seq[i:i + n - 1]) == prefix}
            if banned:
                scores[list(banned)] = -np.inf
        if cur_len - 1 < self.min_tokens and m.eos_ids:
            scores[m.eos_ids] = -np.inf
        forced = None
        if cur_len == 1 and m.forced_bos_id is not None:
            forced = int(m.forced_bos_id)
        if cur_len == max_length - 1 and m.forced_eos_id is not None:
            forced = m.forced_eos_id
        if forced is not None:
            scores[:] = -np.inf
            scores[np.asarray(forced if isinstance(forced, list) else [forced])] = 0.0
        return scores

    # ------------------------------------------------------------ search

    def _greedy(self, hidden, mask, max_length: int, cancel: CancelToken) -> list[int]:
        m = self.model
        seq = [m.decoder_start_id]
        logits, past = m.decode(np.array([seq]), hidden, mask)
        while True:
            scores = self._process(seq, logits[0, -1].astype(np.float32).copy(), max_length)
            token = int(np.argmax(scores))
            seq.append(token)
            if token in m.eos_ids or len(seq) >= max_length:
                return seq
            cancel.check()
            logits, past = m.decode(np.array([[token]]), hidden, mask, past)

    def _beam(self, hidden, mask, max_length: int, cancel: CancelToken) -> list[int]:
        """transformers' beam search (4.5x ``_beam_search``) for one input."""
        m, nb = self.model, self.num_beams
        k = max(2, 1 + len(m.eos_ids)) * nb
        lp, early = self.length_penalty, self.early_stopping
        hidden = np.repeat(hidden, nb, axis=0)
        mask = np.repeat(mask, nb, axis=0)
        running = [[m.decoder_start_id] for _ in range(nb)]
        running_scores = np.full(nb, _NEG, dtype=np.float32)
        running_scores[0] = 0.0
        finished: list[tuple[float, list[int]]] = []  # best first, at most nb
        improvable = True
        logits, past = m.decode(np.array(running), hidden, mask)
        cur_len = 1
        while True:
            log_probs = _log_softmax(logits[:, -1])
            for b in range(nb):
                self._process(running[b], log_probs[b], max_length)
            acc = (log_probs + running_scores[:, None]).reshape(-1)
            top = np.argsort(-acc, kind="stable")[:k]
            beams, tokens, cand = top // log_probs.shape[1], top % log_probs.shape[1], acc[top]
            hits = np.array([t in m.eos_ids or cur_len + 1 >= max_length for t in tokens])
            # finished candidates among the top nb enter the hypotheses
            if improvable and not (early is True and len(finished) == nb):
                for r in range(nb):
                    if hits[r]:
                        score = float(cand[r]) / ((cur_len + 1 - 1) ** lp)
                        finished.append((score, running[beams[r]] + [int(tokens[r])]))
                finished = sorted(finished, key=lambda f: -f[0])[:nb]
            order = np.argsort(-(cand + hits * _NEG), kind="stable")[:nb]
            parents = beams[order]
            running = [running[beams[i]] + [int(tokens[i])] for i in order]
            running_scores = (cand + hits * _NEG)[order].astype(np.float32)
            cur_len += 1
            full = len(finished) == nb
            if full:
                best_len = (max_length - 1) if (early == "never" and lp > 0) else (cur_len - 1)
                improvable = improvable and running_scores[0] / (best_len ** lp) > finished[-1][0]
            if not improvable or (full and early is True) or hits.all():
                break
            cancel.check()
            past = {name: value[parents] for name, value in past.items()}
            logits, past = m.decode(np.array([[r[-1]] for r in running]), hidden, mask, past)
        return finished[0][1] if finished else running[0]
