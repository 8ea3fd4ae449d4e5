"""What a method may use: the collection's stores and the (lazily loaded) models."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Optional

from k2desk.config import Settings
from k2desk.methods.retrieval import Retriever
from k2desk.runtime.embedder import Embedder
from k2desk.runtime.llm import LLM
from k2desk.store.db import Database
from k2desk.store.documents import DocumentStore
from k2desk.store.graph import GraphStore
from k2desk.verdict import DEFAULTS, Calibration

if TYPE_CHECKING:
    from k2desk.methods.reader import Reader


def graph_source(db: Database) -> str:
    return "text" if GraphStore(db).has_entities("text") else "summary"


@dataclass
class MethodContext:
    db: Database
    settings: Settings
    embedder_factory: Callable[[], Embedder]
    llm_factory: Callable[[], LLM]
    on_token: Optional[Callable[[str], None]] = None  # streaming of the final answer
    check_llm_factory: Optional[Callable[[], LLM]] = None  # the yes/no claim checker (default: llm)
    reader_llm_factory: Optional[Callable[[], LLM]] = None  # writes final open answers (default: llm)
    scope: Optional[frozenset[int]] = None  # the documents a question is asked about (None: all)
    verify: bool = False  # the reader asks its model whether the evidence says a short answer
    # a question → the clause that describes an entity it does not name ("" for none; the engine
    # gives k2desk.hops.find's): the reader seeks its words beside the answer's link too
    describe: Optional[Callable[[str], str]] = None
    calibration: Calibration = DEFAULTS  # the reading model's thresholds (k2desk.verdict)
    claim_calibration: Calibration = DEFAULTS  # ... the yes/no claim checker's
    _retrievers: dict[str, Retriever] = field(default_factory=dict)

    @property
    def embedder(self) -> Embedder:
        return self.embedder_factory()

    @property
    def llm(self) -> LLM:
        return self.llm_factory()

    @property
    def docs(self) -> DocumentStore:
        return DocumentStore(self.db)

    def graph_source(self) -> str:
        """The graph the graph methods walk: the raw text's when one was built (profiles both,
        raw), else the summaries' (profile default builds only that one)."""
        return graph_source(self.db)

    def reader(self, source: str = "text") -> "Reader":
        """The question-type-aware reader over this collection (reader.py), answering summary
        requests from the corpus summaries (summaries.py)."""
        from k2desk.methods.reader import Reader
        from k2desk.methods.summaries import Summaries

        retriever = self.retriever(source)
        summaries = Summaries(self.docs, lambda: self.embedder, self.scope,
                              search=lambda words: retriever.evidence_search(words, k=self.settings.top_k),
                              sparse=retriever.sparse)
        return Reader(self.llm_factory, retriever.sparse, self.docs.outlets(), checker=self.check_llm_factory,
                      summaries=summaries, outlet_rule=self.settings.outlet_rule, final=self.reader_llm_factory,
                      verify=self.verify, embed=lambda texts: self.embedder.embed(texts), in_titles=self.docs.title_holds,
                      describe=self.describe, calibration=self.calibration, claim_calibration=self.claim_calibration)

    def retriever(self, source: str = "text") -> Retriever:
        if source not in self._retrievers:
            self._retrievers[source] = Retriever(self.db, self.embedder, source, self.scope)
        return self._retrievers[source]
