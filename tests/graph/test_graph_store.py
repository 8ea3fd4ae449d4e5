"""GraphStore on a real collection, in a SQLite file and on a PostgreSQL server: merging, removal
without orphans, k-hop neighbourhoods, networkx and GraphML export. No LLM, no embedder."""

import networkx as nx
import numpy as np
import pytest

from k2desk.store.documents import DocumentStore
from k2desk.store.graph import DESCRIPTION_LIMIT, GraphSource, GraphStore, majority_type, merge_descriptions, merge_keywords, normalize_name
from k2desk.store.vectors import VectorIndex
from k2desk.text.chunking import Chunk


@pytest.fixture
def db(backend):
    return backend.open("g")  # closed after the test


def add_doc(db, key, n_chunks=2, source="text"):
    docs = DocumentStore(db)
    doc_id = docs.upsert(key, key, "txt", {}, "h-" + key, "text of " + key, status="done")
    ids = docs.add_chunks(doc_id, source, "graph", [Chunk(i, 0, 10, 5, f"{key} chunk {i}") for i in range(n_chunks)])
    return doc_id, ids


def test_normalize_name_merges_spellings():
    assert normalize_name("Sam Bankman-Fried") == normalize_name("sam bankman fried") == "sam bankman fried"
    assert normalize_name("  The   Harwick Point Lighthouse ") == "harwick point lighthouse"
    assert normalize_name("Tobiás Varga") == "tobias varga"
    assert normalize_name("McDonald's") == normalize_name("McDonalds") == "mcdonalds"
    assert normalize_name("U.S.") == "u s" and normalize_name("...") == "" and normalize_name("the") == "the"


def test_merge_helpers_are_bounded_and_distinct():
    merged = merge_descriptions(["Keeper of the light. Born in Saltmere", "keeper of the light!", "Writes a logbook."])
    assert merged == "Keeper of the light. Born in Saltmere. Writes a logbook."
    long = merge_descriptions([f"Sentence number {i} is here." for i in range(200)])
    assert len(long) <= DESCRIPTION_LIMIT and long.startswith("Sentence number 0 is here.")
    assert len(merge_descriptions(["x" * 5000])) == DESCRIPTION_LIMIT
    assert merge_keywords(["keeper, family", "Family; care", ""]) == "keeper, family, care"
    assert majority_type(["other", "person", "location", "person"]) == "person"
    assert majority_type(["location", "person"]) == "location"  # tie: earliest
    assert majority_type(["other", ""]) == "other"


def test_upsert_merges_entities_and_relations(db):
    g = GraphStore(db)
    d1, (c1, c2) = add_doc(db, "a")
    with db.transaction():
        e1 = g.upsert_entity("text", "Sam Bankman-Fried", None, "person", "Founder of FTX.", c1, d1)
        e2 = g.upsert_entity("text", "sam bankman fried", "sam bankman fried", "other", "Was convicted in 2023", c2, d1)
        e3 = g.upsert_entity("text", "SAM BANKMAN-FRIED", None, "organization", "founder of FTX", c2, d1)  # same chunk again
        assert g.upsert_entity("text", " -- ", None, "person", "nothing", c1, d1) is None
        ftx = g.upsert_entity("text", "FTX", None, "organization", "A crypto exchange.", c1, d1)
        r1 = g.upsert_relation("text", "Sam Bankman-Fried", "FTX", "SBF founded FTX.", "founder, owner", 8, c1, d1)
        r2 = g.upsert_relation("text", "ftx", "sam bankman fried", "FTX was run by SBF.", "chief executive", 4, c2, d1)
        assert g.upsert_relation("text", "FTX", "ftx", "self", "", 5, c1, d1) is None
        r3 = g.upsert_relation("text", "FTX", "Alameda Research", "Sister firm.", "affiliate", 6, c2, d1)
    assert e1 == e2 == e3 and r1 == r2  # relations are undirected: A-B and B-A are one row
    e = g.entity(e1)
    assert e.display == "Sam Bankman-Fried" and e.mentions == 2
    assert e.type == "person"  # person 1, organization 1 (c2 keeps its first non-'other' type), other ignored
    assert e.description == "Founder of FTX. Was convicted in 2023."  # 'founder of FTX' is not repeated
    rel = g.relation(r1)
    assert (rel.src, rel.dst) == ("Sam Bankman-Fried", "FTX")  # orientation of the first mention
    assert rel.strength == pytest.approx(6.0) and rel.mentions == 2
    assert rel.keywords == "founder, owner, chief executive"
    assert rel.description == "SBF founded FTX. FTX was run by SBF."
    alameda = g.find("text", ["alameda research"])[0]
    assert alameda.type == "other" and alameda.description == "" and alameda.mentions == 1
    assert g.relation(r3).other(ftx) == alameda.id
    assert [x.name for x in g.containing("text", "Bankman")] == ["sam bankman fried"]
    assert g.counts("text") == {"entities": 3, "relations": 2, "entity_mentions": 5, "relation_mentions": 3}
    assert g.counts("summary")["entities"] == 0


def test_remove_document_recomputes_and_leaves_no_orphans(db):
    g = GraphStore(db)
    d1, (a1, a2) = add_doc(db, "a")
    d2, (b1,) = add_doc(db, "b", 1)
    with db.transaction():
        keeper = g.upsert_entity("text", "Mirela Varga", None, "person", "Keeper since 1998.", a1, d1)
        g.upsert_entity("text", "Mirela Varga", None, "person", "Writes a logbook.", b1, d2)
        g.upsert_entity("text", "Mirela Varga", None, "location", "Niece of Tobias.", a2, d1)
        g.upsert_entity("text", "Harwick Point", None, "location", "A headland.", a1, d1)
        g.upsert_entity("text", "Harwick Point", None, "location", "Has a lighthouse.", b1, d2)
        g.upsert_entity("text", "Tobias Varga", None, "person", "Former keeper.", a2, d1)
        shared = g.upsert_relation("text", "Mirela Varga", "Harwick Point", "Keeps the light.", "keeper", 9, a1, d1)
        g.upsert_relation("text", "Harwick Point", "Mirela Varga", "Logs storms there.", "logbook", 5, b1, d2)
        only_a = g.upsert_relation("text", "Mirela Varga", "Tobias Varga", "Niece.", "family", 7, a2, d1)
        # a summary-graph entity of the same document must survive a text-only removal
        sd, (s1,) = d1, DocumentStore(db).add_chunks(d1, "summary", "graph", [Chunk(0, 0, 5, 2, "sum")])
        summary_entity = g.upsert_entity("summary", "Mirela Varga", None, "person", "Keeper.", s1, sd)
    vecs = VectorIndex(db, "entities")
    vecs.ensure(4, "test")
    tobias = g.find("text", ["Tobias Varga"])[0].id
    with db.transaction():
        vecs.add([keeper, tobias], np.eye(4, dtype=np.float32)[:2], "text")
        rv = VectorIndex(db, "relations")
        rv.ensure(4, "test")
        rv.add([shared, only_a], np.eye(4, dtype=np.float32)[:2], "text")
    assert g.entity(keeper).description == "Keeper since 1998. Niece of Tobias. Writes a logbook."

    with db.transaction():
        change = g.remove_document(d1, "text")
    assert change.removed_entities == {tobias} and change.removed_relations == {only_a}
    assert keeper in change.entities and shared in change.relations
    k = g.entity(keeper)
    assert k.description == "Writes a logbook." and k.type == "person" and k.mentions == 1
    r = g.relation(shared)
    assert r.description == "Logs storms there." and r.keywords == "logbook" and r.strength == 5.0
    assert g.entity(tobias) is None and g.relation(only_a) is None
    assert {r[0] for r in db.all("SELECT id FROM vec_entities")} == {keeper}
    assert {r[0] for r in db.all("SELECT id FROM vec_relations")} == {shared}
    assert g.entity(summary_entity) is not None  # the other source is untouched
    for table in ("entity_mentions", "relation_mentions"):
        rows = db.all(f"SELECT count(*) FROM {table} m JOIN chunks c ON c.id = m.chunk_id "
                      "WHERE m.document_id = ? AND c.source = 'text'", (d1,))
        assert rows[0][0] == 0

    with db.transaction():
        g.remove_document(d2)  # both sources
        g.remove_document(d1)
    assert g.counts() == {"entities": 0, "relations": 0, "entity_mentions": 0, "relation_mentions": 0}
    assert db.one("SELECT count(*) FROM vec_entities")[0] == 0 and db.one("SELECT count(*) FROM vec_relations")[0] == 0


def test_a_hub_merges_its_description_from_its_first_mentions_and_its_type_and_strength_from_all(db, monkeypatch):
    import k2desk.store.graph as graph_module

    monkeypatch.setattr(graph_module, "MERGED_MENTIONS", 2)
    g = GraphStore(db)
    docs = [add_doc(db, key, 1) for key in "abcd"]
    with db.transaction():
        for n, (doc_id, (chunk,)) in enumerate(docs):
            etype = "organization" if n else "product"  # the majority comes from the later mentions
            hub = g.upsert_entity("text", "Google", None, etype, f"Mention {n} of Google.", chunk, doc_id, refresh=False)
            g.upsert_entity("text", "Kim", None, "person", f"Met Google {n}.", chunk, doc_id, refresh=False)
            rel = g.upsert_relation("text", "Google", "Kim", f"Relation {n}.", f"kw{n}", 2 * n + 2, chunk, doc_id, refresh=False)
        g.refresh([hub], [rel])
    h, r = g.entity(hub), g.relation(rel)
    assert h.description == "Mention 0 of Google. Mention 1 of Google." and h.type == "organization" and h.mentions == 4
    assert r.description == "Relation 0. Relation 1." and r.keywords == "kw0, kw1" and r.strength == pytest.approx(5.0)
    with db.transaction():
        g.remove_document(docs[0][0])  # the window moves on
    h, r = g.entity(hub), g.relation(rel)
    assert h.description == "Mention 1 of Google. Mention 2 of Google." and r.strength == pytest.approx(6.0)


def test_neighbours_walk_both_directions(db):
    g = GraphStore(db)
    d, (c,) = add_doc(db, "chain", 1)
    with db.transaction():
        for a, b in [("A", "B"), ("C", "B"), ("C", "D"), ("D", "E"), ("X", "Y")]:
            g.upsert_relation("text", a, b, f"{a} and {b}", "", 5, c, d)
    ids = {e.display: e.id for e in g.find("text", list("ABCDEXY"))}
    name = {v: k for k, v in ids.items()}
    assert {name[i]: h for i, h in g.neighbours([ids["A"]], hops=1).items()} == {"A": 0, "B": 1}
    assert {name[i]: h for i, h in g.neighbours([ids["A"]], hops=3).items()} == {"A": 0, "B": 1, "C": 2, "D": 3}
    assert {name[i]: h for i, h in g.neighbours([ids["C"], ids["Y"]], hops=1).items()} == {"C": 0, "B": 1, "D": 1, "Y": 0, "X": 1}
    assert g.neighbours([]) == {}
    assert {(r.src, r.dst) for r in g.relations_of([ids["C"]])} == {("C", "B"), ("C", "D")}
    assert [(r.src, r.dst) for r in g.relations_of([ids["C"], ids["D"]], both_ends=True)] == [("C", "D")]
    assert set(g.entity_chunks([ids["A"]])) == {ids["A"]} and g.entity_chunks([ids["A"]])[ids["A"]] == [c]


def test_networkx_and_graphml_export(db, tmp_path):
    g = GraphStore(db)
    d, (c,) = add_doc(db, "doc", 1)
    with db.transaction():
        g.upsert_entity("text", "Harwick Point Lighthouse", None, "location", "Built in 1887.", c, d)
        g.upsert_entity("text", "Mirela Varga", None, "person", "The keeper.", c, d)
        g.upsert_relation("text", "Mirela Varga", "Harwick Point Lighthouse", "She keeps it.", "keeper", 9, c, d)
    und = g.to_networkx("text")
    assert isinstance(und, nx.Graph) and und.number_of_nodes() == 2 and und.number_of_edges() == 1
    di = g.to_networkx("text", directed=True)
    (u, v, data), = di.edges(data=True)
    assert di.nodes[u]["display"] == "Mirela Varga" and di.nodes[v]["type"] == "location"
    assert data["keywords"] == "keeper" and data["strength"] == 9.0
    path = g.export_graphml(tmp_path / "out" / "graph.graphml", "text")
    back = nx.read_graphml(path)
    assert back.number_of_nodes() == 2 and back.number_of_edges() == 1
    assert {d["display"] for _, d in back.nodes(data=True)} == {"Mirela Varga", "Harwick Point Lighthouse"}
    assert g.to_networkx("summary").number_of_nodes() == 0


def test_names_are_found_by_word_through_the_index_which_follows_every_write(db):
    g = GraphStore(db)
    source = GraphSource(db)
    d1, (a,) = add_doc(db, "a", 1)
    d2, (b, b2) = add_doc(db, "b", 2)
    with db.transaction():
        g.upsert_entity("text", "Harwick Point Lighthouse", None, "location", "", a, d1)
        for chunk, doc in ((a, d1), (b, d2), (b2, d2)):  # the most mentioned: first
            g.upsert_entity("text", "Harwick Point", None, "location", "", chunk, doc)
        g.upsert_entity("text", "Point Harwick Road", None, "location", "", b, d2)
        g.upsert_entity("text", "Harwickshire", None, "location", "", b, d2)
        g.upsert_relation("text", "Harwick Point Lighthouse", "Harwickshire", "", "", 5, b, d2)
        g.upsert_relation("text", "Harwick Point Lighthouse", "Harwick Point", "", "", 5, b, d2)
    # whole words, in their order: not 'point harwick road', not 'harwickshire'
    assert [e.name for e in g.containing("text", "Harwick Point")] == ["harwick point", "harwick point lighthouse"]
    assert [e.name for e in g.containing("text", "the Lighthouse!")] == ["harwick point lighthouse"]
    assert g.containing("text", "wick") == [] and g.containing("summary", "harwick") == []
    names = {i: g.entity(i).name for i in source.find("harw", "text")}  # what was typed: word starts, most related first
    assert list(names.values())[0] == "harwick point lighthouse" and len(names) == 4
    assert [g.entity(i).name for i in source.find("harw poi", "text")] == ["harwick point lighthouse", "harwick point"]
    assert [g.entity(i).name for i in source.find("Harwick Point", "text")] == ["harwick point"]  # the name itself
    with db.transaction():
        g.remove_document(d2)  # 'harwickshire' and 'point harwick road' were only mentioned there
    assert g.containing("text", "harwickshire") == [] and len(source.find("harw", "text")) == 2
    dialect = db.dialect  # the names' index itself no longer holds the removed entity's words
    assert db.one(f"SELECT count(*) FROM {dialect.names_from} WHERE {dialect.names_match}", (dialect.name_query("road"),))[0] == 0
    assert db.one(f"SELECT count(*) FROM {dialect.names_from} WHERE {dialect.names_match}", (dialect.name_query("lighthouse"),))[0] == 1
