"""The raw-text (and summary) index stage: 256/20 token windows, embedded, in the dense and
sparse stores; the first stage to run, so a document is searchable as soon as it commits."""

from __future__ import annotations

from typing import Callable

from k2desk.progress import CancelToken
from k2desk.runtime.embedder import Embedder
from k2desk.store.db import Database
from k2desk.store.documents import DocumentRow, DocumentStore
from k2desk.store.sparse import SparseIndex
from k2desk.store.vectors import VectorIndex
from k2desk.text.chunking import chunk_text
from k2desk.text.headers import chunk_header
from k2desk.types import LLMUsage


class ChunkIndexStage:
    """Chunk a document's text (or summary) 256/20, embed the chunks, store vectors + FTS rows."""

    def __init__(self, db: Database, embedder: Callable[[], Embedder], source: str = "text") -> None:
        self.db = db
        self._embedder = embedder
        self.source = source
        self.name = "text" if source == "text" else "summary_index"
        self.label = "embed" if source == "text" else "embed summaries"
        self.docs = DocumentStore(db)
        self.vectors = VectorIndex(db, "chunks")
        self.sparse = SparseIndex(db, source)

    def _input(self, doc: DocumentRow) -> str:
        return self.docs.source_text(doc.id, self.source)

    def build(self, doc: DocumentRow, cancel: CancelToken, usage: LLMUsage) -> Callable[[], int]:
        embedder = self._embedder()
        # the raw text's chunks stay within its pages, slides and sheet blocks: each cites one place
        breaks = doc.meta.get("page_offsets") or [] if self.source == "text" else []
        chunks = chunk_text(self._input(doc), embedder, "vec", breaks)
        header = chunk_header(doc.title, doc.meta)
        texts = [f"{header}\n{c.text}" if header else c.text for c in chunks]
        vectors = embedder.embed(texts, cancel=cancel)

        def write() -> int:
            self.vectors.ensure(embedder.dim, embedder.name)
            self.clear(doc.id)
            ids = self.docs.add_chunks(doc.id, self.source, "vec", chunks)
            self.vectors.add(ids, vectors, self.source)
            self.sparse.add(ids, texts)
            return len(ids)

        return write

    def clear(self, doc_id: int) -> None:
        ids = self.docs.chunk_ids(doc_id, self.source, "vec")
        self.vectors.remove(ids)
        self.sparse.remove(ids)
        self.docs.delete_chunks(ids)
