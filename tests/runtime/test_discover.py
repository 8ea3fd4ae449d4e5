"""The models a person already has (runtime/discover.py): real-format folders of Ollama, LM
Studio, GPT4All and Jan built around the small test GGUF, broken files among them; listed right,
the broken ones as broken, nothing written there; a model too large for memory refused first."""

import hashlib
import json
import os
import shutil
from collections import namedtuple
from dataclasses import replace

import pytest

from k2desk.config import Settings
from k2desk.errors import ModelError
from k2desk.runtime.discover import candidates, check_memory, discover, find, fits, resolve_llm


def _place(src, dest):
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dest)  # the same bytes, no copy of 98 MB
    except OSError:
        shutil.copyfile(src, dest)
    return dest


@pytest.fixture
def machine(tmp_path, model_store):
    """A home folder as the apps leave it, and the facts the test expects of it."""
    tiny = model_store.path_of(model_store.entry("smollm2-135m"))
    home = tmp_path / "home"
    digest = hashlib.sha256(tiny.read_bytes()).hexdigest()
    ollama = home / ".ollama" / "models"
    _place(tiny, ollama / "blobs" / f"sha256-{digest}")
    manifest = {"schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
                "config": {"mediaType": "application/vnd.docker.container.image.v1+json", "digest": "sha256:" + "0" * 64},
                "layers": [{"mediaType": "application/vnd.ollama.image.model", "digest": f"sha256:{digest}",
                            "size": tiny.stat().st_size},
                           {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:" + "1" * 64}]}
    tags = ollama / "manifests" / "registry.ollama.ai" / "library" / "smollm2"
    tags.mkdir(parents=True)
    (tags / "135m").write_text(json.dumps(manifest), encoding="utf-8")
    (tags / "gone").write_text(json.dumps({**manifest, "layers": [{**manifest["layers"][0], "digest": "sha256:" + "2" * 64}]}),
                               encoding="utf-8")
    (tags / "damaged").write_text("{not json", encoding="utf-8")
    _place(tiny, home / ".lmstudio" / "models" / "HuggingFaceTB" / "SmolLM2-135M-Instruct-GGUF" / "SmolLM2-135M-Instruct.Q4_1.gguf")
    partial = home / ".lmstudio" / "models" / "someone" / "Big-GGUF" / "big-model.Q4_K_M.gguf"
    partial.parent.mkdir(parents=True)
    with open(tiny, "rb") as f:
        partial.write_bytes(f.read(5 << 20))  # a download that stopped
    _place(tiny, home / ".local" / "share" / "nomic.ai" / "GPT4All" / "smollm2-gpt4all.gguf")
    _place(tiny, home / "jan" / "models" / "smollm2-135m" / "model.gguf")
    (home / "jan" / "models" / "notes").mkdir(parents=True)
    (home / "jan" / "models" / "notes" / "readme.gguf").write_text("not a model", encoding="utf-8")
    mine = tmp_path / "my-models"
    _place(tiny, mine / "my-smol.gguf")
    return home, mine, tiny


def _snapshot(*roots):
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for root in roots for p in root.rglob("*")}


def test_every_apps_models_are_listed_and_the_broken_ones_as_broken(machine, monkeypatch):
    home, mine, tiny = machine
    monkeypatch.delenv("OLLAMA_MODELS", raising=False)
    before = _snapshot(home, mine)
    found = {(f.app, f.name): f for f in discover([str(mine)], home=home)}
    assert _snapshot(home, mine) == before  # nothing written, nothing touched
    assert set(found) == {("Ollama", "smollm2:135m"), ("Ollama", "smollm2:gone"), ("Ollama", "smollm2:damaged"),
                          ("LM Studio", "Smollm2 135M 8k Lc100K Mix1 Ep2"), ("LM Studio", "big-model.Q4_K_M"),
                          ("GPT4All", "Smollm2 135M 8k Lc100K Mix1 Ep2"), ("Jan", "Smollm2 135M 8k Lc100K Mix1 Ep2"),
                          ("Jan", "readme"), ("folder", "Smollm2 135M 8k Lc100K Mix1 Ep2")}
    ollama = found[("Ollama", "smollm2:135m")]
    assert ollama.usable and ollama.path.endswith("sha256-" + hashlib.sha256(tiny.read_bytes()).hexdigest())
    assert (ollama.architecture, ollama.size_label, ollama.quantization, ollama.context_length) == ("llama", "135M", "Q4_1", 8192)
    assert ollama.chat_template and ollama.size == tiny.stat().st_size and 130e6 < ollama.parameters < 140e6
    assert ollama.params_text() == "135M" and ollama.kv_bytes_per_token > 0
    assert "blob that is not there" in found[("Ollama", "smollm2:gone")].broken
    assert "unreadable manifest" in found[("Ollama", "smollm2:damaged")].broken
    assert "partial" in found[("LM Studio", "big-model.Q4_K_M")].broken or \
        "damaged or partial" in found[("LM Studio", "big-model.Q4_K_M")].broken
    assert found[("Jan", "readme")].broken == "not a GGUF file (no GGUF header)"
    assert sum(f.usable for f in found.values()) == 5


def test_a_model_is_named_by_its_apps_name_or_its_file(machine, models_dir, monkeypatch):
    home, mine, tiny = machine
    monkeypatch.delenv("OLLAMA_MODELS", raising=False)
    monkeypatch.setattr("pathlib.Path.home", lambda: home)
    assert find("smollm2:135m").app == "Ollama" and find("my-smol", [str(mine)]).app == "folder"
    assert find("no-such-model") is None and len(candidates()) == 8  # the apps' files, no header read
    settings = Settings(home=home / "k2desk", models_dir=models_dir, model_folders=[str(mine)])
    assert resolve_llm(settings, "smollm2:135m") == find("smollm2:135m").path
    assert resolve_llm(settings, "smollm2-135m") == "smollm2-135m"  # k2desk's own name stays a name
    assert resolve_llm(settings, str(tiny)) == str(tiny)
    with pytest.raises(ModelError, match="big-model.Q4_K_M .*partial"):
        resolve_llm(settings, "big-model.Q4_K_M")


def test_a_model_larger_than_memory_is_refused_before_it_loads(model_store, monkeypatch, tmp_path, models_dir):
    import k2desk.engine as engine

    tiny = model_store.path_of(model_store.entry("smollm2-135m"))
    Memory = namedtuple("Memory", "available")
    monkeypatch.setattr("psutil.virtual_memory", lambda: Memory(64 << 20))  # 64 MiB free
    with pytest.raises(ModelError) as err:
        check_memory(tiny, 4096, gpu_layers=0)
    line = str(err.value)
    assert "\n" not in line and "needs about 0.7 GiB (0.1 GiB of weights" in line and "0.1 GiB of memory is free" in line

    def never(*args, **kwargs):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(engine, "LLM", never)
    settings = Settings(home=tmp_path, models_dir=models_dir, llm="smollm2-135m", n_ctx=1234)
    with pytest.raises(ModelError, match="choose a smaller model or quantization"):
        engine.shared_llm(settings)
    found = next(f for f in discover([str(tiny)], home=tmp_path))
    assert fits(found, 4096, 8 << 30) == "" and fits(found, 4096, 0, gpu_free=8 << 30) == ""
    assert "on the GPU" in fits(replace(found, tensor_bytes=20 << 30), 4096, 1 << 30, gpu_free=1 << 30)
