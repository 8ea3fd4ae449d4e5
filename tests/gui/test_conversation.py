"""The Ask tab as a conversation (issue 54): a question and a follow-up one under the other, the
follow-up shown as understood, the conversation listed, reopened after a restart and continued,
renamed, exported as Markdown and deleted; Up recalls the last question, Esc stops an answer."""

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt

from k2desk.gui.main_window import MainWindow

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "sample"
WAIT_MS = 600_000


def ask(qtbot, win, text):
    panel = win.ask_panel
    panel.question.setText(text)
    qtbot.keyClick(panel.question, Qt.Key.Key_Return)  # Enter asks
    qtbot.waitUntil(lambda: win.ask_job is None, timeout=WAIT_MS)
    return win.last_answer


def test_a_conversation_is_kept_reopened_after_a_restart_and_continued(qtbot, settings, indexed_window, tmp_path,
                                                                       monkeypatch):
    from k2desk.engine import Engine

    read_ahead = []  # the threads whose next message the worker read ahead for, after showing the answer
    real = Engine.read_ahead
    monkeypatch.setattr(Engine, "read_ahead", lambda self, thread=None, turns=None, cancel=None:
                        read_ahead.append(thread) or real(self, thread, turns, cancel))
    settings = replace(settings, top_k=4, max_answer_tokens=24)
    win = indexed_window(settings, [SAMPLE])
    try:
        panel = win.ask_panel
        assert "answers with SmolLM2-135M" in win.status.text() or "answers with smollm2-135m" in win.status.text()
        first = ask(qtbot, win, "Who leads the Lindenfeld Solar Cooperative?")
        thread = first.conversation["thread"]
        assert read_ahead == [thread]
        assert panel.thread == thread and not panel.transcript_box.isVisible() and not panel.understood.isVisible()
        follow = ask(qtbot, win, "And who is its treasurer?")
        assert read_ahead == [thread, thread]
        # the tiny test model rewrites it its own way (the default model's rewrites: tests/test_conversation.py)
        assert follow.conversation["thread"] == thread and follow.understood_as not in ("", "And who is its treasurer?")
        assert panel.understood.isVisible() and panel.understood.text() == f"Understood as: {follow.understood_as}"
        shown = panel.transcript.toPlainText()  # the first turn above the answer
        assert "You: Who leads the Lindenfeld Solar Cooperative?" in shown and panel.transcript.isVisible()
        assert panel.answer.toPlainText().strip() == follow.answer.strip()
        assert panel.conversations.list.count() == 1 and "2 turns" in panel.conversations.list.item(0).text()
        panel.question.clear()
        qtbot.keyClick(panel.question, Qt.Key.Key_Up)  # Up recalls the last question
        assert panel.question.text() == "And who is its treasurer?"
        qtbot.keyClick(panel.question, Qt.Key.Key_Up)
        assert panel.question.text() == "Who leads the Lindenfeld Solar Cooperative?"
        qtbot.mouseClick(panel.conversations.new_button, Qt.MouseButton.LeftButton)
        assert panel.thread is None and not panel.transcript_box.isVisible()
    finally:
        win.close()

    win = MainWindow(settings)  # a restart
    qtbot.addWidget(win)
    win.show()
    try:
        panel = win.ask_panel
        assert panel.conversations.list.count() == 1 and panel.thread is None
        item = panel.conversations.list.item(0)
        qtbot.mouseClick(panel.conversations.list.viewport(), Qt.MouseButton.LeftButton,
                         pos=panel.conversations.list.visualItemRect(item).center())
        assert panel.thread == thread
        shown = panel.transcript.toPlainText()
        assert "You: And who is its treasurer?" in shown and f"Understood as: {follow.understood_as}" in shown
        third = ask(qtbot, win, "When was it founded?")
        assert third.conversation["thread"] == thread and third.understood_as not in ("", "When was it founded?")
        assert "3 turns" in panel.conversations.list.item(0).text()
        win.rename_thread(thread, "Solar cooperative")
        assert panel.conversations.list.item(0).text().startswith("Solar cooperative\n")
        out = tmp_path / "conversation.md"
        win.export_thread(thread, str(out))
        md = out.read_text(encoding="utf-8")
        assert md.startswith("# Solar cooperative\n") and md.index("## Who leads") < md.index("## And who is its treasurer?")
        assert "*Understood as: " in md and "**Sources**" in md
        assert len(win.history_panel.entries) == 3  # each turn is in the History too
    finally:
        win.close()


def test_escape_stops_an_answer_and_the_conversation_goes_on(qtbot, settings, indexed_window):
    win = indexed_window(replace(settings, max_answer_tokens=96), [SAMPLE])
    try:
        panel = win.ask_panel
        panel.question.setText("Describe the Lindenfeld Solar Cooperative in detail.")
        qtbot.keyClick(panel.question, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: panel.stop_button.isEnabled(), timeout=WAIT_MS)
        qtbot.keyClick(panel.question, Qt.Key.Key_Escape)
        qtbot.waitUntil(lambda: win.ask_job is None, timeout=WAIT_MS)
        assert "stopped." in panel.answer.toPlainText() and panel.ask_button.isEnabled()
        answer = ask(qtbot, win, "Who leads the Lindenfeld Solar Cooperative?")
        assert answer is not None and answer.conversation["how"] == "first"  # the stopped message left no turn
    finally:
        win.close()
