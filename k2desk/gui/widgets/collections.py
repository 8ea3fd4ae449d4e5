"""The collections list with create / rename / delete: one SQLite file each in the data folder, or
the schemas of the team server named in the settings (``Settings.store``)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from k2desk.config import Settings
from k2desk.errors import K2Error, UsageError
from k2desk.store.address import server_collections, shown_address

SIDE_FILES = ("", "-wal", "-shm", "-journal", "-claims")  # -claims: indexers' claims (k2desk.store.db)


def collection_names(settings: Settings) -> list[str]:
    """The collections where ``settings`` keeps them: the data folder's files, or the team server's."""
    return server_collections(settings.store) if settings.store else settings.list_collections()


def where_collections_live(settings: Settings) -> str:
    """Where the collections are, as the list says it (a server's address without its password)."""
    return f"on {shown_address(settings.store)}" if settings.store else "on this computer"


def create_collection(settings: Settings, name: str) -> str:
    from k2desk.engine import Engine

    name = name.strip()
    settings.collection_address(name)  # validates the name (a server's are stricter than a file's)
    if name in collection_names(settings):
        raise UsageError(f"a collection named {name!r} already exists")
    Engine(settings, name).close()  # creates the file, or the server's schema, with the current migrations
    return name


def _refuse_on_a_server(settings: Settings, action: str) -> None:
    """A team server's collections are shared: renaming or deleting one is for its administrator,
    not one person's app."""
    if settings.store:
        raise UsageError(f"collections on a team server are not {action} from the app; ask the server's administrator")


def rename_collection(settings: Settings, old: str, new: str) -> str:
    _refuse_on_a_server(settings, "renamed")
    new = new.strip()
    src, dst = settings.collection_path(old), settings.collection_path(new)
    if dst.exists():
        raise UsageError(f"a collection named {new!r} already exists")
    for suffix in SIDE_FILES:
        side = src.with_name(src.name + suffix)
        if side.exists():
            side.rename(dst.with_name(dst.name + suffix))
    return new


def delete_collection(settings: Settings, name: str) -> None:
    _refuse_on_a_server(settings, "deleted")
    path = settings.collection_path(name)
    for suffix in SIDE_FILES:
        path.with_name(path.name + suffix).unlink(missing_ok=True)


class CollectionsPanel(QWidget):
    """Emits ``selected(name)``; the buttons ask for names and report errors through ``failed``."""

    selected = Signal(str)
    changed = Signal()  # a collection was created, renamed or deleted
    failed = Signal(str)

    def __init__(self, settings: Settings, busy=lambda name: False, parent=None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.busy = busy  # name -> True while a worker uses that collection
        title = QLabel("<b>Collections</b>")
        self.where = QLabel("")
        self.where.setWordWrap(True)
        self.list = QListWidget()
        self.list.currentItemChanged.connect(lambda item, _p: item is not None and self.selected.emit(item.text()))
        self.new_button = QPushButton("New…")
        self.rename_button = QPushButton("Rename…")
        self.delete_button = QPushButton("Delete")
        self.new_button.clicked.connect(self.ask_create)
        self.rename_button.clicked.connect(self.ask_rename)
        self.delete_button.clicked.connect(self.ask_delete)
        buttons = QHBoxLayout()
        for b in (self.new_button, self.rename_button, self.delete_button):
            buttons.addWidget(b)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(title)
        layout.addWidget(self.where)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)

    def reload(self, select: str | None = None) -> bool:
        """List the collections again; False (the list empty, the reason sent to ``failed``) when
        they cannot be read, e.g. the team server is not there."""
        current = select or self.current()
        self.where.setText(where_collections_live(self.settings))
        for button in (self.rename_button, self.delete_button):
            button.setEnabled(not self.settings.store)
        try:
            names, read = collection_names(self.settings), True
        except K2Error as exc:
            names, read = [], False
            self.failed.emit(str(exc))
        self.list.blockSignals(True)
        self.list.clear()
        for name in names:
            QListWidgetItem(name, self.list)
        self.list.blockSignals(False)
        if names:
            target = current if current in names else names[0]
            self.list.setCurrentRow(names.index(target))  # emits ``selected``
        return read

    def current(self) -> str | None:
        item = self.list.currentItem()
        return item.text() if item is not None else None

    def names(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    # -- actions (also called directly by tests) ---------------------------------------
    def create(self, name: str) -> str:
        name = create_collection(self.settings, name)
        self.reload(select=name)
        self.changed.emit()
        return name

    def rename(self, old: str, new: str) -> str:
        if self.busy(old):
            raise UsageError(f"collection {old!r} is being indexed or queried; wait or cancel first")
        new = rename_collection(self.settings, old, new)
        self.reload(select=new)
        self.changed.emit()
        return new

    def delete(self, name: str) -> None:
        if self.busy(name):
            raise UsageError(f"collection {name!r} is being indexed or queried; wait or cancel first")
        delete_collection(self.settings, name)
        self.reload()
        self.changed.emit()

    def _guard(self, action, *args) -> None:
        try:
            action(*args)
        except (K2Error, OSError) as exc:  # K2Error: also a team server that cannot be reached
            self.failed.emit(str(exc))

    def ask_create(self) -> None:
        name, ok = QInputDialog.getText(self, "New collection", "Name (letters, digits, space, . _ -):")
        if ok and name.strip():
            self._guard(self.create, name)

    def ask_rename(self) -> None:
        old = self.current()
        if old is None:
            return
        new, ok = QInputDialog.getText(self, "Rename collection", f"New name for {old!r}:", text=old)
        if ok and new.strip() and new.strip() != old:
            self._guard(self.rename, old, new)

    def ask_delete(self) -> None:
        name = self.current()
        if name is None:
            return
        answer = QMessageBox.question(self, "Delete collection",
                                      f"Delete the collection {name!r} and its index? Your documents are not touched.",
                                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                      QMessageBox.StandardButton.No)
        if answer == QMessageBox.StandardButton.Yes:
            self._guard(self.delete, name)
