"""Watched folders: a change to a file in one (created, saved, moved, deleted) re-indexes it into
its collection, a couple of seconds after the last change (an editor's save is several events).

``watchdog`` reports the file system's events (inotify on Linux) on its own thread; they cross to
the GUI thread as a queued signal and are collected per collection until the debounce timer
fires, then ``changed(collection, changed_paths, removed_paths)`` is emitted once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Optional

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from watchdog.events import FileSystemEventHandler
from watchdog.observers import Observer

DEBOUNCE_MS = 2000
TEMPORARY = (".swp", ".swx", ".tmp", ".part", ".crdownload", ".kate-swp", "~")


def interesting(path: str) -> bool:
    """A user's file, not an editor's or a download's temporary one, nor a hidden file."""
    name = Path(path).name
    return bool(name) and not name.startswith((".", "~$", ".~lock")) and not name.endswith(TEMPORARY)


class _Events(QObject):
    """Lives in the GUI thread; watchdog's thread emits into it (a queued connection)."""

    event = Signal(str, str, str)  # collection, path, "changed" | "removed"


class FolderWatcher(QObject):
    changed = Signal(str, list, list)  # collection, changed or created paths, removed paths

    def __init__(self, ignore: Iterable[Path] = (), debounce_ms: int = DEBOUNCE_MS, parent=None) -> None:
        super().__init__(parent)
        self.debounce_ms = debounce_ms
        self.ignore = [Path(p).resolve() for p in ignore]  # e.g. k2desk's own data folder
        self.folders: dict[str, set[str]] = {}  # collection -> watched folders
        self.pending: dict[str, dict[str, str]] = {}  # collection -> path -> last event kind
        self._events = _Events()
        self._events.event.connect(self._collect)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.flush)
        self._watches: dict[tuple[str, str], object] = {}
        self._observer = None

    # -- folders -----------------------------------------------------------------------
    def watch(self, collection: str, folder: str | Path) -> str:
        """Start watching ``folder`` (recursively) for ``collection``; returns its resolved path."""
        path = str(Path(folder).expanduser().resolve())
        if (collection, path) in self._watches:
            return path
        if self._observer is None:
            self._observer = Observer()
            self._observer.daemon = True
            self._observer.start()
        handler = _Handler(self, collection)
        self._watches[(collection, path)] = self._observer.schedule(handler, path, recursive=True)
        self.folders.setdefault(collection, set()).add(path)
        return path

    def unwatch(self, collection: str, folder: str | Path) -> None:
        path = str(Path(folder).expanduser().resolve())
        watch = self._watches.pop((collection, path), None)
        if watch is not None and self._observer is not None:
            self._observer.unschedule(watch)
        self.folders.get(collection, set()).discard(path)

    def unwatch_collection(self, collection: str) -> None:
        for path in list(self.folders.get(collection, ())):
            self.unwatch(collection, path)
        self.folders.pop(collection, None)
        self.pending.pop(collection, None)

    def watched(self, collection: str) -> list[str]:
        return sorted(self.folders.get(collection, ()))

    def stop(self) -> None:
        self._timer.stop()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(5)
            self._observer = None
        self._watches.clear()

    # -- events ------------------------------------------------------------------------
    def report(self, collection: str, path: str, kind: str) -> None:
        """Called on watchdog's thread."""
        if interesting(path) and not any(Path(path).is_relative_to(p) for p in self.ignore):
            self._events.event.emit(collection, path, kind)

    @Slot(str, str, str)
    def _collect(self, collection: str, path: str, kind: str) -> None:
        if collection not in self.folders:
            return  # unwatched meanwhile
        self.pending.setdefault(collection, {})[path] = kind
        self._timer.start(self.debounce_ms)  # restarts: fires once the changes have settled

    @Slot()
    def flush(self) -> None:
        pending, self.pending = self.pending, {}
        for collection, events in pending.items():
            changed = sorted(p for p, kind in events.items() if kind == "changed" and Path(p).exists())
            removed = sorted(p for p, kind in events.items() if kind == "removed" or not Path(p).exists())
            if changed or removed:
                self.changed.emit(collection, changed, removed)


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: FolderWatcher, collection: str) -> None:
        super().__init__()
        self.watcher = watcher
        self.collection = collection

    def on_any_event(self, event) -> None:
        kind: Optional[str] = {"created": "changed", "modified": "changed", "closed": "changed",
                               "deleted": "removed", "moved": "removed"}.get(event.event_type)
        if kind is None or (event.is_directory and event.event_type in ("modified", "closed")):
            return  # a folder is "modified" whenever a file in it is: that file has its own event
        self.watcher.report(self.collection, str(event.src_path), kind)
        if event.event_type == "moved":
            self.watcher.report(self.collection, str(event.dest_path), "changed")
