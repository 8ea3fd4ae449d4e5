"""Office and OpenDocument files, RTF and CSV: slides, sheets and documents as text a reader can use.

- Slides (pptx: python-pptx; odp: odfpy): each slide's title, text frames, tables and speaker
  notes, one part per slide, cited as "slide N".
- Sheets (xlsx: openpyxl, read-only and streamed; ods: odfpy; csv/tsv: the standard library's
  csv): each sheet's rows written with their column headers ("Wood: Walnut · Stock (cubic
  metres): 6.5"), in parts of ``ROWS_PER_PART`` rows, cited as sheet and row range.
- Documents (odt: odfpy; rtf: striprtf): headings, paragraphs, lists and tables in order.

Each reader takes the file's bytes and returns (title, text, meta) like the others in readers.py.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from collections.abc import Iterable, Iterator
from typing import Any

from k2desk.errors import IngestError
from k2desk.ingest.containers import ENCRYPTED_OFFICE, check_zip
from k2desk.ingest.document import normalize_text
from k2desk.ingest.locations import Parts

ROWS_PER_PART = 10  # a sheet's rows are cited in ranges this long (or shorter, at a sheet's end)
MAX_COLUMNS = 256  # columns read per row (a row formatted to column XFD holds no more text)
MAX_CELLS = 4_000_000  # cells looked at per workbook: a sheet of a million formatted empty rows stops here
MAX_ODF_XML = 48 << 20  # an OpenDocument's content.xml is parsed whole (a DOM): at most this large

Read = tuple[str, str, dict]


def _check_container(data: bytes, name: str, kind: str, streamed: str = "") -> zipfile.ZipFile:
    """The zip archive of an Office/OpenDocument file, after the zip-bomb limits; a clear line for
    a password-protected (OLE2-wrapped) or damaged one."""
    if data.startswith(ENCRYPTED_OFFICE):
        raise IngestError(f"{name}: {kind} is password-protected (encrypted), or an old binary Office file")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise IngestError(f"{name}: cannot read {kind} (not a zip archive: damaged or truncated?)") from None
    check_zip(zf, name, kind, streamed)
    return zf


# --- cells and rows -------------------------------------------------------------------------

def cell_text(value: Any) -> str:
    """A cell's value as a person reads it: 6.5, 12, 2025-03-14, TRUE; "" for empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.10g}"
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(sep=" ", timespec="minutes")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return " ".join(str(value).split())


def _column_name(i: int) -> str:
    name = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        name = chr(65 + r) + name
    return f"Column {name}"


class SheetWriter:
    """Rows of one sheet -> lines "Header: value · Header: value", ``ROWS_PER_PART`` rows a part.

    The first non-empty row is the header row when it holds text in every cell it fills and a
    row follows; a row's cells under an empty header are named by their column letter."""

    def __init__(self, parts: Parts, sheet: str) -> None:
        self.parts, self.sheet_index = parts, parts.sheet(sheet)
        self.header: list[str] | None = None
        self.first_row = 0
        self.block: list[str] = []
        self.block_start = self.block_end = 0
        self.pending_header: tuple[int, list[str]] | None = None

    def row(self, number: int, cells: list[str]) -> None:
        if not any(cells):
            return
        if self.header is None and self.pending_header is None:
            if all(c and not _is_number(c) for c in cells if c):
                self.pending_header = (number, cells)
                return
            self.header = []
        if self.pending_header is not None:
            self.header, self.first_row = self.pending_header[1], self.pending_header[0]
            self.pending_header = None
        self._line(number, self._sentence(cells))

    def _sentence(self, cells: list[str]) -> str:
        if not self.header:
            return " | ".join(c for c in cells if c)
        out = []
        for i, c in enumerate(cells):
            if c:
                head = self.header[i] if i < len(self.header) and self.header[i] else _column_name(i)
                out.append(f"{head}: {c}")
        return " · ".join(out)

    def _line(self, number: int, line: str) -> None:
        if not self.block:
            self.block_start = number
        self.block.append(line)
        self.block_end = number
        if len(self.block) >= ROWS_PER_PART:
            self._flush()

    def _flush(self) -> None:
        if self.block:
            self.parts.add(normalize_text("\n".join(self.block)), [self.sheet_index, self.block_start, self.block_end])
            self.block = []

    def close(self) -> None:
        if self.pending_header is not None:  # a sheet of one row: it is data, not a header
            number, cells = self.pending_header
            self.pending_header, self.header = None, []
            self._line(number, self._sentence(cells))
        self._flush()


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", ""))
        return True
    except ValueError:
        return False


def _sheets_meta(parts: Parts, sheets: int) -> dict:
    return {**parts.meta(), "sheet_count": sheets}


# --- spreadsheets -----------------------------------------------------------------------------

def read_xlsx(data: bytes, name: str) -> Read:
    import openpyxl

    _check_container(data, name, "XLSX", streamed="xl/worksheets/")
    try:
        wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise IngestError(f"{name}: cannot read XLSX ({type(exc).__name__}: damaged workbook)") from None
    parts, budget, sheets = Parts("rows"), MAX_CELLS, 0
    try:
        for ws in wb.worksheets:
            if not hasattr(ws, "iter_rows"):
                continue  # a chart sheet
            sheets += 1
            writer = SheetWriter(parts, ws.title)
            for number, row in enumerate(ws.iter_rows(values_only=True), start=1):
                cells = [cell_text(v) for v in row[:MAX_COLUMNS]]
                while cells and not cells[-1]:
                    cells.pop()
                budget -= max(1, len(cells))
                if budget < 0:
                    break
                writer.row(number, cells)
            writer.close()
            if budget < 0:
                break
    finally:
        wb.close()
    return "", parts.text, _sheets_meta(parts, sheets)


def read_delimited(text: str, name: str) -> Read:
    """CSV or TSV text (the delimiter sniffed from the first lines): one sheet, rows with headers."""
    sample = text[:65536]
    try:
        dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel_tab if sample.count("\t") > sample.count(",") else csv.excel
    parts = Parts("rows")
    writer = SheetWriter(parts, "")
    try:
        for number, row in enumerate(csv.reader(io.StringIO(text), dialect), start=1):
            writer.row(number, [" ".join(c.split()) for c in row[:MAX_COLUMNS]])
    except csv.Error as exc:
        raise IngestError(f"{name}: cannot read CSV ({exc})") from None
    writer.close()
    return "", parts.text, parts.meta()


def _odf(data: bytes, name: str, kind: str) -> Any:
    from odf.opendocument import load

    zf = _check_container(data, name, kind)
    try:
        size = zf.getinfo("content.xml").file_size
    except KeyError:
        raise IngestError(f"{name}: cannot read {kind} (no content.xml: damaged?)") from None
    if size > MAX_ODF_XML:
        raise IngestError(f"{name}: too large to read ({size >> 20:,} MiB of content; the limit for {kind} is {MAX_ODF_XML >> 20} MiB)")
    manifest = zf.read("META-INF/manifest.xml") if "META-INF/manifest.xml" in zf.namelist() else b""
    if b"encryption-data" in manifest:
        raise IngestError(f"{name}: {kind} is password-protected (encrypted)")
    return load(io.BytesIO(data))


def _attr(element: Any, name: str) -> str:
    """An ODF element's attribute by its local name (odfpy raises for attributes it does not know)."""
    for (_, local), value in element.attributes.items():
        if local == name:
            return value
    return ""


def _children(element: Any, local: str) -> Iterator[Any]:
    for child in element.childNodes:
        if getattr(child, "qname", (None, None))[1] == local:
            yield child


def read_ods(data: bytes, name: str) -> Read:
    from odf import teletype

    doc = _odf(data, name, "ODS")
    parts, budget, sheets = Parts("rows"), MAX_CELLS, 0
    for table in doc.spreadsheet.childNodes:
        if getattr(table, "qname", (None, None))[1] != "table":
            continue
        sheets += 1
        writer = SheetWriter(parts, _attr(table, "name"))
        number = 0
        for row in _table_rows(table):
            repeat = int(_attr(row, "number-rows-repeated") or 1)
            cells: list[str] = []
            for cell in row.childNodes:
                if getattr(cell, "qname", (None, None))[1] not in ("table-cell", "covered-table-cell"):
                    continue
                text = " ".join(teletype.extractText(cell).split())
                cells += [text] * min(int(_attr(cell, "number-columns-repeated") or 1), MAX_COLUMNS - len(cells))
                if len(cells) >= MAX_COLUMNS:
                    break
            budget -= max(1, len(cells))
            if not any(cells):  # repeated empty rows (formatting to the sheet's end) are not expanded
                number += repeat
                continue
            for _ in range(min(repeat, ROWS_PER_PART * 100)):
                number += 1
                writer.row(number, cells)
            if budget < 0:
                break
        writer.close()
        if budget < 0:
            break
    return "", parts.text, _sheets_meta(parts, sheets)


def _table_rows(table: Any) -> Iterator[Any]:
    for child in table.childNodes:
        local = getattr(child, "qname", (None, None))[1]
        if local == "table-row":
            yield child
        elif local in ("table-header-rows", "table-rows", "table-row-group"):
            yield from _table_rows(child)


# --- slides -----------------------------------------------------------------------------------

def read_pptx(data: bytes, name: str) -> Read:
    from pptx import Presentation

    _check_container(data, name, "PPTX")
    prs = Presentation(io.BytesIO(data))
    parts = Parts("slide")
    for slide in prs.slides:
        title_shape = slide.shapes.title
        lines = [title_shape.text_frame.text] if title_shape is not None and title_shape.has_text_frame else []
        shapes = [s for s in slide.shapes if title_shape is None or s.shape_id != title_shape.shape_id]
        lines += _shape_texts(shapes)
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            notes = slide.notes_slide.notes_text_frame.text.strip()
            if notes:
                lines.append(f"Speaker notes: {notes}")
        parts.add(normalize_text("\n".join(t for t in lines if t.strip())))
    return "", parts.text, parts.meta()


def _shape_texts(shapes: Iterable[Any]) -> list[str]:
    """Text frames, tables and groups, top to bottom, left to right."""
    out = []
    for shape in sorted(shapes, key=lambda s: ((s.top or 0), (s.left or 0))):
        if getattr(shape, "shape_type", None) == 6 or hasattr(shape, "shapes"):  # a group
            out += _shape_texts(shape.shapes)
        elif getattr(shape, "has_table", False) and shape.has_table:
            for row in shape.table.rows:
                out.append(" | ".join(" ".join(c.text.split()) for c in row.cells if c.text.strip()))
        elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            out.append(shape.text_frame.text)
    return out


def read_odp(data: bytes, name: str) -> Read:
    doc = _odf(data, name, "ODP")
    parts = Parts("slide")
    for page in doc.presentation.childNodes:
        if getattr(page, "qname", (None, None))[1] != "page":
            continue
        lines, notes = [], []
        for child in page.childNodes:
            target = notes if getattr(child, "qname", (None, None))[1] == "notes" else lines
            target += _odf_blocks(child)
        if notes:
            lines.append("Speaker notes: " + " ".join(notes))
        parts.add(normalize_text("\n".join(lines)))
    return "", parts.text, parts.meta()


# --- documents --------------------------------------------------------------------------------

_ODF_BLOCKS = {"p", "h"}


def _odf_blocks(element: Any) -> list[str]:
    """The text of every paragraph and heading under ``element``, in order; a table's rows as
    "cell | cell" lines."""
    from odf import teletype

    out: list[str] = []
    for child in element.childNodes:
        local = getattr(child, "qname", (None, None))[1]
        if local in _ODF_BLOCKS:
            out.append(teletype.extractText(child))
        elif local == "table":
            for row in _table_rows(child):
                cells = [" ".join(teletype.extractText(c).split()) for c in _children(row, "table-cell")]
                if any(cells):
                    out.append(" | ".join(c for c in cells if c))
        elif getattr(child, "childNodes", None):
            out += _odf_blocks(child)
    return out


def read_odt(data: bytes, name: str) -> Read:
    doc = _odf(data, name, "ODT")
    return "", normalize_text("\n\n".join(b for b in _odf_blocks(doc.text) if b.strip())), {}


def read_rtf(text: str, name: str) -> Read:
    from striprtf.striprtf import rtf_to_text

    if not text.lstrip().startswith("{\\rtf"):
        raise IngestError(f"{name}: cannot read RTF (it does not start with {{\\rtf: not an RTF file)")
    return "", normalize_text(rtf_to_text(text, errors="replace")), {}
