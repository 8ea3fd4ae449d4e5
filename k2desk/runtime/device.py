"""The "auto" choices that depend on where the LLM runs.

On a CPU an LLM call per chunk is what made indexing slow (68 min for the 40 dev articles on 2
cores, 48 s per graph chunk): there "auto" builds the K²RAG stores without one, the extractive
summarizer and spaCy's graph. With every layer on a GPU the LLM does both ("deep" mode), as the
paper does. An exported ONNX summarizer is used wherever it exists.
"""

from __future__ import annotations

from k2desk.config import Settings
from k2desk.errors import ModelError


def llm_on_gpu(settings: Settings) -> bool:
    """Whether the LLM offloads layers to a GPU (a GPU build of llama.cpp, gpu_layers != 0)."""
    if settings.gpu_layers == 0:
        return False
    try:
        from k2desk.runtime.cuda import gpu_expected
        from k2desk.runtime.llama_import import import_llama

        llama_cpp = import_llama()

        # a GPU backend linked into llama.cpp, or a CUDA build's backend library and an NVIDIA GPU
        return bool(llama_cpp.llama_supports_gpu_offload()) or gpu_expected()
    except (ImportError, AttributeError, OSError, ModelError):  # no llama.cpp that loads: the load says why
        return False


def summarizer_backend(settings: Settings) -> str:
    """Settings.summarizer with "auto" resolved: onnx (exported) > llm (GPU) > extractive."""
    if settings.summarizer != "auto":
        return settings.summarizer
    from k2desk.runtime.summarizer import find_onnx_summarizer

    if find_onnx_summarizer(settings.models_dir) is not None:
        return "onnx"
    return "llm" if llm_on_gpu(settings) else "extractive"


def graph_extractor(settings: Settings) -> str:
    """Settings.graph_extractor with "auto" resolved: llm on a GPU, else fast (spaCy)."""
    if settings.graph_extractor != "auto":
        return settings.graph_extractor
    return "llm" if llm_on_gpu(settings) else "fast"
