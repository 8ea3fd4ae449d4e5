"""E-mail: .eml messages and .mbox archives, with the standard library's ``email`` and ``mailbox``.

A message becomes one document: From, To, Cc, Date and Subject as metadata and as the first lines
of its text, then the body (the plain-text part preferred, else the HTML part's text). Each
attachment whose type k2desk reads becomes a document of its own, named after the message
("Subject — offer.pdf"), keyed ``<file>#attachment/<n>/<name>``; the message's text lists its
attachments. An mbox archive gives one document per message (``<file>#message/<n>``), read one
message at a time.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import mailbox
from email.message import EmailMessage
from pathlib import Path
from typing import Callable

from k2desk.errors import IngestError
from k2desk.ingest.document import RawDocument, normalize_text, short_reason
from k2desk.ingest.html import html_to_text

HEADERS = ("From", "To", "Cc", "Date", "Subject")
MAX_ATTACHMENT_BYTES = 64 << 20  # an attachment larger is listed, not read
MAX_MESSAGES = 100_000  # messages read from one mbox

# bytes, name, the attachment's own content hash -> (title, text, meta with its "kind"); raises IngestError
ReadBytes = Callable[[bytes, str, str], tuple[str, str, dict]]


def _header(msg: EmailMessage, name: str) -> str:
    try:
        value = msg.get(name)
    except Exception:  # noqa: BLE001 - a malformed header (broken encoded words): leave it out
        return ""
    return " ".join(str(value).split()) if value is not None else ""


def _part_text(part: EmailMessage) -> str:
    try:
        content = part.get_content()
    except Exception:  # noqa: BLE001 - an unknown charset or broken transfer encoding: decode what is there
        payload = part.get_payload(decode=True) or b""
        content = payload.decode("utf-8", errors="replace") if isinstance(payload, bytes) else str(payload)
    if isinstance(content, bytes):
        content = content.decode("utf-8", errors="replace")
    if part.get_content_type() == "text/html":
        return html_to_text(str(content))[1]
    return str(content)


def _body(msg: EmailMessage) -> str:
    try:
        part = msg.get_body(preferencelist=("plain", "html"))
    except Exception:  # noqa: BLE001 - broken MIME structure
        part = None
    if part is None:
        if msg.get_content_maintype() == "text":
            part = msg
        else:
            return ""
    return _part_text(part)


def _attachments(msg: EmailMessage) -> list[tuple[str, bytes | None, str]]:
    """(file name, bytes or None when not readable, why not) of each attachment."""
    out = []
    try:
        parts = list(msg.iter_attachments())
    except Exception:  # noqa: BLE001 - broken MIME structure
        return out
    for part in parts:
        try:
            filename = part.get_filename() or ""
        except Exception:  # noqa: BLE001
            filename = ""
        filename = Path(" ".join(filename.split())).name or f"attachment.{part.get_content_subtype() or 'bin'}"
        try:
            data = part.get_payload(decode=True)
        except Exception as exc:  # noqa: BLE001 - broken base64 and the like
            out.append((filename, None, short_reason(exc)))
            continue
        if not isinstance(data, bytes) or not data:
            out.append((filename, None, "empty"))
        elif len(data) > MAX_ATTACHMENT_BYTES:
            out.append((filename, None, f"{len(data) >> 20} MiB: too large"))
        else:
            out.append((filename, data, ""))
    return out


def message_documents(data: bytes, key: str, content_hash: str, read_attachment: ReadBytes,
                      readable: Callable[[str], bool], kind: str = "eml") -> list[RawDocument]:
    """One message's bytes -> its document and one document per readable attachment."""
    msg = email.message_from_bytes(data, policy=email.policy.default)
    headers = {h.lower(): _header(msg, h) for h in HEADERS}
    subject = headers["subject"] or "(no subject)"
    docs: list[RawDocument] = []
    listed = []
    for n, (filename, payload, why) in enumerate(_attachments(msg), 1):
        note = ""
        if payload is None:
            note = f" (not read: {why})"
        elif not readable(filename):
            note = " (a kind k2desk does not read)"
        else:
            att_hash = hashlib.sha256(payload).hexdigest()
            try:
                title, text, meta = read_attachment(payload, filename, att_hash)
            except IngestError as exc:
                note = f" (not read: {str(exc).split(': ', 1)[-1]})"
            else:
                docs.append(RawDocument(key=f"{key}#attachment/{n}/{filename}", title=f"{subject} — {filename}",
                                        text=text, kind=meta.pop("kind", "eml"),
                                        meta={**meta, "path": key.split("#")[0], "attachment": filename, "message": subject},
                                        content_hash=att_hash))
        listed.append(filename + note)
    lines = [f"{h}: {headers[h.lower()]}" for h in HEADERS if headers[h.lower()]]
    if listed:
        lines.append("Attachments: " + "; ".join(listed))
    body = normalize_text(_body(msg))
    text = normalize_text("\n".join(lines) + ("\n\n" + body if body else ""))
    meta = {k: v for k, v in headers.items() if v}
    if listed:
        meta["attachments"] = listed
    message = RawDocument(key=key, title=subject, text=text, kind=kind, meta=meta, content_hash=content_hash)
    return [message, *docs]


def read_mbox(path: Path, name: str, read_attachment: ReadBytes, readable: Callable[[str], bool]) -> list[RawDocument]:
    """Every message of an mbox archive, one at a time (the archive is never read whole)."""
    try:
        box = mailbox.mbox(str(path), create=False)
    except Exception as exc:  # noqa: BLE001
        raise IngestError(f"{name}: cannot read MBOX ({short_reason(exc)})") from None
    docs: list[RawDocument] = []
    try:
        for n, msg_key in enumerate(box.iterkeys(), 1):
            if n > MAX_MESSAGES:
                break
            data = box.get_bytes(msg_key)
            docs += message_documents(data, f"{path}#message/{n}", hashlib.sha256(data).hexdigest(),
                                      read_attachment, readable, kind="mbox")
    except IngestError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise IngestError(f"{name}: cannot read MBOX ({short_reason(exc)})") from None
    finally:
        box.close()
    if not docs:
        raise IngestError(f"{name}: no messages in the archive (not an mbox file?)")
    for doc in docs:
        doc.meta["path"] = str(path)
    return docs
