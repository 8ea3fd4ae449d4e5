"""`k2desk doctor`, the real command in a subprocess: its lines and its JSON fields, a missing
model reported missing with exit status 1 and one line on stderr, the store read without being
created or migrated, and nothing contacted beyond this machine."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_privacy import outside_connects

LABELS = ("LLM build", "CPU level", "GPU", "LLM", "Embedder", "Summarizer", "Graph extractor", "Store", "Qt platform",
          "Telemetry")
KEYS = {"llm.build", "llm.cpu", "llm.gpu", "llm.model", "embedder", "summarizer", "graph", "store", "qt", "telemetry"}


@pytest.fixture
def doctor(tmp_path, models_dir, tiny_llm_path, embedder):
    """``doctor(*args, models=DIR)``: the command with a fresh home whose settings name the tiny LLM."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"llm": "smollm2-135m", "threads": 1}))

    def run(*args, models=models_dir, prefix=()):
        env = {**os.environ, "K2DESK_HOME": str(home), "K2DESK_MODELS": str(models), "QT_QPA_PLATFORM": "offscreen"}
        return subprocess.run([*prefix, sys.executable, "-m", "k2desk", "doctor", *map(str, args)], env=env,
                              capture_output=True, text=True, timeout=300)

    run.home = home
    return run


def lines_by_label(text: str) -> dict[str, tuple[str, str]]:
    """{label: (status, found)} from the report's aligned lines."""
    found = {}
    for line in text.splitlines():
        for status in ("ok", "warning", "missing"):
            marker = f"  {status} "
            if marker in line and line.index(marker) < 40:
                label, rest = line.split(marker, 1)
                found[label.strip()] = (status, rest.strip())
                break
    return found


def test_the_report_says_what_runs_where(doctor, model_store):
    import llama_cpp

    proc = doctor()
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # llama.cpp's and ggml's messages stay off the terminal
    lines = lines_by_label(proc.stdout)
    assert set(LABELS) <= set(lines), proc.stdout
    assert proc.stdout.strip().splitlines()[-1] == "ready: the main job (index, ask) can run here"
    assert lines["LLM build"][1].startswith(f"llama-cpp-python {llama_cpp.__version__}: ")
    assert lines["LLM"] == ("ok", lines["LLM"][1]) and lines["LLM"][1].startswith("smollm2-135m: llama 135M, 30 blocks")
    assert "1 CPU thread" in lines["LLM"][1]
    assert lines["Embedder"][0] == "ok" and lines["Embedder"][1].startswith("all-minilm-l6-v2 (384-d) on onnxruntime")
    assert lines["Telemetry"][0] == "ok" and "ORT_DISABLE_TELEMETRY" in lines["Telemetry"][1]
    assert lines["Qt platform"][1].endswith("QT_QPA_PLATFORM=offscreen")
    assert lines["Store"][1].startswith("'default' not created yet")
    for entry in model_store.entries:
        assert f"model {entry.name}" in lines
    assert lines["model smollm2-135m"][0] == "ok" and lines["model smollm2-135m"][1].startswith("sha256 ok, 94 MiB")

    report = json.loads(doctor("--json").stdout)
    assert set(report) == {"k2desk", "ok", "reason", "home", "models_dir", "collection", "checks"}
    assert report["ok"] is True and report["reason"] is None and report["collection"] == "default"
    checks = {c["key"]: c for c in report["checks"]}
    assert KEYS <= set(checks) and {f"model:{e.name}" for e in model_store.entries} <= set(checks)
    for c in report["checks"]:
        assert set(c) == {"key", "label", "status", "found", "blocking", "data"}
        assert c["status"] in ("ok", "warning", "missing") and c["blocking"] is False
        assert lines[c["label"]] == (c["status"], c["found"])  # the text and the JSON say the same
    build = checks["llm.build"]["data"]
    assert build["version"] == llama_cpp.__version__ and "CPU" in build["backends"]
    gpu = checks["llm.gpu"]["data"]
    assert gpu["supports_gpu_offload"] == bool(llama_cpp.llama_supports_gpu_offload())
    model = checks["llm.model"]["data"]
    assert (model["architecture"], model["blocks"], model["layers"]) == ("llama", 30, 31)
    assert model["layers_on_gpu"] == (31 if gpu["devices"] else 0) and model["gpu_layers"] == -1
    assert Path(model["path"]) == model_store.resolve_llm("smollm2-135m")
    emb = checks["embedder"]["data"]
    assert emb["dim"] == 384 and emb["providers_used"][-1] == "CPUExecutionProvider"
    assert set(emb["providers_used"]) <= set(emb["providers_available"])
    assert checks["summarizer"]["data"]["backend"] in ("onnx", "llm", "extractive")
    assert checks["graph"]["data"]["extractor"] in ("fast", "llm")
    assert checks["telemetry"]["data"]["env"]["ORT_DISABLE_TELEMETRY"] == "1"
    assert not (doctor.home / "collections").exists()  # the doctor reads; it never creates a collection


def test_a_missing_model_is_reported_missing_and_the_exit_status_is_1(doctor, tmp_path, models_dir):
    models = tmp_path / "models"  # the embedder, but no GGUF
    models.mkdir()
    (models / "all-minilm-l6-v2-onnx").symlink_to(models_dir / "all-minilm-l6-v2-onnx")

    proc = doctor(models=models)
    assert proc.returncode == 1
    lines = lines_by_label(proc.stdout)
    assert lines["LLM"][0] == "missing" and "'smollm2-135m' is not prepared" in lines["LLM"][1]
    assert lines["model smollm2-135m"][0] == "missing" and "k2desk models prepare" in lines["model smollm2-135m"][1]
    assert lines["Embedder"][0] == "ok"
    assert proc.stdout.strip().splitlines()[-1].startswith("not ready: model 'smollm2-135m' is not prepared")
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("k2desk: error: the main job cannot run: model 'smollm2-135m'")

    proc = doctor("--json", models=models)
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1
    report = json.loads(proc.stdout)
    checks = {c["key"]: c for c in report["checks"]}
    assert report["ok"] is False and "smollm2-135m" in report["reason"]
    assert checks["llm.model"]["status"] == "missing" and checks["llm.model"]["blocking"] is True
    assert checks["model:smollm2-135m"]["status"] == "missing" and checks["model:smollm2-135m"]["data"]["size"] == 0
    assert checks["embedder"]["blocking"] is False


def test_the_store_line_reads_a_collection_without_migrating_it(doctor):
    from k2desk.store.db import Database, migrations

    db = Database(doctor.home / "collections" / "notes.k2db")  # an empty collection, all migrations applied
    db.close()
    latest = migrations()[-1][0]
    report = json.loads(doctor("--json", "--collection", "notes").stdout)
    store = next(c for c in report["checks"] if c["key"] == "store")
    assert store["status"] == "ok" and store["found"].startswith(f"'notes' ({doctor.home / 'collections' / 'notes.k2db'}): "
                                                                 f"schema {latest} of {latest}, 0 documents")
    assert store["data"]["schema"] == latest and store["data"]["collections"] == 1
    proc = doctor("--collection", "../elsewhere")  # a bad name is a usage error, not a finding
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and proc.stdout == ""


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is missing (scripts/setup.sh installs it)")
def test_the_doctor_contacts_nothing(doctor, tmp_path):
    log = tmp_path / "strace.log"
    proc = doctor("--llm-url", "http://192.0.2.1:8080", prefix=(shutil.which("strace"), "-f", "-qq", "-e",
                                                               "trace=connect", "-o", str(log)))
    assert proc.returncode == 0, proc.stderr
    assert "http://192.0.2.1:8080" in proc.stdout and "not contacted" in proc.stdout
    assert outside_connects(log.read_text(errors="replace")) == []


def test_a_gpu_build_is_reported_with_its_device_and_the_layers_it_would_take(monkeypatch, settings_tiny):
    """The CUDA branches, without a GPU here: ggml's registry answers as a CUDA build's would."""
    from k2desk import doctor
    from k2desk.runtime import llama_info
    from k2desk.runtime.models import ModelStore

    store = ModelStore(settings_tiny.models_dir)
    gib = 1 << 30
    rtx = llama_info.Device("CUDA0", "NVIDIA GeForce RTX 4070", "gpu", 12 * gib, 11 * gib)
    monkeypatch.setattr(llama_info, "backends", lambda: ["CUDA", "CPU"])
    monkeypatch.setattr(llama_info, "supports_gpu_offload", lambda: True)
    monkeypatch.setattr(llama_info, "system_info", lambda: {"CUDA": {"ARCHS": "750,860,890,1200"}, "CPU": {"AVX2": "1"}})
    cpu = llama_info.Device("CPU", "AMD EPYC", "cpu", 64 * gib, 64 * gib)
    monkeypatch.setattr(llama_info, "devices", lambda: [rtx, cpu])
    checks = {c.key: c for c in doctor.llm_checks(settings_tiny, store)}
    assert checks["llm.build"].found.startswith("llama-cpp-python ") and "CUDA + CPU" in checks["llm.build"].found
    assert "CUDA archs 750,860,890,1200" in checks["llm.build"].found
    assert checks["llm.gpu"].status == "ok"
    assert checks["llm.gpu"].found == "CUDA0: NVIDIA GeForce RTX 4070, 12,288 MiB VRAM, 11,264 MiB free"
    assert "31/31 layers on the GPU (gpu_layers -1)" in checks["llm.model"].found
    assert checks["llm.model"].data["layers_on_gpu"] == 31

    from dataclasses import replace

    checks = {c.key: c for c in doctor.llm_checks(replace(settings_tiny, gpu_layers=10), store)}
    assert "10/31 layers on the GPU (gpu_layers 10)" in checks["llm.model"].found

    small = llama_info.Device("CUDA0", "NVIDIA GeForce GT 1030", "gpu", 2 * gib, 50 << 20)
    monkeypatch.setattr(llama_info, "devices", lambda: [small, cpu])
    model = {c.key: c for c in doctor.llm_checks(settings_tiny, store)}["llm.model"]
    assert model.status == "warning" and "more than the 50 MiB free on CUDA0" in model.found

    monkeypatch.setattr(llama_info, "devices", lambda: [cpu])  # a CUDA build on a machine without a GPU
    checks = {c.key: c for c in doctor.llm_checks(settings_tiny, store)}
    assert checks["llm.gpu"].status == "warning" and "a CUDA build, but no device found" in checks["llm.gpu"].found
    assert "0/31 layers on the GPU" in checks["llm.model"].found

    monkeypatch.setattr(llama_info, "backends", lambda: ["CPU"])  # a CPU build on a machine with a GPU
    monkeypatch.setattr(doctor, "nvidia_gpus", lambda: ["NVIDIA GeForce RTX 4070"])
    gpu = {c.key: c for c in doctor.llm_checks(settings_tiny, store)}["llm.gpu"]
    assert gpu.status == "warning" and "K2DESK_CUDA=1 scripts/setup.sh" in gpu.found


def test_the_larger_model_shows_once_as_the_reader_and_checker(tmp_path, models_dir):
    from dataclasses import replace

    from k2desk import doctor
    from k2desk.config import CHECK_LLM, Settings
    from k2desk.runtime.models import ModelStore

    settings = Settings(home=tmp_path, models_dir=models_dir)
    lines = {c.key: c for c in doctor.model_lines(settings, ModelStore(models_dir), [])}
    assert lines["llm.reader"].label == "Reader and checker" and lines["llm.reader"].found.startswith(CHECK_LLM + ":")
    assert lines["llm.reader"].data["verify_answers"] is True and "llm.check" not in lines
    lines = {c.key: c for c in doctor.model_lines(replace(settings, reader_llm=""), ModelStore(models_dir), [])}
    assert lines["llm.check"].label == "Claim checker" and "llm.reader" not in lines  # the 0.5B reads


@pytest.fixture
def settings_tiny(tmp_path, models_dir, tiny_llm_path):
    from k2desk.config import Settings

    return Settings(home=tmp_path / "home", models_dir=models_dir, llm="smollm2-135m", threads=1)


@pytest.mark.parametrize("lite", [True, False])
def test_a_lite_download_says_so_and_the_full_one_does_not(tmp_path, monkeypatch, lite):
    """build.spec writes k2desk-bundle.json into a bundle; the lite download (the default model
    alone) is named in the doctor's second line and its JSON, the full download adds nothing."""
    from k2desk.config import BUNDLE_FILE, Settings
    from k2desk.doctor import Check, Report

    (tmp_path / BUNDLE_FILE).write_text(json.dumps({"name": "k2desk-lite" if lite else "k2desk", "lite": lite,
                                                    "llm": "qwen2.5-coder-0.5b", "full_reader": "qwen2.5-coder-1.5b"}))
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    report = Report(Settings(home=tmp_path / "home"), "default", [Check("llm.model", "LLM", "here")])
    second = report.text().splitlines()[1]
    if lite:
        assert second == ("k2desk-lite: the lite download, qwen2.5-coder-0.5b alone writes and checks the answers "
                          "(the full download adds qwen2.5-coder-1.5b)")
        assert report.to_json()["download"] == second
    else:
        assert second == "" and "download" not in report.to_json()
