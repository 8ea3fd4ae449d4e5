"""What every reader produces and shares: the ``RawDocument``, the text normalization that makes
offsets stable, and the one-line form of a library's error."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from k2desk.progress import NEVER, CancelToken, Progress, no_progress


@dataclass
class RawDocument:
    key: str  # absolute resolved path; for a corpus record f"{path}#{url}" (or #line-N)
    title: str
    text: str  # normalized text to index (corpus records: metadata header + body)
    kind: str  # a value of SUPPORTED
    meta: dict = field(default_factory=dict)
    content_hash: str = ""  # sha256 hex of the file's bytes / the record's canonical JSON


def short_reason(exc: BaseException, limit: int = 160) -> str:
    """'ClassName: first line of the message', truncated: the one-line form of a library error."""
    lines = str(exc).strip().splitlines()
    msg = f"{type(exc).__name__}: {lines[0].strip()}" if lines else type(exc).__name__
    return msg if len(msg) <= limit else msg[: limit - 1] + "…"


# --- text normalization ---------------------------------------------------------------------

_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u2060\ufeff"), None)  # soft hyphen, ZWSP, WJ, BOM
_BREAKS = str.maketrans({"\r": "\n", "\x0b": "\n", "\x85": "\n", "\u2028": "\n",
                         "\x0c": "\n\n", "\u2029": "\n\n"})
CONTROL_CHARS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_SPACES = re.compile(r"[^\S\n]+")  # any whitespace except newline (tabs, NBSP, thin spaces ...)
_BLANK_RUNS = re.compile(r"\n{3,}")


def normalize_text(text: str) -> str:
    """Collapse runs of spaces, keep single newlines and paragraph breaks (one blank line), strip.

    Idempotent: normalize_text(normalize_text(s)) == normalize_text(s), so offsets into the
    stored text stay valid.
    """
    text = text.replace("\r\n", "\n").translate(_BREAKS).translate(_INVISIBLE)
    text = _SPACES.sub(" ", CONTROL_CHARS.sub("", text))
    text = "\n".join(line.strip() for line in text.split("\n"))
    return _BLANK_RUNS.sub("\n\n", text).strip()


@dataclass
class ReadContext:
    """What a slow reader may use: OCR (a factory, so the models load at the first page that needs
    them), the cache of OCR'd pages, progress per page ("ocr", done, total) and cancel between pages."""

    ocr: Optional[Callable[[], Any]] = None  # -> an ocr.OcrEngine
    cache: Optional[Any] = None  # an ocr.OcrCache
    progress: Progress = no_progress
    cancel: CancelToken = NEVER
    content_hash: str = ""  # the sha256 of the file being read (set by read_path): the OCR cache's key


def reading_note(meta: dict) -> str:
    """How a document was read, for its row in a list: "OCR, 3 pages, confidence 0.97",
    "text layer + OCR (2 of 10 pages, confidence 0.95)"; "" for a document read from its text."""
    reading = meta.get("reading") or ""
    if "OCR" not in reading:
        return ""
    pages, total = int(meta.get("ocr_pages") or 0), int(meta.get("pages") or meta.get("ocr_pages") or 0)
    confidence = f"confidence {float(meta.get('ocr_confidence') or 0):.2f}"
    if reading == "OCR":
        return f"OCR, {pages} page{'s' if pages != 1 else ''}, {confidence}"
    return f"{reading} ({pages} of {total} pages, {confidence})"
