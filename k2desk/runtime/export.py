"""Build-time ONNX export of Hugging Face seq2seq summarizers (BART, T5, Pegasus, LED, ...).

torch, transformers and optimum-onnx are imported inside the functions only: they are the
``k2desk[export]`` extra and never needed at run time (the runtime is onnxruntime + tokenizers,
see ``seq2seq_onnx.py``).

Output layout (what :class:`k2desk.runtime.seq2seq_onnx.OnnxSeq2SeqSummarizer` loads)::

    encoder_model.onnx                      input_ids, attention_mask -> last_hidden_state
    decoder_model_merged.onnx               (merge=True) or decoder_model.onnx +
                                            decoder_with_past_model.onnx, optimum's names
    config.json  generation_config.json  tokenizer.json (+ the other tokenizer files)
    k2desk-export.json                      model_type, source, sha256 per file, LED padding rule

Why LED does not export with stock optimum-onnx 0.1.0, and what this module does about it
---------------------------------------------------------------------------------------
optimum-onnx 0.1.0 has no ONNX config for ``led``; borrowing BART's config exports files whose
encoder only runs for the dummy shape (batch 2, 16 tokens): any other batch size or length fails
in onnxruntime (``Gather ... idx=512 must be within [-512, 511]``, ``Reshape {1,40,1} ->
{1,2,16,1}``). The cause is in transformers' Longformer-style self-attention
(``LEDEncoderSelfAttention``), traced by the TorchScript exporter:

1. ``_chunk`` and ``_sliding_chunks_matmul_attn_probs_value`` build the overlapping windows with
   ``Tensor.as_strided(size, stride)``; sizes and strides are Python ints read at trace time, and
   the exporter (symbolic_opset9.as_strided) lowers it to a Gather with a *constant* index table
   for exactly that (batch*heads, sequence) shape -- the strides (e.g. sequence*head_dim) are
   constants even where the sizes stay symbolic. (transformers' own ``config.onnx_export`` fallback unrolls a
   Python loop over the chunks: the chunk count is frozen instead.)
2. ``is_global_attn = is_index_global_attn.flatten().any().item()`` and the global-index count
   (``.max()``) become constants: the global-attention branch is kept or dropped for good,
   depending on the dummy ``global_attention_mask``.
3. ``_pad_to_window_size`` decides ``if padding_len > 0`` in Python: the pad-to-window branch is
   frozen as well.

The fix, at that depth: while tracing, the two ``as_strided`` windowings are replaced by
equivalent slice+concat of ``window/2`` blocks (pure shape-agnostic ops; numerically identical
in eager mode), and the encoder is exported by our own ``torch.onnx.export`` wrapper (dynamic
batch and sequence axes) that (a) pads ``input_ids``/``attention_mask`` to a multiple of
``max(attention_window)`` inside the graph and slices the output back, so the frozen branch of
(3) is always the right one, and (b) gives global attention to the first token -- how LED
summarizers are trained and used -- so (2) is constant by construction and
``global_attention_mask`` is no graph input. The runtime pads to the multiple too (the rule is
written to k2desk-export.json). The decoders have no windowed attention: optimum exports them
with BART's ONNX config. Checked by tests/runtime/test_export_led.py (lengths 7/40/130, ragged
batch 2: max abs diff ~1e-5 against torch). The TorchScript exporter (``dynamo=False``) is used:
torch's new exporter needs ``onnxscript``, which the export extra does not install.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import warnings
from pathlib import Path
from typing import Any, Optional

from k2desk.errors import ModelError
from k2desk.progress import Progress, progress_or_noop

TASK = "text2text-generation-with-past"
OPSET = 18
MANIFEST = "k2desk-export.json"
ENCODER = "encoder_model.onnx"
DECODER = "decoder_model.onnx"
DECODER_WITH_PAST = "decoder_with_past_model.onnx"
DECODER_MERGED = "decoder_model_merged.onnx"
_TOKENIZER_FILES = (
    "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
    "vocab.json", "merges.txt", "spiece.model", "sentencepiece.bpe.model", "source.spm",
    "target.spm", "vocab.txt",
)
_EXTRA_HINT = "needs the build-time extra: pip install 'k2desk[export]'"


def _build_deps() -> None:
    try:
        import optimum.exporters.onnx  # noqa: F401
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as e:
        raise ModelError(f"exporting a summarizer {_EXTRA_HINT} ({e.name} is missing)") from None


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def export_seq2seq(
    src: Path, out_dir: Path, progress: Optional[Progress] = None, *, merge: bool = True
) -> Path:
    """Export the seq2seq model directory ``src`` to ONNX files in ``out_dir``; returns out_dir.

    ``merge`` fuses the two decoders into optimum's ``decoder_model_merged.onnx`` (one copy of the
    decoder weights); ``merge=False`` keeps ``decoder_model.onnx`` + ``decoder_with_past_model.onnx``.
    """
    src, out_dir = Path(src), Path(out_dir)
    report = progress_or_noop(progress)
    if not (src / "config.json").is_file():
        raise ModelError(f"not a Hugging Face model directory (no config.json): {src}")
    model_type = json.loads((src / "config.json").read_text(encoding="utf-8")).get("model_type", "")
    _build_deps()
    if model_type != "led" and not _optimum_supports(model_type):
        raise ModelError(
            f"cannot export model type {model_type!r}: not a seq2seq model optimum-onnx can export"
            " (use BART, T5, Pegasus, LED, ...)"
        )
    total = 5
    report("export", 0, total)
    import torch
    from transformers import AutoModelForSeq2SeqLM

    torch.manual_seed(0)
    try:
        model = AutoModelForSeq2SeqLM.from_pretrained(src).eval()
    except (OSError, ValueError) as e:
        raise ModelError(f"cannot load the model in {src}: {str(e).splitlines()[0]}") from None
    out_dir.mkdir(parents=True, exist_ok=True)
    report("export", 1, total)
    extra: dict[str, Any] = {}
    with torch.no_grad(), warnings.catch_warnings():
        # the tracer's notes on asserts and shape checks are expected (see the module docstring)
        warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
        warnings.filterwarnings("ignore", category=UserWarning, module=r"torch\.onnx")
        warnings.filterwarnings("ignore", category=FutureWarning)
        warnings.filterwarnings("ignore", category=DeprecationWarning)  # TorchScript exporter, see below
        if model_type == "led":
            extra["led"] = _export_led_encoder(model, out_dir / ENCODER)
            report("export", 2, total)
            _export_with_optimum(model, out_dir, decoders_only=True)
        else:
            _export_with_optimum(model, out_dir, decoders_only=False)
            report("export", 2, total)
    report("export", 3, total)
    if merge:
        from optimum.onnx import merge_decoders

        merge_decoders(out_dir / DECODER, out_dir / DECODER_WITH_PAST,
                       save_path=out_dir / DECODER_MERGED, strict=False)
        (out_dir / DECODER).unlink()
        (out_dir / DECODER_WITH_PAST).unlink()
    _copy_side_files(src, model, out_dir)
    report("export", 4, total)
    _write_manifest(src, out_dir, model, extra)
    report("export", total, total)
    return out_dir


def _optimum_supports(model_type: str) -> bool:
    import optimum.exporters.onnx.model_configs  # noqa: F401 - registers the ONNX configs
    from optimum.exporters.tasks import TasksManager

    try:
        tasks = TasksManager.get_supported_tasks_for_model_type(
            model_type, exporter="onnx", library_name="transformers")
    except KeyError:
        return False
    return TASK in tasks


def _export_with_optimum(model, out_dir: Path, decoders_only: bool) -> None:
    from optimum.exporters.onnx import onnx_export_from_model

    kwargs: dict[str, Any] = {}
    if decoders_only:  # LED: BART's ONNX config fits LED's decoder (same names and layout)
        from optimum.exporters.onnx.model_configs import BartOnnxConfig

        base = BartOnnxConfig(model.config, task="text2text-generation", use_past=True)
        kwargs["custom_onnx_configs"] = {
            "decoder_model": base.with_behavior("decoder", use_past=True, use_past_in_inputs=False),
            "decoder_with_past_model": base.with_behavior("decoder", use_past=True, use_past_in_inputs=True),
        }
        kwargs["fn_get_submodels"] = lambda m: {"decoder_model": m, "decoder_with_past_model": m}
    onnx_export_from_model(
        model, out_dir, opset=OPSET, task=TASK, no_post_process=True, do_validation=False, **kwargs)


# ---------------------------------------------------------------- LED encoder


def _chunk_traceable(hidden_states, window_overlap, onnx_export: bool = False):  # noqa: ARG001
    """(B*H, L, D) -> (B*H, L/w - 1, 2w, D) overlapping windows, without as_strided."""
    import torch

    blocks = hidden_states.view(hidden_states.size(0), -1, window_overlap, hidden_states.size(2))
    return torch.cat([blocks[:, :-1], blocks[:, 1:]], dim=2)


def _sliding_chunks_matmul_attn_probs_value_traceable(self, attn_probs, value, window_overlap: int):
    """transformers' method with the ``as_strided`` windowing of ``value`` replaced by slices."""
    import torch
    from torch import nn

    batch_size, seq_len, num_heads, head_dim = value.size()
    chunked_attn_probs = attn_probs.transpose(1, 2).reshape(
        batch_size * num_heads, torch.div(seq_len, window_overlap, rounding_mode="trunc"),
        window_overlap, 2 * window_overlap + 1)
    value = value.transpose(1, 2).reshape(batch_size * num_heads, seq_len, head_dim)
    padded_value = nn.functional.pad(value, (0, 0, window_overlap, window_overlap), value=-1)
    # windows of 3w starting every w: blocks i, i+1, i+2 of the padded sequence
    blocks = padded_value.view(batch_size * num_heads, -1, window_overlap, head_dim)
    chunked_value = torch.cat([blocks[:, :-2], blocks[:, 1:-1], blocks[:, 2:]], dim=2)
    chunked_attn_probs = self._pad_and_diagonalize(chunked_attn_probs)
    context = torch.einsum("bcwd,bcdh->bcwh", (chunked_attn_probs, chunked_value))
    return context.view(batch_size, num_heads, seq_len, head_dim).transpose(1, 2)


@contextlib.contextmanager
def led_traceable_attention():
    """Swap LED's as_strided windowing for shape-agnostic slicing while the encoder is traced."""
    from transformers.models.led import modeling_led

    cls = modeling_led.LEDEncoderSelfAttention
    saved = {name: cls.__dict__[name]
             for name in ("_chunk", "_sliding_chunks_matmul_attn_probs_value")}
    cls._chunk = staticmethod(_chunk_traceable)
    cls._sliding_chunks_matmul_attn_probs_value = _sliding_chunks_matmul_attn_probs_value_traceable
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(cls, name, value)


def _led_encoder_wrapper(encoder, window: int, pad_token_id: int):
    import torch

    class LedEncoderForExport(torch.nn.Module):
        """Pads to the attention window inside the graph; global attention on the first token."""

        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids, attention_mask):
            seq_len = input_ids.size(1)
            padded_len = torch.div(seq_len + (window - 1), window, rounding_mode="floor") * window
            filler = torch.full((1, window), pad_token_id, dtype=input_ids.dtype)
            ids = torch.cat([input_ids, filler.expand(input_ids.size(0), window)], dim=1)
            mask = torch.cat([attention_mask, torch.zeros_like(filler).expand(input_ids.size(0), window)], dim=1)
            ids, mask = ids[:, :padded_len], mask[:, :padded_len]
            global_mask = torch.zeros_like(mask)
            global_mask[:, 0] = 1
            hidden = self.encoder(input_ids=ids, attention_mask=mask,
                                  global_attention_mask=global_mask).last_hidden_state
            return hidden[:, :seq_len]

    return LedEncoderForExport().eval()


def _export_led_encoder(model, path: Path) -> dict[str, Any]:
    import torch

    cfg = model.config
    aw = cfg.attention_window
    window = int(max(aw) if isinstance(aw, (list, tuple)) else aw)
    pad_id = int(cfg.pad_token_id if cfg.pad_token_id is not None else 1)
    wrapper = _led_encoder_wrapper(model.get_encoder(), window, pad_id)
    # dummy: batch 2, a length that is no multiple of the window, the second row padded
    length = 2 * window + 3
    gen = torch.Generator().manual_seed(0)
    ids = torch.randint(4, max(5, cfg.vocab_size), (2, length), generator=gen)
    mask = torch.ones_like(ids)
    mask[1, length - window:] = 0
    with led_traceable_attention():
        torch.onnx.export(
            wrapper, (ids, mask), str(path), input_names=["input_ids", "attention_mask"],
            output_names=["last_hidden_state"], opset_version=OPSET, do_constant_folding=True,
            dynamic_axes={"input_ids": {0: "batch_size", 1: "encoder_sequence_length"},
                          "attention_mask": {0: "batch_size", 1: "encoder_sequence_length"},
                          "last_hidden_state": {0: "batch_size", 1: "encoder_sequence_length"}},
            dynamo=False)
    return {
        "attention_window": window,
        "pad_to_multiple_of": window,
        "global_attention": "first_token",
        "max_input_tokens": int(cfg.max_encoder_position_embeddings),
        "padding": ("right-pad input_ids with pad_token_id and attention_mask with 0 to a multiple"
                    " of pad_to_multiple_of (the graph also pads internally); the first token has"
                    " global attention"),
    }


# ---------------------------------------------------------------- side files


def _copy_side_files(src: Path, model, out_dir: Path) -> None:
    for name in _TOKENIZER_FILES:
        if (src / name).is_file():
            shutil.copy2(src / name, out_dir / name)
    model.config.save_pretrained(out_dir)
    gen = getattr(model, "generation_config", None)
    if (src / "generation_config.json").is_file():
        shutil.copy2(src / "generation_config.json", out_dir / "generation_config.json")
    elif gen is not None:
        gen.save_pretrained(out_dir)
    if not (out_dir / "tokenizer.json").is_file():  # e.g. T5 with only spiece.model: convert it
        try:
            from transformers import AutoTokenizer

            AutoTokenizer.from_pretrained(src, use_fast=True).save_pretrained(out_dir)
        except Exception as e:  # noqa: BLE001 - any conversion failure is the same user problem
            raise ModelError(f"no tokenizer.json in {src} and it cannot be converted: {e}") from None
        if not (out_dir / "tokenizer.json").is_file():
            raise ModelError(f"no tokenizer.json in {src} (a fast tokenizer is needed)")


def _write_manifest(src: Path, out_dir: Path, model, extra: dict[str, Any]) -> None:
    from importlib.metadata import version

    import optimum.exporters.onnx  # noqa: F401
    import torch
    import transformers

    files = {p.name: sha256_file(p) for p in sorted(out_dir.iterdir())
             if p.is_file() and p.name != MANIFEST}
    cfg = model.config
    max_in = extra.get("led", {}).get("max_input_tokens") or getattr(cfg, "max_position_embeddings", None)
    weights = ("config.json", "model.safetensors", "pytorch_model.bin", "model.safetensors.index.json")
    manifest = {
        "format": 1,
        "name": out_dir.name,
        "model_type": cfg.model_type,
        "source": str(src.resolve()),
        "source_sha256": {n: sha256_file(src / n) for n in weights if (src / n).is_file()},
        "task": TASK,
        "opset": OPSET,
        "decoder": "merged" if (out_dir / DECODER_MERGED).is_file() else "split",
        "max_input_tokens": max_in,
        "files": files,
        "exporter": {"torch": torch.__version__, "transformers": transformers.__version__,
                     "optimum-onnx": version("optimum-onnx")},
        **extra,
    }
    (out_dir / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
