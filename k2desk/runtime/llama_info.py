"""What llama.cpp reports about itself, without loading a model's weights (``k2desk doctor``).

* ``system_info()``: ``llama_print_system_info`` read per backend ("CPU": its instruction sets,
  "CUDA": the architectures it was compiled for, ...). It lists the backends registered in this
  process, so a ``GGML_BACKEND_DL`` build's CPU level must be loaded first
  (``cpu_dispatch.load_cached_backend``).
* ``backends()`` / ``devices()``: ggml's registry (``ggml_backend_reg_*``, ``ggml_backend_dev_*``):
  which backends the build has and each device with its description (a GPU's name) and memory.
* ``gguf_facts(path)``: a model's architecture, blocks, parameters and tensor bytes from its
  header, through ``llama_model_load_from_file`` with ``vocab_only`` (tensors are skipped).
* ``layers_offloaded``: llama.cpp's rule for ``n_gpu_layers`` (llama-cpp-python passes -1 as
  "all"): min(n_gpu_layers, blocks + 1, the output layer being the + 1) when a GPU device is
  there, else none.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from k2desk.errors import ModelError
from k2desk.runtime.cpu_dispatch import _libggml, parse_system_info, quiet_stderr
from k2desk.runtime.llama_import import import_llama

# enum ggml_backend_dev_type: CPU, GPU, IGPU (integrated), ACCEL
DEVICE_KINDS = {0: "cpu", 1: "gpu", 2: "igpu", 3: "accel"}
GPU_KINDS = ("gpu", "igpu")


@dataclass
class Device:
    name: str  # ggml's name: "CPU", "CUDA0", ...
    description: str  # the CPU's or the GPU's model name
    kind: str  # cpu | gpu | igpu | accel
    memory_total: int  # bytes
    memory_free: int


def version() -> Optional[str]:
    try:
        llama_cpp = import_llama()
    except (ImportError, ModelError):
        return None
    return str(getattr(llama_cpp, "__version__", "unknown"))


def supports_gpu_offload() -> bool:
    llama_cpp = import_llama()

    return bool(llama_cpp.llama_supports_gpu_offload())


def system_info() -> dict[str, dict[str, str]]:
    """``llama_print_system_info`` as {backend: {feature: value}}, e.g. {"CPU": {"AVX2": "1", ...}}."""
    llama_cpp = import_llama()

    return parse_system_info((llama_cpp.llama_print_system_info() or b"").decode("utf-8", "replace"))


def _lib():
    lib = _libggml()
    for name, restype, argtypes in (
            ("ggml_backend_reg_count", ctypes.c_size_t, []),
            ("ggml_backend_reg_get", ctypes.c_void_p, [ctypes.c_size_t]),
            ("ggml_backend_reg_name", ctypes.c_char_p, [ctypes.c_void_p]),
            ("ggml_backend_dev_count", ctypes.c_size_t, []),
            ("ggml_backend_dev_get", ctypes.c_void_p, [ctypes.c_size_t]),
            ("ggml_backend_dev_name", ctypes.c_char_p, [ctypes.c_void_p]),
            ("ggml_backend_dev_description", ctypes.c_char_p, [ctypes.c_void_p]),
            ("ggml_backend_dev_type", ctypes.c_int, [ctypes.c_void_p]),
            ("ggml_backend_dev_memory", None, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t),
                                               ctypes.POINTER(ctypes.c_size_t)])):
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


def backends() -> list[str]:
    """The backends registered in this process ("CUDA", "CPU", ...)."""
    lib = _lib()
    with quiet_stderr():  # a CUDA build with no device says so on stderr as it registers
        return [(lib.ggml_backend_reg_name(lib.ggml_backend_reg_get(i)) or b"").decode()
                for i in range(lib.ggml_backend_reg_count())]


def devices() -> list[Device]:
    """Every device of the registered backends, GPUs with their memory."""
    lib = _lib()
    found = []
    with quiet_stderr():
        for i in range(lib.ggml_backend_dev_count()):
            dev = lib.ggml_backend_dev_get(i)
            free, total = ctypes.c_size_t(0), ctypes.c_size_t(0)
            lib.ggml_backend_dev_memory(dev, ctypes.byref(free), ctypes.byref(total))
            found.append(Device((lib.ggml_backend_dev_name(dev) or b"").decode(),
                                (lib.ggml_backend_dev_description(dev) or b"").decode("utf-8", "replace"),
                                DEVICE_KINDS.get(int(lib.ggml_backend_dev_type(dev)), "other"),
                                int(total.value), int(free.value)))
    return found


# llama.cpp's file types (general.file_type: the quantization most tensors have; llama.h's LLAMA_FTYPE_*)
FILE_TYPES = {0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K", 11: "Q3_K_S",
              12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K",
              19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL",
              26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0",
              37: "TQ2_0", 38: "MXFP4"}


def _int(text, default=None):
    """A metadata value read as a whole number (``default`` for none, or for an array)."""
    return int(text) if isinstance(text, str) and text.strip().isdigit() else default


def gguf_facts(path: Path) -> dict:
    """{"architecture", "name", "size_label", "blocks", "parameters", "tensor_bytes", "context",
    "quantization", "chat_template", "kv_bytes_per_token"} from the GGUF header (vocabulary and
    metadata only; no tensor is read)."""
    llama_cpp = import_llama()

    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    with quiet_stderr():
        model = llama_cpp.llama_model_load_from_file(str(path).encode(), params)
    if not model:
        raise ValueError(f"llama.cpp cannot read the header of {path}")
    try:
        buf = ctypes.create_string_buffer(512)

        def meta(key: str) -> Optional[str]:
            n = llama_cpp.llama_model_meta_val_str(model, key.encode(), buf, len(buf))
            return buf.value.decode("utf-8", "replace") if n >= 0 else None

        arch = meta("general.architecture") or ""
        blocks, context = meta(f"{arch}.block_count"), meta(f"{arch}.context_length")
        heads, kv_heads, width = (_int(meta(f"{arch}.{key}")) for key in
                                  ("attention.head_count", "attention.head_count_kv", "embedding_length"))
        file_type = _int(meta("general.file_type"))
        return {"architecture": arch, "name": meta("general.name"), "size_label": meta("general.size_label"),
                "blocks": int(blocks) if blocks and blocks.isdigit() else None,
                "context": int(context) if context and context.isdigit() else None,
                "parameters": int(llama_cpp.llama_model_n_params(model)),
                "tensor_bytes": int(llama_cpp.llama_model_size(model)),
                "quantization": FILE_TYPES.get(file_type, f"type {file_type}" if file_type is not None else ""),
                "chat_template": meta("tokenizer.chat_template") is not None,
                # the KV cache's bytes per token of context: f16 keys and values in every block
                # (a per-layer count of key/value heads, an array, counts as the query heads': an upper bound)
                "kv_bytes_per_token": 2 * 2 * _int(blocks, 0) * (kv_heads or heads or 0) * (width // heads if heads and width else 0)}
    finally:
        llama_cpp.llama_model_free(model)


def layers_offloaded(gpu_layers: int, blocks: Optional[int], gpu_present: bool) -> tuple[int, Optional[int]]:
    """(layers llama.cpp would put on the GPU, layers in all) for ``Settings.gpu_layers``."""
    if blocks is None:
        return 0, None
    total = blocks + 1  # the output layer counts as one
    if not gpu_present or gpu_layers == 0:
        return 0, total
    return (total if gpu_layers < 0 else min(gpu_layers, total)), total
