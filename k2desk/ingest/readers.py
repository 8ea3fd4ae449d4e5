"""Per-format readers: one file in, RawDocument(s) out, or an IngestError with a one-line reason.

Every reader gets the file's bytes (read once, so `content_hash` always matches the text that was
parsed) and returns (title, text, meta). `read_path` dispatches on the extension, normalizes the
text, and turns any unexpected library exception into an IngestError naming the file.
"""

from __future__ import annotations

import codecs
import hashlib
import io
import posixpath
import re
import zipfile
from pathlib import Path
from urllib.parse import unquote
from xml.etree import ElementTree

from k2desk.errors import IngestError
from k2desk.ingest.corpus import iter_corpus
from k2desk.ingest.document import CONTROL_CHARS, RawDocument, normalize_text, short_reason  # noqa: F401 (re-exported)
from k2desk.ingest.html import html_to_text

SUPPORTED: dict[str, str] = {
    ".txt": "txt",
    ".md": "md",
    ".markdown": "md",
    ".pdf": "pdf",
    ".docx": "docx",
    ".html": "html",
    ".htm": "html",
    ".epub": "epub",
    ".jsonl": "jsonl",
}


# Largest file read, by kind: a document is read whole, so this bounds the memory of indexing
# (a 200 MB log would also take hours to embed). Corpus .jsonl files are streamed line by line.
MAX_FILE_BYTES = {"txt": 64 << 20, "md": 64 << 20, "html": 64 << 20, "pdf": 256 << 20,
                  "docx": 128 << 20, "epub": 128 << 20}


def file_hash(path: str | Path) -> str:
    """sha256 hex of a file's bytes, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def decode_text(data: bytes, name: str) -> str:
    """Bytes of a plain-text file -> str: UTF-8 (BOM or not), UTF-16 with BOM, else cp1252/latin-1.

    Raises IngestError when the bytes are not text (NUL bytes or mostly control characters).
    """
    binary = IngestError(f"{name}: not a text file (binary content)")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            raise binary from None
    elif b"\x00" in data:
        raise binary
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            try:
                text = data.decode("cp1252")
            except UnicodeDecodeError:
                text = data.decode("latin-1")
    sample = text[:65536]
    if sample and len(CONTROL_CHARS.findall(sample)) > 0.05 * len(sample):
        raise binary
    return text


_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)


def decode_markup(data: bytes) -> str:
    """Bytes of an HTML/XHTML file -> str, honouring a BOM or a <meta charset>, else UTF-8/cp1252."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    if data.startswith(codecs.BOM_UTF8):
        return data[3:].decode("utf-8", errors="replace")
    m = _CHARSET.search(data[:4096])
    if m:
        try:
            return data.decode(m.group(1).decode("ascii"), errors="replace")
        except LookupError:
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


# --- the readers: (data, name) -> (title, text, meta) -----------------------------------------

Read = tuple[str, str, dict]


def _read_txt(data: bytes, name: str) -> Read:
    return "", normalize_text(decode_text(data, name)), {}


def _read_md(data: bytes, name: str) -> Read:
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").enable("table").render(decode_text(data, name))
    return "", html_to_text(html)[1], {}


def _read_html(data: bytes, name: str) -> Read:
    title, text = html_to_text(decode_markup(data))
    return title, text, {}


def _pdf_pdfium(data: bytes) -> list[str]:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(data)
    try:
        pages = []
        for i in range(len(pdf)):
            page = pdf[i]
            textpage = page.get_textpage()
            pages.append(textpage.get_text_range())
            textpage.close()
            page.close()
        return pages
    finally:
        pdf.close()


def _pdf_pypdf(data: bytes) -> list[str]:
    import logging

    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its recovery warnings are not ours to show
    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted:
        reader.decrypt("")  # opens files with an owner password only; raises otherwise
    return [page.extract_text() or "" for page in reader.pages]


def _read_pdf(data: bytes, name: str) -> Read:
    """pypdfium2 first, pypdf when pdfium fails or finds no text. Pages joined by a blank line."""
    pages: list[str] | None = None
    errors: list[str] = []
    for extract in (_pdf_pdfium, _pdf_pypdf):
        try:
            got = [normalize_text(p) for p in extract(data)]
        except Exception as exc:  # noqa: BLE001 - any library failure means "try the next one"
            errors.append(short_reason(exc))
            continue
        if any(got):
            pages = got
            break
        pages = pages or got
    if pages is None:
        if any("password" in e.lower() for e in errors):
            raise IngestError(f"{name}: PDF is password-protected (encrypted)")
        raise IngestError(f"{name}: cannot read PDF ({errors[0]})")
    if not any(pages):
        raise IngestError(f"{name}: no extractable text (scanned PDF?)")
    text, offsets, pending = "", [], 0  # page_offsets[i]: where page i+1's text starts
    for page in pages:  # (an empty page gets the offset of the next page with text)
        if not page:
            pending += 1
            continue
        text += "\n\n" if text else ""
        offsets += [len(text)] * (pending + 1)
        pending = 0
        text += page
    offsets += [len(text)] * pending
    return "", text, {"pages": len(pages), "page_offsets": offsets}


def _read_docx(data: bytes, name: str) -> Read:
    import docx
    from docx.table import Table

    try:
        check_zip(zipfile.ZipFile(io.BytesIO(data)), name, "DOCX")
    except zipfile.BadZipFile:
        raise IngestError(f"{name}: cannot read DOCX (not a zip archive)") from None
    document = docx.Document(io.BytesIO(data))
    blocks: list[str] = []
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            rows = []
            for row in block.rows:
                cells, seen = [], set()
                for cell in row.cells:  # merged cells repeat: keep each once
                    if id(cell._tc) not in seen:
                        seen.add(id(cell._tc))
                        cells.append(" ".join(cell.text.split()))
                rows.append(" | ".join(c for c in cells if c))
            blocks.append("\n".join(r for r in rows if r))
        else:
            blocks.append(block.text)
    return "", normalize_text("\n\n".join(blocks)), {}  # core title is often stale: use stem


# Zip containers (DOCX, EPUB): a member may inflate to at most 64 MiB, all of them to 256 MiB.
# The sizes are the archive's own declarations; zipfile never inflates a member beyond its
# declared size (a lying member fails its CRC check), so checking them bounds the memory.
_ZIP_MAX_ITEM = 64 << 20
_ZIP_MAX_TOTAL = 256 << 20


def check_zip(zf: zipfile.ZipFile, name: str, kind: str) -> None:
    """Refuse an archive that would inflate beyond the limits (a zip bomb)."""
    infos = zf.infolist()
    total = sum(i.file_size for i in infos)
    big = max(infos, key=lambda i: i.file_size, default=None)
    if big is not None and (big.file_size > _ZIP_MAX_ITEM or total > _ZIP_MAX_TOTAL):
        raise IngestError(f"{name}: cannot read {kind} (it inflates to {total >> 20:,} MiB; "
                          f"limits {_ZIP_MAX_ITEM >> 20} MiB a part, {_ZIP_MAX_TOTAL >> 20} MiB in all: a zip bomb?)")

_XHTML_TYPES = {"application/xhtml+xml", "text/html", "application/x-dtbook+xml"}


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _zip_read(zf: zipfile.ZipFile, member: str, name: str) -> bytes:
    try:
        info = zf.getinfo(member)
    except KeyError:
        raise IngestError(f"{name}: cannot read EPUB (missing {member})") from None
    return zf.read(info)


def _read_epub(data: bytes, name: str) -> Read:
    """container.xml -> OPF -> spine order; each XHTML item's text, joined by blank lines."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise IngestError(f"{name}: cannot read EPUB (not a zip archive)") from None
    check_zip(zf, name, "EPUB")
    container = ElementTree.fromstring(_zip_read(zf, "META-INF/container.xml", name))
    opf_path = next((e.get("full-path") for e in container.iter()
                     if _local(e.tag) == "rootfile" and e.get("full-path")), None)
    if not opf_path:
        raise IngestError(f"{name}: cannot read EPUB (container.xml names no package file)")
    opf = ElementTree.fromstring(_zip_read(zf, opf_path, name))
    base = posixpath.dirname(opf_path)
    manifest, spine, title = {}, [], ""
    for e in opf.iter():
        tag = _local(e.tag)
        if tag == "item" and e.get("id") and e.get("href"):
            path = posixpath.normpath(posixpath.join(base, unquote(e.get("href"))))
            manifest[e.get("id")] = (path, e.get("media-type", ""))
        elif tag == "itemref" and e.get("idref"):
            spine.append(e.get("idref"))
        elif tag == "title" and not title and (e.text or "").strip():
            title = " ".join(e.text.split())
    encrypted: set[str] = set()
    if "META-INF/encryption.xml" in zf.namelist():
        enc = ElementTree.fromstring(_zip_read(zf, "META-INF/encryption.xml", name))
        encrypted = {unquote(e.get("URI", "")) for e in enc.iter() if _local(e.tag) == "CipherReference"}
    texts = []
    for idref in spine:
        path, media_type = manifest.get(idref, ("", ""))
        if not path or media_type not in _XHTML_TYPES:
            continue
        if path in encrypted:
            raise IngestError(f"{name}: EPUB is DRM-protected (encrypted content)")
        texts.append(html_to_text(decode_markup(_zip_read(zf, path, name)))[1])
    return title, normalize_text("\n\n".join(t for t in texts if t)), {"chapters": len(texts)}


_READERS = {"txt": _read_txt, "md": _read_md, "html": _read_html, "pdf": _read_pdf,
            "docx": _read_docx, "epub": _read_epub}


def read_path(path: str | Path, report=None) -> list[RawDocument]:
    """Read one file: one RawDocument, or one per record for a .jsonl corpus.

    `report` (a corpus.CorpusReport) collects the skipped lines of a .jsonl file; it is ignored
    for other kinds. Raises IngestError("<file name>: <reason>") for anything unreadable.
    """
    p = Path(path).expanduser()
    name = p.name or str(p)
    try:
        p = p.resolve(strict=True)
    except FileNotFoundError:
        raise IngestError(f"{name}: no such file") from None
    except (OSError, RuntimeError) as exc:
        raise IngestError(f"{name}: cannot open ({short_reason(exc)})") from None
    if p.is_dir():
        raise IngestError(f"{name}: is a folder, not a file")
    kind = SUPPORTED.get(p.suffix.lower())
    if kind is None:
        raise IngestError(f"{name}: unsupported file type {p.suffix.lower() or '(no extension)'}")
    if kind == "jsonl":

        return list(iter_corpus(p, report))
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES[kind]:
            raise IngestError(f"{name}: too large to index ({size / (1 << 20):,.0f} MiB; the limit for "
                              f"{kind.upper()} files is {MAX_FILE_BYTES[kind] >> 20} MiB)")
        data = p.read_bytes()
    except OSError as exc:
        raise IngestError(f"{name}: cannot read file ({short_reason(exc)})") from None
    try:
        title, text, meta = _READERS[kind](data, name)
    except IngestError:
        raise
    except Exception as exc:  # noqa: BLE001 - library failures become one-line IngestErrors
        raise IngestError(f"{name}: cannot read {kind.upper()} ({short_reason(exc)})") from exc
    text = normalize_text(text)
    if not text:
        raise IngestError(f"{name}: empty document (no text)")
    return [RawDocument(key=str(p), title=title or p.stem, text=text, kind=kind,
                        meta={"path": str(p), **meta}, content_hash=hashlib.sha256(data).hexdigest())]
