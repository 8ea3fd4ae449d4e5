"""Zip containers (DOCX, EPUB, Office and OpenDocument files): the limits that keep a zip bomb out
of memory, and the mark of a password-protected Office file."""

from __future__ import annotations

import zipfile

from k2desk.errors import IngestError

# A member may inflate to at most 64 MiB, all of them to 256 MiB. The sizes are the archive's own
# declarations; zipfile never inflates a member beyond its declared size (a lying member fails its
# CRC check), so checking them bounds the memory.
_ZIP_MAX_ITEM = 64 << 20
_ZIP_MAX_TOTAL = 256 << 20
_ZIP_MAX_STREAMED = 1 << 30  # a part its library parses as a stream (a workbook's sheets): bounded by time, not memory

# An OLE2 compound file: what Office writes for a password-protected DOCX/XLSX/PPTX (or an old .doc/.xls/.ppt)
ENCRYPTED_OFFICE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def check_zip(zf: zipfile.ZipFile, name: str, kind: str, streamed: str = "") -> None:
    """Refuse an archive that would inflate beyond the limits (a zip bomb). Parts under the
    ``streamed`` prefix are parsed a piece at a time, so they may be larger (a sheet of a million
    formatted rows is ~100 MiB of XML)."""
    infos = zf.infolist()
    held = [i for i in infos if not (streamed and i.filename.startswith(streamed))]
    flowing = sum(i.file_size for i in infos if streamed and i.filename.startswith(streamed))
    total = sum(i.file_size for i in held)
    big = max(held, key=lambda i: i.file_size, default=None)
    if big is not None and (big.file_size > _ZIP_MAX_ITEM or total > _ZIP_MAX_TOTAL):
        raise IngestError(f"{name}: cannot read {kind} (it inflates to {total >> 20:,} MiB; "
                          f"limits {_ZIP_MAX_ITEM >> 20} MiB a part, {_ZIP_MAX_TOTAL >> 20} MiB in all: a zip bomb?)")
    if flowing > _ZIP_MAX_STREAMED:
        raise IngestError(f"{name}: cannot read {kind} (its sheets inflate to {flowing >> 20:,} MiB; "
                          f"the limit is {_ZIP_MAX_STREAMED >> 20:,} MiB: a zip bomb?)")
