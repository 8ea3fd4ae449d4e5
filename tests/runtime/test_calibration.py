"""Calibration records (runtime/calibration.py): the shipped 1.5B record, a record found by the
model file's sha256, the home folder's over the shipped, the defaults for anything else."""

import json
import shutil
from dataclasses import replace

import pytest

from k2desk.config import CHECK_LLM, Settings
from k2desk.runtime import calibration
from k2desk.runtime.models import sha256_file
from k2desk.verdict import DEFAULTS


def test_the_shipped_records_name_their_model_by_sha256(model_store):
    records = sorted(calibration.SHIPPED.glob("*.json"))
    assert records, "k2desk ships the calibration of the model that reads its answers"
    for path in records:
        data = json.loads(path.read_text(encoding="utf-8"))
        entry = model_store.entry(data["model"]["name"])
        assert data["model"]["sha256"] == entry.sha256 and data["model"]["size"] == entry.size
        assert data["fitted_on"]["questions"] and data["fitted_on"]["date"]
        cal = calibration.read(path)
        assert cal.calibrated and cal.model == entry.name


def test_the_15b_reads_with_its_record_and_a_file_without_one_with_the_defaults(model_store, tmp_path):
    reader = model_store.path_of(model_store.entry(CHECK_LLM))
    if not reader.is_file():
        pytest.skip(f"{CHECK_LLM} is not prepared")
    cal = calibration.find(reader, tmp_path / "home", model_store)
    assert cal.calibrated and cal.check and cal.model == CHECK_LLM and cal.check_min == 1.4 and cal.against_weight == 4.85
    tiny = model_store.path_of(model_store.entry("smollm2-135m"))
    assert calibration.find(tiny, tmp_path / "home", model_store) is DEFAULTS


def test_a_record_in_the_home_folder_is_found_by_the_files_sha256(model_store, tmp_path, monkeypatch):
    """A person's own GGUF (a copy elsewhere, no manifest name) is matched by its content; its
    hash is remembered in the cache folder, never beside the file."""
    monkeypatch.setattr("k2desk.runtime.models.user_stamps_path", lambda: tmp_path / "cache" / "verified.json")
    tiny = tmp_path / "elsewhere" / "my-model.gguf"
    tiny.parent.mkdir()
    shutil.copyfile(model_store.path_of(model_store.entry("smollm2-135m")), tiny)
    home = tmp_path / "home"
    fitted = replace(DEFAULTS, check=True, check_min=2.2)
    path = calibration.save(calibration.record(fitted, "my-model", sha256_file(tiny), tiny.stat().st_size,
                                               "k2desk's calibration set, tune half", {"right": 3}), home)
    assert path.parent == calibration.user_dir(home) and path.name.startswith("my-model-")
    cal = calibration.find(tiny, home)
    assert cal.calibrated and cal.check and cal.check_min == 2.2 and cal.model == "my-model" and cal.path == str(path)
    assert sorted(p.name for p in tiny.parent.iterdir()) == ["my-model.gguf"]  # nothing written beside it
    assert (tmp_path / "cache" / "verified.json").is_file()
    tiny.write_bytes(tiny.read_bytes()[:-1] + b"\0")  # another file now (same size): no record
    assert calibration.find(tiny, home) is DEFAULTS
    path.write_text("{not json", encoding="utf-8")  # a damaged record is no record
    assert calibration.find(tiny, home) is DEFAULTS


def test_the_engine_checks_answers_where_the_readers_calibration_has_the_check(models_dir, tmp_path):
    from k2desk.engine import calibration_note, role_calibration, verify_answers

    tiny = Settings(home=tmp_path, models_dir=models_dir, llm="smollm2-135m", reader_llm="", check_llm="")
    assert role_calibration(tiny) is DEFAULTS and not verify_answers(tiny)
    assert "no calibration, conservative defaults" in calibration_note(tiny)
    assert verify_answers(replace(tiny, verify_answers="on"))
    served = replace(tiny, llm_url="http://127.0.0.1:9")
    assert role_calibration(served) is DEFAULTS and not verify_answers(served)


def test_a_record_fitted_while_the_app_runs_is_read_at_once(model_store, models_dir, tmp_path, monkeypatch):
    from k2desk.engine import role_calibration, verify_answers

    monkeypatch.setattr("k2desk.runtime.models.user_stamps_path", lambda: tmp_path / "cache" / "verified.json")
    own = tmp_path / "mine.gguf"
    shutil.copyfile(model_store.path_of(model_store.entry("smollm2-135m")), own)
    settings = Settings(home=tmp_path / "home", models_dir=models_dir, llm=str(own), reader_llm="", check_llm="")
    assert role_calibration(settings) is DEFAULTS and not verify_answers(settings)
    calibration.save(calibration.record(replace(DEFAULTS, check=True), "mine", sha256_file(own), own.stat().st_size,
                                        "k2desk's calibration set", {}), settings.home)
    assert role_calibration(settings).model == "mine" and verify_answers(settings)
