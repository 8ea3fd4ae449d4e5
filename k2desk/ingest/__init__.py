"""Ingest: find documents (scan), read each format into RawDocuments (readers, corpus)."""

from k2desk.ingest.corpus import CorpusReport, iter_corpus
from k2desk.ingest.readers import (
    SUPPORTED,
    RawDocument,
    decode_text,
    file_hash,
    html_to_text,
    normalize_text,
    read_path,
)
from k2desk.ingest.scan import ScanItem, scan

__all__ = [
    "SUPPORTED",
    "CorpusReport",
    "RawDocument",
    "ScanItem",
    "decode_text",
    "file_hash",
    "html_to_text",
    "iter_corpus",
    "normalize_text",
    "read_path",
    "scan",
]
