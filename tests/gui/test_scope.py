"""“Ask about the selected documents”: the document list's selection becomes the Ask tab's scope
(a bar above the question box), the question is asked about those documents alone, the answer and
the history say which documents, and a “not in your documents” answer lists its closest passages.

No LLM: summary requests ("What is in this collection?", "Summarize the observatory page.") are
answered from the documents' summaries; the abstention is a constructed Answer."""

import shutil
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

import k2desk.gui.main_window as main_window  # noqa: E402
from k2desk.engine import Engine  # noqa: E402
from k2desk.gui.widgets.ask_panel import AskPanel  # noqa: E402
from k2desk.gui.widgets.compare_panel import MethodColumn  # noqa: E402
from k2desk.gui.widgets.documents import ASK_ABOUT, DocumentTable  # noqa: E402
from k2desk.gui.widgets.index_panel import IndexPanel  # noqa: E402
from k2desk.methods.registry import METHOD_NAMES  # noqa: E402
from k2desk.prompts import NOT_IN_DOCUMENTS  # noqa: E402
from k2desk.types import Answer, Source  # noqa: E402
from k2desk.verdict import declined  # noqa: E402
from tests.gui.test_main_window import WAIT_MS  # noqa: E402

pytestmark = pytest.mark.gui

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "sample"
SCOPED = ("observatory.html", "river-ferry.txt")


@pytest.fixture
def sample(tmp_path) -> Path:
    dst = tmp_path / "sample"
    shutil.copytree(SAMPLE, dst)
    return dst


@pytest.fixture
def asked(monkeypatch) -> list:
    """The ``documents`` each AskWorker the window starts was given."""
    given: list = []

    class Recorded(main_window.AskWorker):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            given.append(list(self.documents))

    monkeypatch.setattr(main_window, "AskWorker", Recorded)
    return given


def keys_by_name(win) -> dict[str, str]:
    return {name: key for name, _label, _detail, key in win.index_panel.documents.rows()}


def click_rows(qtbot, table: DocumentTable, rows, modifier=Qt.KeyboardModifier.ControlModifier) -> None:
    """Click the first row, then Ctrl-click the others, as a person selects several documents."""
    for i, row in enumerate(rows):
        rect = table.visualRect(table.documents.index(row, 0))
        qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton,
                         modifier if i else Qt.KeyboardModifier.NoModifier, rect.center())


def ask(qtbot, win, question: str, method: str = "hybrid") -> Answer:
    panel = win.ask_panel
    panel.method.setCurrentIndex(panel.method.findData(method))
    panel.question.setText(question)
    qtbot.mouseClick(panel.ask_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.ask_job is None, timeout=WAIT_MS)
    assert win.last_answer is not None and win.last_answer.question == question, panel.answer.toPlainText()
    return win.last_answer


def test_asking_about_the_selected_documents_scopes_the_answer_and_the_history(qtbot, settings, sample,
                                                                               indexed_window, asked):
    win = indexed_window(settings, [sample])
    try:
        win.tabs.setCurrentWidget(win.index_panel)  # where the documents are selected
        table = win.index_panel.documents
        keys = keys_by_name(win)
        rows = [name for name, *_ in table.rows()]
        click_rows(qtbot, table, [rows.index(n) for n in SCOPED])
        assert table.selected_keys() == [keys[n] for n in SCOPED]
        assert win.index_panel.ask_about_button.isEnabled()
        assert win.index_panel.selection_label.text() == "2 documents selected"

        menu = table.context_menu(rows.index("river-ferry.txt"))  # right-click on a selected row: the selection
        action = next(a for a in menu.actions() if a.text() == ASK_ABOUT)
        assert action.isEnabled()
        action.trigger()
        panel = win.ask_panel
        assert win.tabs.currentWidget() is panel
        assert panel.scope == [keys[n] for n in SCOPED]
        assert panel.scope_bar.isVisible()
        assert panel.scope_bar.label.text() == "Asking about: observatory.html, river-ferry.txt"

        overview = ask(qtbot, win, "What is in this collection?")
        assert asked == [[keys[n] for n in SCOPED]]  # the worker was given the scope
        assert overview.scope == sorted(keys[n] for n in SCOPED)  # and the engine asked about them alone
        assert overview.trace["reader"]["form"] == "summary"
        lines = overview.answer.splitlines()
        assert lines[0] == "The 2 documents asked about:" and len(lines) == 3
        assert all(line.startswith("• ") for line in lines[1:])
        shown = [line for line in panel.answer.toPlainText().splitlines() if line.strip()]
        assert shown == lines  # the overview's "•" lines stay lines
        block, indents = panel.answer.document().begin(), {}
        while block.isValid():
            if block.text().strip():
                indents[block.text()[:1]] = block.blockFormat().textIndent()
            block = block.next()
        assert indents["•"] < 0 and indents["T"] == 0  # a long "•" line wraps under its text, not under the "•"
        assert panel.asked_about.isVisible()
        assert panel.asked_about.text() == "Asked about: observatory.html, river-ferry.txt"
        assert {Path(d).name for d in panel.sources.documents()} == set(SCOPED)
        assert panel.sources_box.title() == "Sources"

        summary = ask(qtbot, win, "Summarize the observatory page.")
        assert summary.trace["reader"]["form"] == "summary" and summary.llm.calls == 0
        assert Path(panel.sources.documents()[0]).name == "observatory.html"
        assert panel.sources.list.topLevelItemCount() >= 1 and panel.answer.toPlainText().strip()
        assert panel.scope == [keys[n] for n in SCOPED]  # the scope stays for the next question

        history = win.history_panel
        assert history.entries[0].question == "Summarize the observatory page."
        assert history.entries[0].scope == sorted(keys[n] for n in SCOPED)
        assert "Asked about: observatory.html, river-ferry.txt" in history.view.toPlainText()
        assert history.list.topLevelItem(0).text(2).endswith("[2 documents]")

        panel.set_scope([])  # "Ask again" asks about the entry's documents, whatever the scope now
        qtbot.mouseClick(history.again_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: win.ask_job is None, timeout=WAIT_MS)
        assert asked[-1] == sorted(keys[n] for n in SCOPED) and win.last_answer.scope == asked[-1]
        assert panel.scope_bar.label.text() == "Asking about: observatory.html, river-ferry.txt"
    finally:
        win.close()


def test_the_scope_clears_with_its_button_a_removed_document_and_another_collection(qtbot, settings, sample,
                                                                                    indexed_window, asked):
    win = indexed_window(settings, [sample])
    try:
        table, panel = win.index_panel.documents, win.ask_panel
        keys = keys_by_name(win)
        table.select_keys([keys[n] for n in SCOPED])
        qtbot.mouseClick(win.index_panel.ask_about_button, Qt.MouseButton.LeftButton)
        assert panel.scope == [keys[n] for n in SCOPED] and panel.scope_bar.isVisible()

        qtbot.mouseClick(panel.scope_bar.clear_button, Qt.MouseButton.LeftButton)
        assert panel.scope == [] and not panel.scope_bar.isVisible()
        whole = ask(qtbot, win, "What is in this collection?")
        assert asked == [[]] and whole.scope == []
        assert whole.answer.splitlines()[0] == "This collection holds 3 documents."
        assert not panel.asked_about.isVisible()

        win.ask_about([keys[n] for n in SCOPED])
        win.remove_document(keys["river-ferry.txt"])  # a removed document leaves the scope
        assert panel.scope == [keys["observatory.html"]]
        assert panel.scope_bar.label.text() == "Asking about: observatory.html"
        win.remove_document(keys["observatory.html"])
        assert panel.scope == [] and not panel.scope_bar.isVisible()

        win.ask_about([keys["solar-cooperative.md"]])
        with Engine(settings, "other") as engine:  # another collection, the same files indexed in it
            engine.index([sample])
        win.collections.reload(select="other")
        assert win.collection == "other" and panel.scope == [] and not panel.scope_bar.isVisible()
    finally:
        win.close()


def test_failed_and_skipped_rows_are_not_asked_about(qtbot):
    panel = IndexPanel()
    qtbot.addWidget(panel)
    table = panel.documents
    table.set_all([("/d/a.txt", "done", "3 chunks"), ("/d/bad.pdf", "failed", "cannot read PDF"),
                   ("/d/photo.bin", "skipped", "unsupported"), ("/d/b.md", "processing", "searchable")])
    assert not panel.ask_about_button.isEnabled()
    table.select_keys(["/d/bad.pdf", "/d/photo.bin"])
    assert table.selected_keys() == [] and not panel.ask_about_button.isEnabled()
    table.selectAll()
    assert table.selected_keys() == ["/d/a.txt", "/d/b.md"] and panel.ask_about_button.isEnabled()
    emitted = []
    table.ask_about_requested.connect(emitted.append)
    qtbot.mouseClick(panel.ask_about_button, Qt.MouseButton.LeftButton)
    assert emitted == [["/d/a.txt", "/d/b.md"]]
    assert table.context_menu(table.documents.row_of["/d/photo.bin"]) is None


def passage(doc: str, chunk: int, text: str) -> Source:
    return Source(document=doc, chunk_id=chunk, score=0.41, text=text)


def test_not_in_your_documents_lists_the_closest_passages(qtbot):
    panel = AskPanel(METHOD_NAMES, "k2rag", lambda key: None)
    qtbot.addWidget(panel)
    panel.show()
    closest = [passage("/d/observatory.html", 3, "The observatory's dome was rebuilt in 1987."),
               passage("/d/river-ferry.txt", 7, "The ferry crosses the Kessing in twelve minutes.")]
    abstained = Answer(question="Who painted the observatory's dome?", method="k2rag", answer=NOT_IN_DOCUMENTS,
                       sources=closest, trace={"reader": {"form": "abstain"},
                                               "scope": {"documents": ["/d/observatory.html", "/d/river-ferry.txt"]}},
                       verdict=declined("the passages do not mention painted"))
    panel.begin(abstained.question, "k2rag")  # the answer says what it was asked about
    panel.show_answer(abstained)
    assert panel.sources_box.title() == "Closest passages"
    assert panel.sources.list.topLevelItemCount() == 2 and panel.sources.documents()[0] == "/d/observatory.html"
    assert panel.answer.toPlainText().strip() == NOT_IN_DOCUMENTS
    assert panel.asked_about.text() == "Asked about: observatory.html, river-ferry.txt"
    assert panel.meta.text().endswith("· 2 closest passages")
    tree = panel.trace.tree
    scope = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                 if tree.topLevelItem(i).text(0) == "Documents asked about")
    assert scope.text(1) == "observatory.html, river-ferry.txt" and scope.childCount() == 2
    verdict = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                   if tree.topLevelItem(i).text(0).startswith("Verdict"))
    assert verdict.text(1) == "declined: the passages do not mention painted"  # how the answer was found: the decision

    column = MethodColumn(METHOD_NAMES, "k2rag", optional=False)
    qtbot.addWidget(column)
    column.show_answer(abstained)
    assert column.sources.headerItem().text(1) == "Closest passage"

    answered = Answer(question="When was the dome rebuilt?", method="hybrid", answer="In 1987.", sources=closest[:1],
                      trace={"reader": {"form": "open"}})
    panel.begin(answered.question, "hybrid")
    panel.show_answer(answered)
    assert panel.sources_box.title() == "Sources" and not panel.asked_about.isVisible()
    assert panel.meta.text().endswith("· 1 source") and "Documents asked about" not in panel.trace.titles()
    column.reset(waiting=False)
    column.show_answer(answered)
    assert column.sources.headerItem().text(1) == "Source"
