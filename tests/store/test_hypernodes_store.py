"""The triple hypernodes' tables on both backends: written over by id, read with their links in
order, found from their entities, gone with their relation (the derivation: tests/graph)."""

import numpy as np

from k2desk.store.documents import DocumentStore
from k2desk.store.graph import GraphStore
from k2desk.store.hypernodes import Hypernode, HypernodeStore, Link
from k2desk.store.vectors import VectorIndex
from k2desk.text.chunking import Chunk


def test_hypernodes_follow_their_relations(backend):
    db = backend.open()
    docs, graph, store = DocumentStore(db), GraphStore(db), HypernodeStore(db)
    doc = docs.upsert("/docs/a.txt", "a", "txt", {}, "h", "text")
    (chunk,) = docs.add_chunks(doc, "text", "graph", [Chunk(0, 0, 10, 3, "Mirela keeps the lamp in 1998")])
    with db.transaction():
        rel = graph.upsert_relation("text", "Mirela Varga", "Harwick Lamp", "keeps it", "keeper", 7, chunk, doc)
        year = graph.upsert_entity("text", "1998", None, "date", "", chunk, doc)
    mirela, lamp = graph.relation(rel).src_id, graph.relation(rel).dst_id
    assert store.missing("text") == 1 and store.missing("summary") == 0
    assert store.triples("text") == [(rel, mirela, lamp, "Mirela Varga", "Harwick Lamp", "keeper", "keeps it.")]
    assert store.nearby("text", [rel]) == {rel: sorted([(mirela, "Mirela Varga"), (lamp, "Harwick Lamp"), (year, "1998")])}
    links = (Link(year, "qualifier", "in"), Link(lamp, "object", "keeper"), Link(mirela, "subject", "keeper"))
    with db.transaction():
        store.replace([Hypernode(rel, "text", "first", links[:2])], ["k1"])
        store.replace([Hypernode(rel, "text", "(Mirela Varga) -[keeper]-> (Harwick Lamp)", links)], ["k2"])  # over it
    node = store.get([rel, 12345])[rel]
    assert node.label.startswith("(Mirela") and [ln.role for ln in node.links] == ["subject", "object", "qualifier"]
    assert store.keys([rel]) == {rel: "k2"} and store.missing("text") == 0
    assert store.of_entities([year, lamp, 999]) == {year: [rel], lamp: [rel]}
    vectors = VectorIndex(db, "nodes")
    vectors.ensure(2, "toy")
    vectors.add([rel], np.array([[1.0, 0.0]], dtype=np.float32), "text")
    assert store.orphan_vector_ids() == []
    with db.transaction():
        graph.remove_document(doc)  # the relation goes, and its hypernode with it
    assert store.get([rel]) == {} and store.of_entities([year]) == {} and store.orphan_vector_ids() == [rel]
