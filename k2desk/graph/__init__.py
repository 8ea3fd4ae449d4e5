"""The knowledge graph: extracted from chunks (spaCy or the LLM), stored in the collection,
searched without one (the stage that builds it per document is ``k2desk.indexing.graph``).

* ``k2desk.graph.extract``  one schema-bounded LLM call per 300/100 chunk -> typed ``Extraction``
* ``k2desk.graph.nlp``      the same without an LLM: spaCy's entities and dependency paths
* ``k2desk.text.names``    normalized names and the merge rules (pure functions)
* ``k2desk.store.graph``    ``GraphStore``: upserts with provenance, removal, neighbours, networkx/GraphML
* ``k2desk.graph.vectors``  entity/relation vectors, re-embedded when their merged text changes
* ``k2desk.graph.query``    ``KGSearcher(db, embedder).search(question, source)`` -> ``KGResult``
"""
