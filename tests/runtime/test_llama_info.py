"""llama.cpp's own account of itself, read without a model's weights (runtime/llama_info.py)."""

import llama_cpp

from k2desk.runtime import cpu_dispatch, llama_info


def test_system_info_is_read_per_backend(monkeypatch):
    text = (b"CUDA : ARCHS = 750,860,890,1200 | USE_GRAPHS = 1 | PEER_MAX_BATCH_SIZE = 128 | "
            b"CPU : SSE3 = 1 | AVX2 = 1 | AVX512 = 0 | OPENMP = 1 | ")
    monkeypatch.setattr(llama_cpp, "llama_print_system_info", lambda: text)
    assert llama_info.system_info() == {
        "CUDA": {"ARCHS": "750,860,890,1200", "USE_GRAPHS": "1", "PEER_MAX_BATCH_SIZE": "128"},
        "CPU": {"SSE3": "1", "AVX2": "1", "AVX512": "0", "OPENMP": "1"}}
    monkeypatch.setattr(llama_cpp, "llama_print_system_info", lambda: b"")
    assert llama_info.system_info() == {}


def test_layers_offloaded_follow_llama_cpp_rule():
    assert llama_info.layers_offloaded(-1, 30, gpu_present=True) == (31, 31)  # every block and the output layer
    assert llama_info.layers_offloaded(99, 30, gpu_present=True) == (31, 31)
    assert llama_info.layers_offloaded(12, 30, gpu_present=True) == (12, 31)
    assert llama_info.layers_offloaded(0, 30, gpu_present=True) == (0, 31)
    assert llama_info.layers_offloaded(-1, 30, gpu_present=False) == (0, 31)
    assert llama_info.layers_offloaded(-1, None, gpu_present=True) == (0, None)


def test_a_models_header_and_the_registered_devices(tiny_llm_path):
    facts = llama_info.gguf_facts(tiny_llm_path)
    assert facts["architecture"] == "llama" and facts["blocks"] == 30 and facts["size_label"] == "135M"
    assert facts["parameters"] == 134_515_008 and 0 < facts["tensor_bytes"] < tiny_llm_path.stat().st_size
    level, _best = cpu_dispatch.load_cached_backend()  # the level a model load chose on this machine, if any
    if level is not None:  # registered: ggml lists the CPU and llama.cpp its features
        assert "CPU" in llama_info.backends()
        assert any(d.kind == "cpu" for d in llama_info.devices())
        assert llama_info.system_info().get("CPU")
    gpus = [d for d in llama_info.devices() if d.kind in llama_info.GPU_KINDS]
    assert not gpus or llama_info.supports_gpu_offload()
    assert all(d.memory_total > 0 for d in gpus)
