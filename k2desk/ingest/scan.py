"""Find the documents under the files and folders a person picked.

Folders are walked recursively (symlinked folders are not followed, so no loops); hidden names
(starting with ".") and common junk (Office "~$" lock files, Thumbs.db, desktop.ini, editor
backups ending in "~") are skipped silently. Everything else comes back as a ScanItem: kind set
for a supported file, kind None with a reason for one that will not be read (an unsupported
type, a broken or looping link, a FIFO or device).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from k2desk.errors import IngestError
from k2desk.ingest.readers import SUPPORTED

JUNK_NAMES = {"thumbs.db", "desktop.ini", "__macosx", "__pycache__", "$recycle.bin"}


@dataclass
class ScanItem:
    path: Path  # absolute, resolved
    kind: str | None  # a value of SUPPORTED; None => skipped
    reason: str | None = None  # why it is skipped, e.g. "unsupported file type .bin"


def is_hidden_or_junk(name: str) -> bool:
    return (name.startswith((".", "~$")) or name.endswith("~")
            or name.lower() in JUNK_NAMES)


def classify(path: Path) -> ScanItem:
    """A ScanItem for one file path (resolved), by extension."""
    name = path.name
    if name.startswith("~$") or name.endswith("~"):
        return ScanItem(path, None, "temporary or lock file")
    suffix = path.suffix.lower()
    kind = SUPPORTED.get(suffix)
    if kind is None:
        return ScanItem(path, None, f"unsupported file type {suffix}" if suffix
                        else "unsupported file type (no extension)")
    return ScanItem(path, kind, None)


def _walk(root: Path, found: dict[Path, ScanItem]) -> None:
    def on_error(exc: OSError) -> None:
        where = Path(exc.filename or root)
        found.setdefault(where, ScanItem(where, None, f"cannot open folder ({exc.strerror or exc})"))

    for folder, dirnames, filenames in os.walk(root, onerror=on_error):
        dirnames[:] = sorted(d for d in dirnames if not is_hidden_or_junk(d))
        for filename in filenames:
            if is_hidden_or_junk(filename):
                continue
            path = Path(folder, filename)
            if (odd := _not_a_file(path)) is not None:
                found.setdefault(path, ScanItem(path, None, odd))
                continue
            resolved = path.resolve()
            found.setdefault(resolved, classify(resolved))


def _not_a_file(path: Path) -> str | None:
    """Why ``path`` is not a regular file that can be read (a broken or looping link, a FIFO,
    a socket, a device), or None when it is one."""
    try:
        path.resolve(strict=True)
        mode = path.stat().st_mode
    except RuntimeError:
        return "symbolic link loop"
    except FileNotFoundError:
        return "broken symbolic link" if path.is_symlink() else "vanished while scanning"
    except OSError as exc:
        return "symbolic link loop" if exc.errno == errno.ELOOP else f"cannot open ({exc.strerror or exc})"
    if not stat.S_ISREG(mode):
        return "not a regular file (a FIFO, socket or device)"
    return None


def scan(paths: Iterable[str | Path]) -> list[ScanItem]:
    """Files and folders (recursive) -> ScanItems sorted by path, each file once.

    A file named explicitly is classified even when its name is hidden. Raises
    IngestError("no such file or folder: <path>") before scanning anything if a path is missing.
    """
    roots = [Path(p).expanduser() for p in paths]
    for root in roots:
        if not root.exists():
            raise IngestError(f"no such file or folder: {root}")
    found: dict[Path, ScanItem] = {}
    for root in roots:
        if root.is_dir():
            _walk(root.resolve(), found)
        else:
            resolved = root.resolve()
            found.setdefault(resolved, classify(resolved))
    return sorted(found.values(), key=lambda item: str(item.path))
