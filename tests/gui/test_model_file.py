"""Settings → "Use a model file…": a GGUF of the person's own is loaded once to check it (one line
where it does not load), then it writes the next answer, and the status bar and the dialog name it
with the checks it runs without (issue 56)."""

import shutil
from dataclasses import replace

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from k2desk.config import CHECK_LLM, DEFAULT_LLM  # noqa: E402
from k2desk.gui.widgets.settings_dialog import describe_model  # noqa: E402

WAIT_MS = 120_000


def test_a_model_file_that_does_not_load_is_one_line_and_one_that_loads_answers_next(
        qtbot, settings, folder, indexed_window, tiny_llm_path, tmp_path):
    broken = tmp_path / "own" / "half-a-model.gguf"
    broken.parent.mkdir()
    broken.write_bytes(tiny_llm_path.read_bytes()[: tiny_llm_path.stat().st_size // 2])  # a GGUF header, half its tensors
    own = tmp_path / "own" / "my-model.gguf"
    shutil.copyfile(tiny_llm_path, own)
    win = indexed_window(replace(settings, top_k=4, max_answer_tokens=24), [folder])
    try:
        dialog = win.open_settings()
        dialog.select_model(str(broken))
        dialog.accept()
        assert dialog.isVisible() and dialog.error.text().startswith("cannot load half-a-model.gguf"), dialog.error.text()
        assert "\n" not in dialog.error.text()
        assert win.settings.llm == "smollm2-135m"  # nothing changed

        dialog.select_model(str(own))
        assert dialog.model_note.text() == ("Writes the answers: my-model.gguf. The answer checks are off: no "
                                            "calibration for this model yet (conservative defaults). Calibrate fits "
                                            "one in the background.")
        dialog.accept()
        assert not dialog.isVisible() and win.settings.llm == str(own)
        assert win.status.text().endswith("answers with my-model.gguf")

        panel = win.ask_panel
        panel.method.setCurrentIndex(panel.method.findData("hybrid"))
        panel.question.setText("How many nautical miles is the Harwick Point lighthouse visible?")
        qtbot.mouseClick(panel.ask_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: win.ask_job is None, timeout=WAIT_MS)
        assert win.last_answer is not None and win.last_answer.answer.strip()
        assert win.last_answer.trace["models"] == {"llm": str(own), "reader": str(own), "check": str(own)}
    finally:
        win.close()


def test_the_dialog_says_what_answers_with_the_default_models(settings):
    assert describe_model(replace(settings, llm_url="http://127.0.0.1:8080")).startswith(
        "The server at http://127.0.0.1:8080 writes the answers; the answer checks are off")
    default = replace(settings, llm=DEFAULT_LLM, reader_llm="auto", verify_answers="auto", llm_url="")
    assert describe_model(default) == (f"Writes the answers: {CHECK_LLM}, its answers checked with its calibration "
                                       "(2026-11-28).")
