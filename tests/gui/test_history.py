"""The History tab: every question asked through the app is kept in the collection with its answer
and sources, survives a restart, can be asked again, removed, and exported as Markdown."""

import re
from dataclasses import replace

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from k2desk.engine import Engine  # noqa: E402
from tests.gui.test_main_window import WAIT_MS  # noqa: E402

pytestmark = pytest.mark.gui

QUESTIONS = (("How many nautical miles is the Harwick Point lighthouse visible?", "keyword"),
             ("Which robot is Quillfeather's best-selling product?", "hybrid"))


def ask_through_the_window(qtbot, win, question, method):
    panel = win.ask_panel
    panel.method.setCurrentIndex(panel.method.findData(method))
    panel.question.setText(question)
    qtbot.mouseClick(panel.ask_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.ask_job is None, timeout=WAIT_MS)
    assert win.last_answer is not None and win.last_answer.question == question


def test_history_keeps_answers_across_restarts_asks_again_and_exports_markdown(qtbot, settings, folder, tmp_path,
                                                                               indexed_window):
    settings = replace(settings, top_k=3, max_answer_tokens=16)
    win = indexed_window(settings, [folder])
    try:
        for question, method in QUESTIONS:
            ask_through_the_window(qtbot, win, question, method)
        answers = {win.last_answer.question: win.last_answer}
        history = win.history_panel
        assert [e.question for e in history.entries] == [q for q, _ in reversed(QUESTIONS)]  # newest first
        assert history.list.topLevelItem(0).text(1) == "hybrid"
        assert "Quillfeather" in history.view.toPlainText() and "report.pdf" in history.view.toPlainText()
        assert history.count.text() == "2 questions asked of “default”"
    finally:
        win.close()

    win = indexed_window(settings)  # a restart: the history is in the collection file
    try:
        history = win.history_panel
        assert [e.question for e in history.entries] == [q for q, _ in reversed(QUESTIONS)]
        newest = history.entries[0]
        assert newest.answer == answers[newest.question].answer
        assert [s["document"] for s in newest.sources] == [s.document for s in answers[newest.question].sources]

        history.list.setCurrentItem(history.list.topLevelItem(1))  # the lighthouse question, asked with keyword
        qtbot.mouseClick(history.again_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: win.ask_job is None, timeout=WAIT_MS)
        assert win.last_answer.question == QUESTIONS[0][0] and win.last_answer.method == "keyword"
        assert len(history.entries) == 3 and history.entries[0].question == QUESTIONS[0][0]

        out = tmp_path / "history.md"
        assert history.export(out) == 3
        md = out.read_text(encoding="utf-8")
        assert md.startswith("# Questions about “default”") and "· 3 questions" in md
        positions = [md.index(f"## {q}") for q, _ in QUESTIONS]
        assert positions == sorted(positions) and md.count(f"## {QUESTIONS[0][0]}") == 2  # oldest first
        assert "`lighthouse.txt`" in md and re.search(r"`report.pdf`, page [12] ", md) and "**Sources**" in md

        history.list.setCurrentItem(history.list.topLevelItem(0))
        qtbot.mouseClick(history.remove_button, Qt.MouseButton.LeftButton)
        assert len(history.entries) == 2
        with Engine(settings, "default") as engine:
            assert len(engine.history.list()) == 2
    finally:
        win.close()
