"""K²RAG Algorithm 1, corpus summarization: one summary per document, cached by content hash.

The summary's length follows the paper's ~89 % reduction: about an eighth of the document, at
least 64 tokens. A document longer than ``PIECE_TOKENS`` embedder tokens is summarized section by
section (pieces of that size, in order), and its summary is the sections' summaries one after
another, so it covers the whole document and grows with it: a 15,000-word page gets ~2,500 tokens
of summary, not one paragraph. (Until 2026-11-25 the partial summaries were summarized again into
at most 256 tokens: 2.5 % of the long Wikipedia pages, and a graph of the summaries that saw
little of them; docs/eval/summaries/.)
"""

from __future__ import annotations

from typing import Callable, Optional

from k2desk.progress import CancelToken
from k2desk.runtime.embedder import Embedder
from k2desk.runtime.summarizer import Summarizer
from k2desk.store.db import Database
from k2desk.store.documents import DocumentRow, DocumentStore
from k2desk.text.chunking import chunk_spans
from k2desk.types import LLMUsage

PIECE_TOKENS = 1500
SCHEME = "sections"  # part of a cached summary's key: summaries made the earlier way are made again


def summary_length(n_tokens: int) -> int:
    """Summary tokens for a text of ``n_tokens``: an eighth, at least 64."""
    return max(64, n_tokens // 8)


def summarize_long(summarizer: Summarizer, text: str, embedder: Embedder, cancel: CancelToken,
                   usage: Optional[LLMUsage] = None) -> str:
    """The whole document's summary: at once when it fits ``PIECE_TOKENS``, else section by
    section, the sections' summaries joined in order."""
    spans = embedder.token_spans(text)
    if len(spans) <= PIECE_TOKENS:
        return summarizer.summarize(text, max_tokens=summary_length(len(spans)), cancel=cancel, usage=usage)
    sections = []
    for piece in chunk_spans(text, spans, PIECE_TOKENS, 0):
        cancel.check()
        sections.append(summarizer.summarize(piece.text, max_tokens=summary_length(piece.n_tokens), cancel=cancel,
                                             usage=usage).strip())
    return "\n\n".join(s for s in sections if s)


class SummaryStage:
    """Writes ``documents.summary``; a summary made by the same summarizer from the same content
    is reused (cache key: content hash + summarizer name)."""

    name = "summary"
    label = "summarize"

    def __init__(self, db: Database, summarizer: Callable[[], Summarizer], embedder: Callable[[], Embedder]) -> None:
        self.db = db
        self.docs = DocumentStore(db)
        self._summarizer = summarizer
        self._embedder = embedder

    def build(self, doc: DocumentRow, cancel: CancelToken, usage: LLMUsage) -> Callable[[], int]:
        summarizer = self._summarizer()
        key = f"{doc.content_hash}:{summarizer.name}:{SCHEME}"
        cached = self.docs.summary(doc.id, key)
        summary = cached if cached else summarize_long(summarizer, self.docs.text(doc.id), self._embedder(), cancel, usage)
        summary = summary.strip() or self.docs.text(doc.id)[:2000]  # never an empty summary

        def write() -> int:
            self.docs.set_summary(doc.id, summary, key)
            return 0

        return write

    def clear(self, doc_id: int) -> None:
        return None  # the cached summary stays: its key names the content it was made from
