"""Every way of answering, in one table: its name, how to make it, what it reads, one line about it.

Adding a method is one module (a class with ``name`` and ``ask(question, progress, cancel) ->
Answer``, built from a ``MethodContext``) and one line in ``METHODS`` below; the CLI's choices,
the app's selectors, the evaluation harness and the engine's checks all come from this table.
The factories import their module when first called, so importing the table stays cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any, Callable

from k2desk.errors import UsageError

if TYPE_CHECKING:
    from k2desk.methods.base import Method
    from k2desk.methods.context import MethodContext

# What a method reads, as the indexing stages that build it: "graph" is the knowledge graph the
# collection has (the raw-text one where it was built, else the summaries'), and a method that
# reads it cannot answer without it; the others answer from whatever is built so far.
TEXT, SUMMARIES, SUMMARY_GRAPH, GRAPH = "text", "summary_index", "graph_summary", "graph"


@dataclass(frozen=True)
class MethodSpec:
    name: str
    make: Callable[[MethodContext], Method]
    reads: tuple[str, ...]
    description: str

    @property
    def needs_graph(self) -> bool:
        return GRAPH in self.reads

    @property
    def needs_text(self) -> bool:
        """Reads the raw text and nothing that could stand in for it (the summaries)."""
        return TEXT in self.reads and SUMMARIES not in self.reads


def _lazy(module: str, cls: str, **kwargs: Any) -> Callable[[MethodContext], Method]:
    def make(ctx: MethodContext) -> Method:
        return getattr(import_module(f"k2desk.methods.{module}"), cls)(ctx, **kwargs)
    return make


def _naive(name: str, paper: bool = False) -> Callable[[MethodContext], Method]:
    def make(ctx: MethodContext) -> Method:
        return import_module("k2desk.methods.naive").NaiveMethod(name, ctx, paper=paper)
    return make


def _kg(ctx: MethodContext) -> Method:  # the raw-text graph as in the paper, else the summaries'
    return import_module("k2desk.methods.kg").KGMethod(ctx, source=ctx.graph_source())


METHODS: dict[str, MethodSpec] = {spec.name: spec for spec in (
    MethodSpec("k2rag", _lazy("k2rag", "K2RAGMethod", max_sub_questions=0), (TEXT, SUMMARIES, SUMMARY_GRAPH),
               "K²RAG adapted where a small model needs help: its summaries, an open question read from its passages in one call"),
    MethodSpec("k2rag-paper", _lazy("k2rag", "K2RAGMethod", paper=True), (SUMMARIES, SUMMARY_GRAPH),
               "K²RAG exactly as published"),
    MethodSpec("k2rag-steps", _lazy("k2rag", "K2RAGMethod", name="k2rag-steps"), (TEXT, SUMMARIES, SUMMARY_GRAPH),
               "K²RAG's five steps with sub-questions, every answer read by the reader"),
    MethodSpec("semantic", _naive("semantic"), (TEXT,), "dense retrieval over the raw text (λ = 1), read by the reader"),
    MethodSpec("keyword", _naive("keyword"), (TEXT,), "BM25 / TF-IDF retrieval over the raw text (λ = 0), read by the reader"),
    MethodSpec("hybrid", _naive("hybrid"), (TEXT,), "dense and sparse mixed (λ = 0.8), read by the reader"),
    MethodSpec("evidence", _naive("evidence"), (TEXT,), "BM25 passages, one per article, read by the reader"),
    MethodSpec("semantic-paper", _naive("semantic-paper", paper=True), (TEXT,),
               "the paper's semantic baseline exactly: its prompt over 10 whole chunks"),
    MethodSpec("keyword-paper", _naive("keyword-paper", paper=True), (TEXT,),
               "the paper's keyword baseline exactly: its prompt over 10 whole chunks"),
    MethodSpec("hybrid-paper", _naive("hybrid-paper", paper=True), (TEXT,),
               "the paper's hybrid baseline exactly: its prompt over 10 whole chunks"),
    MethodSpec("kg", _kg, (GRAPH,), "knowledge-graph retrieval only"),
    MethodSpec("lightrag-local", _lazy("lightrag", "LightRAGMethod", mode="local"), (GRAPH,),
               "LightRAG, low-level keywords: entities and their neighbours"),
    MethodSpec("lightrag-global", _lazy("lightrag", "LightRAGMethod", mode="global"), (GRAPH,),
               "LightRAG, high-level keywords: relations"),
    MethodSpec("lightrag-hybrid", _lazy("lightrag", "LightRAGMethod", mode="hybrid"), (GRAPH,),
               "LightRAG, both keyword levels"),
    MethodSpec("coe", _lazy("coe", "CoEMethod"), (GRAPH,),
               "KG-RAG's Chain of Explorations over entities and triple hypernodes"),
    MethodSpec("mindmap", _lazy("mindmap", "MindMapMethod"), (GRAPH,),
               "Mapping the Mind: sub-queries explored over the graph, its source passages"),
)}
METHOD_NAMES = tuple(METHODS)


def describe(name: str) -> str:
    """The method's one line ("" for a name not in the table)."""
    spec = METHODS.get(name)
    return spec.description if spec else ""


def method_spec(name: str) -> MethodSpec:
    try:
        return METHODS[name]
    except KeyError:
        raise UsageError(f"unknown method {name!r}; choose one of {', '.join(METHOD_NAMES)}") from None
