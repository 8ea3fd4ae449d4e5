"""K²RAG Algorithm 1, corpus summarization: one summary per document, cached by content hash.

Documents longer than the summarizer can read at once are summarized map-reduce style: pieces
of at most ``PIECE_TOKENS`` embedder tokens are summarized one by one and the joined partial
summaries are summarized again. The summary's length follows the paper's ~89 % reduction
(about an eighth of the document), bounded to [64, 256] tokens.
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


def summary_length(n_tokens: int) -> int:
    return max(64, min(256, n_tokens // 8))


def summarize_long(summarizer: Summarizer, text: str, embedder: Embedder, cancel: CancelToken,
                   usage: Optional[LLMUsage] = None) -> str:
    spans = embedder.token_spans(text)
    target = summary_length(len(spans))
    if len(spans) <= PIECE_TOKENS:
        return summarizer.summarize(text, max_tokens=target, cancel=cancel, usage=usage)
    pieces = chunk_spans(text, spans, PIECE_TOKENS, 0)
    partial = []
    for piece in pieces:
        cancel.check()
        partial.append(summarizer.summarize(piece.text, max_tokens=max(48, target // 2), cancel=cancel, usage=usage))
    return summarizer.summarize("\n".join(partial), max_tokens=target, cancel=cancel, usage=usage)


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
        key = f"{doc.content_hash}:{summarizer.name}"
        cached = self.docs.summary(doc.id, key)
        summary = cached if cached else summarize_long(summarizer, self.docs.text(doc.id), self._embedder(), cancel, usage)
        summary = summary.strip() or self.docs.text(doc.id)[:2000]  # never an empty summary

        def write() -> int:
            self.docs.set_summary(doc.id, summary, key)
            return 0

        return write

    def clear(self, doc_id: int) -> None:
        return None  # the cached summary stays: its key names the content it was made from
