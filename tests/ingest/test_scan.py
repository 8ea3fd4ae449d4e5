"""scan(): folders walked recursively, hidden/junk skipped, unsupported files reported."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from k2desk.errors import IngestError
from k2desk.ingest import ScanItem, read_path, scan

MIXED = Path(__file__).resolve().parents[1] / "fixtures" / "mixed"

EXPECTED = {
    "binary.txt": "txt",
    "corrupt.pdf": "pdf",
    "empty.txt": "txt",
    "garden.html": "html",
    "lighthouse.txt": "txt",
    "minutes.docx": "docx",
    "nested/chess_club.txt": "txt",
    "photo.bin": None,
    "recipes.md": "md",
    "report.pdf": "pdf",
}


def rel(items: list[ScanItem], root: Path) -> dict[str, str | None]:
    return {item.path.relative_to(root).as_posix(): item.kind for item in items}


def test_scan_mixed_folder():
    items = scan([MIXED])
    assert rel(items, MIXED) == EXPECTED
    assert [str(i.path) for i in items] == sorted(str(i.path) for i in items)
    assert all(i.path.is_absolute() for i in items)
    skipped = [i for i in items if i.kind is None]
    assert [(i.path.name, i.reason) for i in skipped] == [("photo.bin", "unsupported file type .bin")]
    assert all(i.reason is None for i in items if i.kind)


def test_scan_deduplicates_overlapping_paths():
    items = scan([MIXED / "nested", str(MIXED), MIXED / "lighthouse.txt", MIXED / "nested" / ".."])
    assert rel(items, MIXED) == EXPECTED and len(items) == len(EXPECTED)


def test_scan_skips_hidden_and_junk(tmp_path):
    for name in ("keep.txt", ".hidden.txt", "~$minutes.docx", "Thumbs.db", "desktop.ini",
                 "draft.md~", ".git/config.txt", "sub/.DS_Store", "sub/deep/keep2.md",
                 ".cache/x.pdf", "__pycache__/m.txt", "README"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    assert rel(scan([tmp_path]), tmp_path) == {"keep.txt": "txt", "sub/deep/keep2.md": "md",
                                                "README": None}
    readme = scan([tmp_path / "README"])[0]
    assert readme.reason == "unsupported file type (no extension)"


def test_explicit_files(tmp_path):
    (tmp_path / "REPORT.PDF").write_bytes(b"%PDF-1.4")
    (tmp_path / ".notes.md").write_text("x")
    (tmp_path / "~$lock.docx").write_text("x")
    items = scan([tmp_path / "REPORT.PDF", tmp_path / ".notes.md", tmp_path / "~$lock.docx"])
    assert [(i.path.name, i.kind, i.reason) for i in items] == [
        (".notes.md", "md", None),  # named explicitly: read even though hidden
        ("REPORT.PDF", "pdf", None),
        ("~$lock.docx", None, "temporary or lock file"),
    ]


def test_missing_path_raises(tmp_path):
    missing = tmp_path / "nope"
    with pytest.raises(IngestError, match=r"^no such file or folder: .*nope$"):
        scan([MIXED, missing])


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")
def test_symlinks_dedupe_and_no_loops(tmp_path):
    (tmp_path / "real.txt").write_text("x")
    (tmp_path / "link.txt").symlink_to(tmp_path / "real.txt")
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "dangling.txt").symlink_to(tmp_path / "gone.txt")
    (tmp_path / "a.txt").symlink_to(tmp_path / "b.txt")
    (tmp_path / "b.txt").symlink_to(tmp_path / "a.txt")
    os.mkfifo(tmp_path / "pipe.txt")
    items = scan([tmp_path])
    assert [(i.path.name, i.kind) for i in items if i.kind] == [("real.txt", "txt")]
    assert {i.path.name: i.reason for i in items if not i.kind} == {
        "a.txt": "symbolic link loop", "b.txt": "symbolic link loop", "dangling.txt": "broken symbolic link",
        "pipe.txt": "not a regular file (a FIFO, socket or device)"}


def test_every_scanned_file_reads_or_fails_cleanly():
    failed = {}
    for item in scan([MIXED]):
        if item.kind is None:
            continue
        try:
            docs = read_path(item.path)
            assert docs[0].key == str(item.path) and docs[0].kind == item.kind
        except IngestError as exc:
            failed[item.path.name] = str(exc)
    assert sorted(failed) == ["binary.txt", "corrupt.pdf", "empty.txt"]
    assert all(msg.startswith(name + ": ") for name, msg in failed.items())
