"""Where a passage sits in its file: its pages, slides or sheet rows.

A reader that knows its file's parts writes the text part by part with ``Parts`` and records
where each part's text starts (meta ``page_offsets``: part i+1 starts at offsets[i], a part with
no text gets the offset of the next one), what the parts are (meta ``unit``: "page" when absent,
"slide", "rows") and, for rows, each part's sheet and rows (meta ``parts``: [sheet, first row,
last row], sheet an index into meta ``sheets``). ``span`` and ``location`` read a passage's parts
off its character offsets, so a citation says "p. 3", "slides 2–3" or "sheet Stock, rows 12–21".
"""

from __future__ import annotations

import bisect
from typing import Any, Optional

SEPARATOR = "\n\n"


class Parts:
    """Build a document's text part by part, remembering where each part starts."""

    def __init__(self, unit: str = "page") -> None:
        self.unit = unit
        self._pieces: list[str] = []  # joined once, at the end (a sheet of 100,000 rows is 10,000 parts)
        self._length = 0
        self.offsets: list[int] = []
        self.names: list[list[Any]] = []
        self.sheets: list[str] = []
        self._pending: list[Optional[list[Any]]] = []  # parts with no text yet: they start where the next one does

    @property
    def text(self) -> str:
        if len(self._pieces) > 1:
            self._pieces = ["".join(self._pieces)]
        return self._pieces[0] if self._pieces else ""

    def add(self, text: str, name: Optional[list[Any]] = None) -> None:
        """Append one part (already normalized; "" for a part with no text, e.g. a blank page)."""
        self._pending.append(name)
        if not text:
            return
        if self._length:
            self._pieces.append(SEPARATOR)
            self._length += len(SEPARATOR)
        for pending in self._pending:
            self.offsets.append(self._length)
            if pending is not None:
                self.names.append(pending)
        self._pending = []
        self._pieces.append(text)
        self._length += len(text)

    def sheet(self, name: str) -> int:
        """The index of a sheet's name in meta ``sheets`` (for rows' part names)."""
        self.sheets.append(name)
        return len(self.sheets) - 1

    def meta(self) -> dict[str, Any]:
        offsets = self.offsets + [self._length] * len(self._pending)
        names = self.names + [n for n in self._pending if n is not None]
        meta: dict[str, Any] = {"page_offsets": offsets}
        if self.unit == "page":
            meta["pages"] = len(offsets)
        else:
            meta["unit"] = self.unit
            if self.unit == "slide":
                meta["slides"] = len(offsets)
        if names:
            meta["parts"] = names
        if self.sheets:
            meta["sheets"] = self.sheets
        return meta


def span(meta: dict[str, Any], start: int, end: int) -> tuple[int, int]:
    """(first, last) part (1-based) of the characters start..end; (0, 0) for a document without parts."""
    offsets = meta.get("page_offsets") or []
    if not offsets:
        return 0, 0
    first = max(1, bisect.bisect_right(offsets, start))
    return first, max(first, bisect.bisect_right(offsets, max(start, end - 1)))


def unit(meta: dict[str, Any]) -> str:
    return str(meta.get("unit") or "page")


def label(meta: dict[str, Any], first: int, last: int) -> str:
    """"p. 3", "pp. 2–3", "slide 4", "slides 4–5", "sheet Stock, rows 12–31", "rows 2–11" (one
    unnamed sheet, a CSV); "" for no part."""
    if not first:
        return ""
    kind = unit(meta)
    if kind == "rows":
        parts, sheets = meta.get("parts") or [], meta.get("sheets") or []
        if not (0 < first <= len(parts) and 0 < last <= len(parts)):
            return ""
        (s1, r1, _), (s2, _, r2) = parts[first - 1], parts[last - 1]
        name1 = sheets[s1] if s1 < len(sheets) else ""
        if s1 != s2:
            name2 = sheets[s2] if s2 < len(sheets) else ""
            return f"sheet {name1} row {r1} – sheet {name2} row {r2}"
        rows = f"rows {r1}–{r2}" if r2 > r1 else f"row {r1}"
        return f"sheet {name1}, {rows}" if name1 else rows
    one, many = {"slide": ("slide", "slides")}.get(kind, ("p.", "pp."))
    return f"{many} {first}–{last}" if last > first else f"{one} {first}"


def location(meta: dict[str, Any], start: int, end: int) -> str:
    """The label of the characters start..end of a document's text (see ``label``)."""
    return label(meta, *span(meta, start, end))
