"""MultiHop-RAG style corpus files: one JSON object per line (title, body, source, published_at,
url, author, category, ...), one RawDocument per record.

Bad lines (not JSON, not an object, no body text, a url seen before) are skipped: each is logged
as a warning on the "k2desk.ingest" logger and appended to `CorpusReport.skipped` when the caller
passes a report. Only a file with no valid record at all raises IngestError, naming the first bad
line. `iter_corpus` is a generator, so that error comes when the iteration reaches the end.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from k2desk.errors import IngestError
from k2desk.ingest.document import RawDocument, normalize_text, short_reason
from k2desk.ingest.html import html_to_text
from k2desk.text.headers import format_date

log = logging.getLogger("k2desk.ingest")

BODY_FIELDS = ("body", "text", "content")  # the first non-empty string one is the record's text
# A body written in HTML (a crawl keeps a page's markup: L-Eval's Wikipedia pages, "<H1> … <Tr> <Td>")
# is read as the page it is, as an .html file would be: its tables become lines, its tags go.
# Markup is told from prose by closing tags of block elements, which plain text rarely holds.
_BLOCK_CLOSE = re.compile(r"</(p|h[1-6]|tr|td|th|li|ul|ol|table|div|section)>", re.I)
HTML_MIN_CLOSES = 5
_TAG = re.compile(r"<[^<>]*>|<[^<>]*$")

_HEADER = (("Title", "title"), ("Source", "source"), ("Published", "published_at"),
           ("Author", "author"), ("Category", "category"), ("URL", "url"))


@dataclass
class CorpusReport:
    """What iter_corpus did with one file: records yielded and (line number, reason) skipped."""

    path: str = ""
    records: int = 0
    skipped: list[tuple[int, str]] = field(default_factory=list)


def is_html(body: str) -> bool:
    """True when a record's body is an HTML page (closing tags of block elements), not prose."""
    return len(_BLOCK_CLOSE.findall(body, 0, 200_000)) >= HTML_MIN_CLOSES


def record_text(rec: dict, body: str, html: bool | None = None) -> str:
    """The indexed text of a record: 'Title: ...\\nSource: ...\\nPublished: ...' header, blank line, body
    (an HTML body read as its page's text, and the tags of its fields dropped)."""
    html = is_html(body) if html is None else html
    if html:
        body = html_to_text(body)[1]
    lines = []
    for label, key in _HEADER:
        value = rec.get(key)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value).strip():
            value = " ".join((_TAG.sub(" ", value) if html and isinstance(value, str) else str(value)).split())
            lines.append(f"{label}: {format_date(value) if key == 'published_at' else value}")
    return normalize_text("\n".join(lines) + "\n\n" + body)


def _parse(raw: bytes) -> tuple[dict | None, str, str]:
    """One line -> (record, key of its body field, reason-if-bad)."""
    try:
        rec = json.loads(raw.decode("utf-8-sig").strip())
    except UnicodeDecodeError:
        return None, "", "not UTF-8 text"
    except json.JSONDecodeError as exc:
        return None, "", f"invalid JSON ({exc.msg} at column {exc.pos + 1})"
    except ValueError as exc:  # e.g. an integer too long to convert
        return None, "", f"invalid JSON ({short_reason(exc, 80)})"
    if not isinstance(rec, dict):
        return None, "", f"not a JSON object ({type(rec).__name__})"
    for key in BODY_FIELDS:
        value = rec.get(key)
        if isinstance(value, str) and value.strip():
            return rec, key, ""
    return None, "", "no body text"


def iter_corpus(path: str | Path, report: CorpusReport | None = None) -> Iterator[RawDocument]:
    """Yield one RawDocument per valid record of a .jsonl corpus file.

    key: f"{abs_path}#{url}" (f"{abs_path}#line-N" without a url); title: the record's title;
    meta: every upstream field except the body; content_hash: sha256 of the record's canonical
    JSON. Blank lines are ignored. Raises IngestError if the file cannot be opened or, once the
    iteration ends, if it held no valid record.
    """
    p = Path(path).expanduser().resolve()
    name = p.name
    report = report if report is not None else CorpusReport()
    report.path = str(p)
    seen: dict[str, int] = {}
    count, first_bad = 0, None
    try:
        f = open(p, "rb")
    except OSError as exc:
        raise IngestError(f"{name}: cannot read file ({short_reason(exc)})") from None
    with f:
        for n, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            rec, body_key, reason = _parse(raw)
            url = rec.get("url") if rec is not None else None
            url = url.strip() if isinstance(url, str) and url.strip() else None
            if rec is not None and url in seen:
                reason = f"duplicate url (first on line {seen[url]})"
            if reason:
                report.skipped.append((n, reason))
                first_bad = first_bad or (n, reason)
                log.warning("%s line %d skipped: %s", name, n, reason)
                continue
            if url:
                seen[url] = n
            canonical = json.dumps(rec, sort_keys=True, ensure_ascii=False)
            title = rec.get("title")
            html = is_html(rec[body_key])  # read once: it decides the title's and the text's reading
            if isinstance(title, str) and html:
                title = _TAG.sub(" ", title)
            title = " ".join(title.split()) if isinstance(title, str) and title.strip() else f"{p.stem} line {n}"
            report.records += 1
            count += 1
            yield RawDocument(
                key=f"{p}#{url}" if url else f"{p}#line-{n}",
                title=title,
                text=record_text(rec, rec[body_key], html),
                kind="jsonl",
                meta={k: v for k, v in rec.items() if k != body_key},
                content_hash=hashlib.sha256(canonical.encode("utf-8")).hexdigest(),
            )
    if count == 0:
        if first_bad:
            line, reason = first_bad
            raise IngestError(f"{name}: no valid records (line {line}: {reason})")
        raise IngestError(f"{name}: empty document (no text)")
