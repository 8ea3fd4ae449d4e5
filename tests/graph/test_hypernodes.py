"""Triple hypernodes derived from the graph of the test world: one per relation, linked to its
parts and to the entities that qualify it, embedded, and kept in line with document removal."""

import pytest

from k2desk.graph.hypernodes import Hypernodes, qualifier_word, relation_name, triple_label
from k2desk.indexing.graph import GraphStage
from tests.methods.support import RELATIONS, build_world


@pytest.fixture
def world(tmp_path, models_dir):
    engine = build_world(tmp_path, models_dir)
    yield engine
    engine.close()


def names(engine, node):
    rows = dict(engine.db.all("SELECT id, display FROM entities"))
    return {(rows[link.entity_id], link.role, link.label) for link in node.links}


def test_labels_and_qualifier_words():
    assert relation_name("acquisition, purchase", "") == "acquisition"
    assert relation_name("", "Quillfeather Robotics acquired Orrin Glassworks in 2023.") == "Quillfeather Robotics acquired Orrin"
    assert triple_label("A", "created", "B") == "(A) -[created]-> (B)"
    assert qualifier_word("Quillfeather Robotics acquired Orrin Glassworks in 2023.", "2023") == "in"
    assert qualifier_word("The council funded a new lens, 2021.", "2021") == "mentions"


def test_sync_derives_one_hypernode_per_relation_with_qualifiers(world):
    hyper = Hypernodes(world.db, world.embedder)
    with world.db.transaction():  # the world's graph comes with them, as the graph stage writes it
        world.db.execute("DELETE FROM hypernodes")
        hyper.drop_orphan_vectors()
    relations = world.db.one("SELECT count(*) FROM relations")[0]
    assert hyper.missing("text") == relations
    with world.db.transaction():
        assert hyper.sync("text") == relations
    assert hyper.missing("text") == 0
    assert world.db.one("SELECT count(*) FROM vec_nodes WHERE source = 'text'")[0] == relations
    nodes = {n.label: n for n in hyper.get(r[0] for r in world.db.all("SELECT id FROM hypernodes")).values()}
    acquisition = nodes["(Quillfeather Robotics) -[acquisition]-> (Orrin Glassworks)"]
    assert names(world, acquisition) == {("Quillfeather Robotics", "subject", "acquisition"),
                                         ("Orrin Glassworks", "object", "acquisition"), ("2023", "qualifier", "in")}
    funding = nodes["(Saltmere Council) -[funding]-> (Harwick Point Lighthouse)"]
    assert ("2021", "qualifier", "in") in names(world, funding)
    keeper = nodes["(Mirela Varga) -[keeper]-> (Harwick Point Lighthouse)"]
    assert {role for _, role, _ in names(world, keeper)} == {"subject", "object"}  # "since 1998": no 1998 entity
    # the vector search finds a triple by its meaning
    hits = hyper.vectors.search(world.embedder.embed_one("Quillfeather bought Orrin Glassworks"), 1, "text")
    assert hits[0][0] == acquisition.id
    year = world.db.one("SELECT id FROM entities WHERE display = '2023'")[0]
    assert hyper.of_entities([year]) == {year: [acquisition.id]}
    with world.db.transaction():
        assert hyper.sync("text") == 0  # nothing changed: nothing re-embedded


def test_removing_a_document_removes_its_hypernodes(world):
    """The graph stage's clear (what `docs remove` and re-indexing run) keeps hypernodes in line."""
    hyper = Hypernodes(world.db, world.embedder)
    with world.db.transaction():
        hyper.sync("text")
    robots = next(d for d in world.documents() if d.key.endswith("robots.txt"))
    gone = {r[0] for r in world.db.all("SELECT DISTINCT relation_id FROM relation_mentions WHERE document_id = ?", (robots.id,))}
    stage = GraphStage(world.db, lambda: world.embedder, lambda: None, "text")
    with world.db.transaction():
        stage.clear(robots.id)
    left = {r[0] for r in world.db.all("SELECT id FROM hypernodes")}
    assert len(left) == len(RELATIONS["harbour.txt"]) and not left & gone
    assert {r[0] for r in world.db.all("SELECT id FROM vec_nodes")} == left
    orrin = world.db.one("SELECT id FROM entities WHERE display = 'Orrin Glassworks'")[0]  # still in harbour.txt
    assert {h.label for h in hyper.get(hyper.of_entities([orrin])[orrin]).values()} == {
        "(Orrin Glassworks) -[supplier]-> (Harwick Point Lighthouse)"}
