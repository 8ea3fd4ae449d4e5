"""Indexing: every stage that derives a store from a document, and the runner that drives them.

* ``pipeline``  ``Indexer`` (register files, run each stage over the documents that need it, one
  transaction per document and stage, resume after a crash), ``run``, ``IndexReport``, ``Stage``
* ``chunks``    ``ChunkIndexStage``: 256/20 windows embedded into the dense and sparse stores
* ``summary``   ``SummaryStage``: one summary per document (K²RAG Algorithm 1)
* ``graph``     ``GraphStage``: the knowledge graph of the text or of the summaries, with its
  vectors and triple hypernodes
"""

from k2desk.indexing.chunks import ChunkIndexStage
from k2desk.indexing.graph import GraphBuildStats, GraphStage
from k2desk.indexing.pipeline import STAGE_TITLES, Indexer, IndexReport, Stage, run
from k2desk.indexing.summary import SummaryStage

__all__ = ["STAGE_TITLES", "ChunkIndexStage", "GraphBuildStats", "GraphStage", "IndexReport", "Indexer", "Stage", "SummaryStage", "run"]
