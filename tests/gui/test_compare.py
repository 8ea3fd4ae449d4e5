"""The Compare tab: one question, three methods side by side on one index, each with its answer,
time, LLM calls and sources; every answer is kept in the history."""

from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from tests.gui.test_main_window import WAIT_MS, visible_dialogs  # noqa: E402

pytestmark = pytest.mark.gui

QUESTION = "How many nautical miles is the Harwick Point lighthouse visible?"


def test_three_methods_side_by_side_with_time_calls_and_sources(qtbot, settings, folder, indexed_window):
    win = indexed_window(replace(settings, top_k=3, max_answer_tokens=16), [folder])
    try:
        panel = win.compare_panel
        assert panel.chosen() == ["k2rag", "evidence", "hybrid"]  # the defaults
        for column, method in zip(panel.columns, ("keyword", "kg", "semantic")):
            column.method.setCurrentIndex(column.method.findData(method))
        panel.question.setText(QUESTION)
        qtbot.mouseClick(panel.compare_button, Qt.MouseButton.LeftButton)
        assert win.ask_job is not None and not panel.compare_button.isEnabled()
        assert not win.ask_panel.ask_button.isEnabled()  # one question at a time
        qtbot.waitUntil(lambda: win.ask_job is None, timeout=WAIT_MS)

        keyword, kg, semantic = panel.columns
        for column in (keyword, semantic):
            assert column.answer.toPlainText().strip()
            assert " s · 1 LLM call · " in column.meta.text()
            assert Path(column.sources.topLevelItem(0).toolTip(1).split("\n")[0]).name == "lighthouse.txt"
        # the naive profile builds no graph: kg says so in its own column, the others still answer
        assert "graph" in kg.answer.toPlainText() and kg.sources.topLevelItemCount() == 0
        assert panel.state.text().startswith("Answered: keyword ") and "semantic" in panel.state.text()
        assert panel.compare_button.isEnabled() and win.ask_panel.ask_button.isEnabled()
        assert [(e.method, e.question) for e in win.history_panel.entries] == [("semantic", QUESTION),
                                                                               ("keyword", QUESTION)]
        assert visible_dialogs() == []

        panel.columns[1].method.setCurrentIndex(panel.columns[1].method.findData("keyword"))
        panel.columns[2].method.setCurrentIndex(0)  # "—": only one distinct method left
        qtbot.mouseClick(panel.compare_button, Qt.MouseButton.LeftButton)
        assert win.ask_job is None and panel.state.text() == "Choose two or three different methods."
    finally:
        win.close()
