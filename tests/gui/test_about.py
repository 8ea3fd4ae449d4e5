"""Help → About, offscreen: the version and `k2desk doctor`'s report, made in the background (the
window stays responsive), the same lines the command prints."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from k2desk import __version__  # noqa: E402
from k2desk.doctor import run  # noqa: E402
from k2desk.gui.widgets.about import AboutDialog  # noqa: E402
from tests.test_doctor import lines_by_label  # noqa: E402

pytestmark = pytest.mark.gui
WAIT_MS = 60_000


def about_action(win):
    help_menu = next(a.menu() for a in win.menuBar().actions() if a.text() == "&Help")
    return next(a for a in help_menu.actions() if a.text() == "&About k2desk")


def test_the_about_box_shows_the_doctor_report(qtbot, window, tiny_llm_path, embedder):
    about_action(window).trigger()
    dialog = window.about_dialog
    assert isinstance(dialog, AboutDialog) and dialog.isVisible()
    assert dialog.windowTitle() == "About k2desk"
    qtbot.waitUntil(lambda: dialog.report.toPlainText() != "", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not window.about_job.running, timeout=WAIT_MS)
    assert dialog.summary.text() == "Ready: indexing and asking can run here."
    assert dialog.copy.isEnabled()

    shown = lines_by_label(dialog.report.toPlainText())
    expected = run(window.settings, window.collection)  # what `k2desk doctor --collection ...` prints
    assert {c.label: c.status for c in expected.checks} == {label: status for label, (status, _) in shown.items()}
    for key in ("llm.build", "llm.cpu", "llm.model", "embedder", "summarizer", "graph", "telemetry"):
        check = expected.check(key)
        assert shown[check.label][1] == check.found
    assert shown["LLM"][1].startswith("smollm2-135m: llama 135M, 30 blocks")
    assert dialog.report.toPlainText().startswith(f"k2desk {__version__}: what runs where")

    dialog.close()
    about_action(window).trigger()  # opened again: the same box, the report made again
    assert window.about_dialog is dialog and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.summary.text().startswith("Ready"), timeout=WAIT_MS)


def test_a_missing_model_shows_not_ready(qtbot, tmp_path, settings, models_dir, embedder):
    from dataclasses import replace

    from k2desk.gui.main_window import MainWindow

    models = tmp_path / "models"  # the embedder, but no GGUF
    models.mkdir()
    (models / "all-minilm-l6-v2-onnx").symlink_to(models_dir / "all-minilm-l6-v2-onnx")
    win = MainWindow(replace(settings, models_dir=models))
    qtbot.addWidget(win)
    win.show()
    try:
        win.show_about()
        qtbot.waitUntil(lambda: win.about_dialog.summary.text().startswith("Not ready"), timeout=WAIT_MS)
        assert "'smollm2-135m' is not prepared" in win.about_dialog.summary.text()
        assert lines_by_label(win.about_dialog.report.toPlainText())["LLM"][0] == "missing"
    finally:
        win.close()
