"""Settings lists the models other apps keep (a broken one greyed, with why), checks a chosen one
against the machine's memory in one line, and Calibrate runs in the background: progress and
Cancel in the status bar, the result there and beside the model's name (issue 71)."""

import json
import os
import shutil
import time
from collections import namedtuple
from dataclasses import replace

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from k2desk.eval import calibrate as C  # noqa: E402
from k2desk.runtime import calibration  # noqa: E402
from k2desk.verdict import DEFAULTS  # noqa: E402

WAIT_MS = 30_000


@pytest.fixture
def apps_home(tmp_path, tiny_llm_path, monkeypatch):
    """A person's home where LM Studio keeps a model and a download that stopped."""
    home = tmp_path / "person"
    good = home / ".lmstudio" / "models" / "HuggingFaceTB" / "SmolLM2-GGUF" / "smol-lmstudio.gguf"
    good.parent.mkdir(parents=True)
    try:
        os.link(tiny_llm_path, good)
    except OSError:
        shutil.copyfile(tiny_llm_path, good)
    stopped = home / ".lmstudio" / "models" / "someone" / "Big-GGUF" / "big.Q4_K_M.gguf"
    stopped.parent.mkdir(parents=True)
    stopped.write_bytes(tiny_llm_path.read_bytes()[: 4 << 20])
    monkeypatch.setattr("pathlib.Path.home", lambda: home)
    monkeypatch.delenv("OLLAMA_MODELS", raising=False)
    return home, good, stopped


def test_the_dialog_lists_other_apps_models_and_refuses_one_too_large(window, apps_home, monkeypatch):
    home, good, stopped = apps_home
    dialog = window.open_settings()
    labels = {dialog.model.itemData(i): (dialog.model.itemText(i), dialog.model.model().item(i).isEnabled())
              for i in range(dialog.model.count())}
    text, enabled = labels[str(good)]
    assert enabled and "LM Studio, llama 135M Q4_1" in text and "calibrated" not in text
    text, enabled = labels[str(stopped)]
    assert not enabled and "broken" in text
    Memory = namedtuple("Memory", "available")
    monkeypatch.setattr("psutil.virtual_memory", lambda: Memory(32 << 20))
    dialog.select_model(str(good))
    dialog.accept()
    assert dialog.isVisible() and "choose a smaller model or quantization" in dialog.error.text()
    assert "\n" not in dialog.error.text() and window.settings.llm == "smollm2-135m"  # nothing changed
    dialog.reject()


def test_calibrate_runs_in_the_background_with_progress_cancel_and_its_result(qtbot, window, apps_home, monkeypatch):
    home, good, _ = apps_home
    started = []

    def fake(settings, name, work=None, progress=None, cancel=None, **kw):
        """A calibration of three questions: progress as the real one reports it, then its record."""
        started.append(name)
        for done in range(4):
            progress("calibrate", done, 3)
            time.sleep(0.05)
            cancel.check()
        report = {"held": {"fitted": {"n": 3, "answerable": 2, "right_plain": 1, "right_cautioned": 1, "wrong_plain": 0,
                                      "wrong_cautioned": 0, "answerable_declined": 0, "unanswerable": 1,
                                      "unanswerable_declined": 1, "unanswerable_plain": 0, "strict": 1.0,
                                      "median_seconds": 1.5}}}
        data = calibration.record(DEFAULTS.with_values(check=True), "smol-lmstudio", "ab" * 32, 1, "test", report)
        return C.Run("smol-lmstudio", DEFAULTS, DEFAULTS, report, data, calibration.save(data, settings.home))

    monkeypatch.setattr(C, "calibrate_model", fake)
    dialog = window.open_settings()
    dialog.select_model(str(good))
    with qtbot.waitSignal(dialog.calibrate, timeout=WAIT_MS):
        dialog.calibrate_button.click()
    assert not dialog.calibrate_button.isEnabled()
    dialog.reject()
    qtbot.waitUntil(lambda: window.calibrate_job is None, timeout=WAIT_MS)
    assert started == [str(good)] and window.last_calibration.name == "smol-lmstudio"
    assert "smol-lmstudio calibrated: 2 of 2 answerable right, 1 of 1 near misses declined" in window.statusBar().currentMessage()
    assert not window.calibrating.isVisible()
    saved = json.loads(window.last_calibration.saved.read_text(encoding="utf-8"))
    assert saved["model"]["name"] == "smol-lmstudio"

    def slow(settings, name, work=None, progress=None, cancel=None, **kw):
        while True:
            progress("calibrate", 1, 161)
            time.sleep(0.02)
            cancel.check()

    monkeypatch.setattr(C, "calibrate_model", slow)
    window.start_calibration(str(good))
    qtbot.waitUntil(lambda: window.calibrating.isVisible() and window.calibrating.maximum() == 161, timeout=WAIT_MS)
    window.calibrate_cancel.click()
    qtbot.waitUntil(lambda: window.calibrate_job is None, timeout=WAIT_MS)
    assert "calibration stopped; its answers are kept" in window.statusBar().currentMessage()


def test_the_model_line_in_the_status_bar_says_whether_it_is_calibrated(window, models_dir):
    assert window.calibration.text() == "· uncalibrated: conservative defaults"
    assert window.calibration.toolTip().startswith("smollm2-135m: no calibration")
    window.apply_settings(replace(window.settings, llm="qwen2.5-coder-0.5b", reader_llm="auto"))
    assert window.calibration.text() == "· calibrated" and window.calibration.toolTip().startswith("qwen2.5-coder-1.5b")
