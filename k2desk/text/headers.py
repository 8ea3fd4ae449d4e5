"""The one line that names a chunk's document (title, outlet, date), indexed and shown with every
chunk; and the date spelled both ways questions use."""

from __future__ import annotations

from datetime import datetime

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")


def format_date(value: str) -> str:
    """'2023-10-06T17:22:02+00:00' -> '2023-10-06 (October 6, 2023)'; unparsable: unchanged.

    Both spellings end up in the text: questions say "published on October 6, 2023".
    """
    try:
        d = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return value
    return f"{d:%Y-%m-%d} ({_MONTHS[d.month - 1]} {d.day}, {d.year})"


def chunk_header(title: str, meta: dict) -> str:
    """One line naming a chunk's document (title, outlet, date). It is indexed with every chunk
    (dense and sparse) and shown to the LLM, because questions name outlets and dates that
    otherwise only a document's first chunk carries."""
    parts = [title] if title else []
    if meta.get("source"):
        parts.append(str(meta["source"]))
    if meta.get("published_at"):
        parts.append(format_date(str(meta["published_at"])))
    return " | ".join(parts)
