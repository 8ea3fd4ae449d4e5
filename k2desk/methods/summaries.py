"""Summaries on request: "Summarize the ferry document.", "What is the observatory page about?",
"What is in this collection?" — answered from the corpus summaries that K²RAG's first step
writes (indexing/summary.py), with the documents as sources, and no LLM call.

* The document a request names is found by its name: the request's words (without "the",
  "document", "page", …) against each document's title and file name; when no name matches,
  the passages that match the words best name it, if they hold most of those words.
* A request that names no document ("Summarize this.", "What is in this collection?") covers
  the documents in scope: the selected ones, else the whole collection (each document's title
  and the first sentences of its summary).
* A document indexed without summaries (build profile naive) is summarized now, the same way
  indexing would (extractive, so no model is loaded).
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Callable, Optional, Sequence

from k2desk.indexing.summary import summarize_long
from k2desk.methods.forms import Form
from k2desk.methods.reader import Reading
from k2desk.methods.support import coverage
from k2desk.progress import CancelToken
from k2desk.prompts import COLLECTION_SUMMARY_HEAD, COLLECTION_SUMMARY_MORE, NO_SUCH_DOCUMENT, SCOPE_SUMMARY_HEAD
from k2desk.runtime.embedder import Embedder
from k2desk.runtime.summarizer import STOPWORDS, ExtractiveSummarizer, split_sentences
from k2desk.store.documents import DocumentRow, DocumentStore
from k2desk.types import Source
from k2desk.verdict import declined

LISTED = 12  # documents a collection summary lists before "… and N more"
SHOWN_WORDS = 300  # a long document's summary shown as its sections' first sentences, about this long
LISTED_SENTENCES = 2  # sentences of each listed document's summary
_NAMING_WORDS = frozenset("""
document documents doc docs page pages paper papers article articles file files report reports text texts pdf
story post piece essay note notes memo chapter book study work web website site html md txt docx epub
summary summarize overview main points key ideas findings about all whole entire please me quick short brief
""".split())
_WORDS = re.compile(r"[^\W_]+", re.UNICODE)


def name_words(doc: DocumentRow) -> set[str]:
    """The lower-cased words of a document's title and file name."""
    stem = PurePath(doc.key.split("#", 1)[-1]).stem if "#" in doc.key else PurePath(doc.key).stem
    return {w.lower() for w in _WORDS.findall(f"{doc.title} {stem}")}


def target_words(target: str) -> list[str]:
    """The words of a request's target that can name a document."""
    words = [w.lower() for w in _WORDS.findall(target)]
    return [w for w in words if w not in STOPWORDS and w not in _NAMING_WORDS]


def _matches(word: str, names: set[str]) -> bool:
    return word in names or (len(word) >= 5 and any(n.startswith(word[:5]) and len(n) >= 5 for n in names))


def documents_named(docs: Sequence[DocumentRow], target: str) -> list[DocumentRow]:
    """The documents whose title or file name holds most of ``target``'s words (best first;
    every document that matches as well as the best one)."""
    words = target_words(target)
    if not words:
        return []
    scored = [(sum(_matches(w, name_words(d)) for w in words) / len(words), d) for d in docs]
    best = max((s for s, _ in scored), default=0.0)
    if best < 0.5:
        return []
    return [d for s, d in scored if s == best]


class Summaries:
    """Answers summary requests for one collection (and one scope) from the corpus summaries."""

    def __init__(self, docs: DocumentStore, embedder: Callable[[], Embedder], scope: Optional[frozenset[int]] = None,
                 search: Optional[Callable[[str], list]] = None, sparse=None) -> None:
        self.docs = docs
        self._embedder = embedder
        self.scope = scope
        self._search = search  # passages for a request whose words name no document by its name
        self._sparse = sparse

    def __call__(self, form: Form) -> Reading:
        in_scope = [d for d in self.docs.list() if d.status != "failed" and (self.scope is None or d.id in self.scope)]
        if form.whole or not target_words(form.target):
            chosen, how = in_scope, "scope" if self.scope is not None else "collection"
        else:
            chosen, how = documents_named(in_scope, form.target), "name"
            if not chosen:
                chosen, how = self._by_content(form.target, in_scope), "content"
            if not chosen:
                return Reading(NO_SUCH_DOCUMENT.format(target=form.target), "abstain",
                               trace={"form": "abstain", "asked": form.to_trace()}, sources=[],
                               verdict=declined("no document matches the request"))
        if len(chosen) == 1:
            answer = f"{_name(chosen[0])}: {_without_name(overview(self.summary(chosen[0])), _name(chosen[0]))}"
        else:
            answer = self._overview(chosen, SCOPE_SUMMARY_HEAD if how == "scope" else COLLECTION_SUMMARY_HEAD)
        return Reading(answer, "summary", trace={"form": "summary", "asked": form.to_trace(), "matched_by": how,
                                                  "documents": [d.key for d in chosen]},
                       sources=self._sources(chosen[:LISTED]))

    def summary(self, doc: DocumentRow) -> str:
        """The document's corpus summary, its sections apart (made now, extractively, when
        indexing wrote none)."""
        stored = self.docs.current_summary(doc)
        if stored:
            return stored
        return summarize_long(ExtractiveSummarizer(), self.docs.text(doc.id), self._embedder(), CancelToken())

    def _overview(self, docs: Sequence[DocumentRow], head: str) -> str:
        lines = [head.format(n=len(docs))]
        for doc in docs[:LISTED]:
            first = " ".join(split_sentences(" ".join(self.summary(doc).split()))[:LISTED_SENTENCES])
            lines.append(f"• {_name(doc)}: {_without_name(first, _name(doc))}")
        if len(docs) > LISTED:
            lines.append(COLLECTION_SUMMARY_MORE.format(more=len(docs) - LISTED))
        return "\n".join(lines)

    def _by_content(self, target: str, docs: Sequence[DocumentRow]) -> list[DocumentRow]:
        """The document of the passages that match ``target`` best, when they hold most of its words."""
        if self._search is None or self._sparse is None:
            return []
        hits = self._search(target)
        allowed = {d.id: d for d in docs}
        hits = [h for h in hits if h.chunk.document_id in allowed]
        if not hits:
            return []
        best = hits[0].chunk.document_id
        if coverage(target, [h for h in hits if h.chunk.document_id == best], self._sparse).score < 0.5:
            return []
        return [allowed[best]]

    def _sources(self, docs: Sequence[DocumentRow]) -> list[Source]:
        out = []
        for doc in docs:
            ids = self.docs.chunk_ids(doc.id, "text", "vec")[:1] or self.docs.chunk_ids(doc.id, "summary", "vec")[:1]
            out += [c.as_source(1.0) for c in self.docs.chunks(ids).values()]
        return out


def overview(summary: str, words: int = SHOWN_WORDS) -> str:
    """A summary as a reader is shown it: whole when short; else the first sentence of each
    section (a long document's summary is its sections' summaries, indexing/summary.py), then
    the second of each, …, in document order, about ``words`` long."""
    sections = [split_sentences(" ".join(s.split())) for s in re.split(r"\n\s*\n", summary) if s.strip()]
    flat = " ".join(" ".join(s) for s in sections)
    if len(flat.split()) <= words:
        return flat
    chosen: set[tuple[int, int]] = set()
    used, depth = 0, 0
    while used < words and any(depth < len(s) for s in sections):
        for i, sentences in enumerate(sections):
            if depth < len(sentences) and used < words:
                chosen.add((i, depth))
                used += len(sentences[depth].split())
        depth += 1
    return " ".join(sentences[j] for i, sentences in enumerate(sections) for j in range(len(sentences)) if (i, j) in chosen)


def _without_name(summary: str, name: str) -> str:
    """The summary without the document's name repeated at its start (an extractive summary
    begins with the title line)."""
    words = name.split()
    head = summary.split()[: len(words)]
    if words and [w.lower() for w in head] == [w.lower() for w in words] and len(summary.split()) > len(words):
        return " ".join(summary.split()[len(words):])
    return summary


def _name(doc: DocumentRow) -> str:
    """The document's title, or its file name when the title is only the file's stem."""
    file = PurePath(doc.key.split("#", 1)[0]).name
    return doc.title if doc.title and doc.title != PurePath(file).stem else file
