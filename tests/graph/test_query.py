"""KG search on a hand-built graph with the real ONNX embedder (no LLM): name, partial and vector
matches, the neighbourhood, the budgeted text block, provenance, and vector refresh on merges."""

import random

import pytest

from k2desk.graph.query import KGSearcher, _lexical, _lexical_bound, stems, top_k
from k2desk.graph.vectors import GraphVectors, entity_text, text_key
from k2desk.store.db import Database
from k2desk.store.documents import DocumentStore
from k2desk.store.graph import GraphStore
from k2desk.text.chunking import Chunk

FACTS = {
    "lighthouse": [
        ("Harwick Point Lighthouse", "location", "A lighthouse built in 1887 on a granite headland."),
        ("Mirela Varga", "person", "The keeper of the light since 1998."),
        ("Tobias Varga", "person", "Former keeper, uncle of Mirela."),
        ("Saltmere Bay", "location", "A bay north of the headland."),
    ],
    "robots": [
        ("Quillfeather Robotics", "organization", "A warehouse robot maker in Tampere."),
        ("Anneli Korhonen", "person", "Chief executive officer of Quillfeather Robotics."),
    ],
}
RELATIONS = {
    "lighthouse": [("Mirela Varga", "Harwick Point Lighthouse", "She keeps the light.", "keeper", 9),
                   ("Tobias Varga", "Mirela Varga", "Uncle and niece.", "family", 7),
                   ("Harwick Point Lighthouse", "Saltmere Bay", "Stands at the bay's northern end.", "location", 6)],
    "robots": [("Anneli Korhonen", "Quillfeather Robotics", "She leads the company.", "chief executive", 9)],
}


@pytest.fixture
def graph(tmp_path, embedder):
    db = Database(tmp_path / "q.k2db")
    docs, g = DocumentStore(db), GraphStore(db)
    with db.transaction():
        for key, ents in FACTS.items():
            doc = docs.upsert(key, key, "txt", {}, key, key, status="done")
            (chunk,) = docs.add_chunks(doc, "text", "graph", [Chunk(0, 0, 10, 5, f"chunk of {key}")])
            for name, etype, desc in ents:
                g.upsert_entity("text", name, name, etype, desc, chunk, doc)
            for a, b, desc, kw, s in RELATIONS[key]:
                g.upsert_relation("text", a, b, desc, kw, s, chunk, doc)
        ents = [r[0] for r in db.all("SELECT id FROM entities")]
        rels = [r[0] for r in db.all("SELECT id FROM relations")]
        assert GraphVectors(db, embedder).refresh(ents, rels, "text") == len(ents) + len(rels)
    yield db
    db.close()


def test_search_matches_names_neighbours_and_relations(graph, embedder):
    result = KGSearcher(graph, embedder).search("Who keeps the Harwick Point lighthouse?", "text")
    matched = {h.entity.display: h for h in result.entities}
    assert matched["Harwick Point Lighthouse"].match == "name"  # "Harwick Point lighthouse" is a span of the question
    names = set(matched) | {h.entity.display for h in result.neighbours}
    assert {"Mirela Varga", "Saltmere Bay"} <= names
    top = result.relations[0].relation
    assert {top.src, top.dst} == {"Mirela Varga", "Harwick Point Lighthouse"}
    assert "- Mirela Varga -[keeper]-> Harwick Point Lighthouse: She keeps the light." in result.text
    assert result.text.startswith("Entities:\n") and "\nRelations:\n" in result.text
    assert [s.document for s in result.sources] == ["lighthouse"] and result.sources[0].score == 1.0
    trace = result.to_trace()
    assert set(trace) == {"keywords", "entities", "relations", "neighbours", "kg_results"}


def test_exact_name_and_vector_matches(graph, embedder):
    searcher = KGSearcher(graph, embedder)
    result = searcher.search("What does Anneli Korhonen do?", "text")
    assert result.entities[0].entity.display == "Anneli Korhonen" and result.entities[0].match == "name"
    assert result.sources[0].document == "robots"
    vague = searcher.search("which firm builds warehouse robots", "text")
    assert vague.entities and vague.entities[0].entity.display == "Quillfeather Robotics"
    assert vague.entities[0].match == "vector"
    assert searcher.search("Who keeps the Harwick Point lighthouse?", "summary").empty  # the other source is empty


def test_text_block_respects_the_budget(graph, embedder):
    searcher = KGSearcher(graph, embedder)
    full = searcher.search("Who keeps the Harwick Point lighthouse?", "text", budget_tokens=2000)
    small = searcher.search("Who keeps the Harwick Point lighthouse?", "text", budget_tokens=40)
    assert embedder.count_tokens(small.text) <= 40 < embedder.count_tokens(full.text)
    assert small.text and small.text.splitlines()[1] in full.text


def test_vectors_follow_merged_descriptions(graph, embedder):
    g, vectors = GraphStore(graph), GraphVectors(graph, embedder)
    docs = DocumentStore(graph)
    mirela = g.find("text", ["Mirela Varga"])[0]
    before = g.vector_keys("entities", [mirela.id])[mirela.id]
    with graph.transaction():
        doc = docs.upsert("log", "log", "txt", {}, "log", "log", status="done")
        (chunk,) = docs.add_chunks(doc, "text", "graph", [Chunk(0, 0, 3, 1, "log")])
        g.upsert_entity("text", "mirela varga", None, "person", "Writes a storm logbook.", chunk, doc)
        assert vectors.refresh([mirela.id], [], "text") == 1
        assert vectors.refresh([mirela.id], [], "text") == 0  # up to date: nothing embedded
    after = g.vector_keys("entities", [mirela.id])[mirela.id]
    merged = g.entity(mirela.id)
    assert after != before and after == text_key(entity_text(merged.display, merged.description))
    with graph.transaction():
        change = g.remove_document(doc)
        assert vectors.refresh(change.entities, change.relations, "text") == 1  # back to the old text
    assert g.vector_keys("entities", [mirela.id])[mirela.id] == before
    assert graph.one("SELECT count(*) FROM vec_entities")[0] == graph.one("SELECT count(*) FROM entities")[0]


def test_top_k_scores_only_what_can_still_win_and_agrees_with_sorting_everything():
    rng = random.Random(7)
    scored_in_all = fewer_in_all = 0
    for _ in range(200):
        n, k = rng.randrange(0, 60), rng.randrange(1, 12)
        exact = {i: rng.choice([0.1, 0.2, 0.3, rng.random()]) for i in rng.sample(range(1000), n)}  # ties
        slack = rng.choice([0.0, 0.05, 0.2, 1.0])
        bounds = {i: s + slack * rng.random() for i, s in exact.items()}
        scored: list[int] = []
        got = top_k(bounds, lambda i, scored=scored, exact=exact: scored.append(i) or exact[i], k)
        assert got == sorted(exact.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
        if slack == 0.0 and n > 2 * k:  # tight bounds: little beyond the k best is scored
            assert len(scored) < n
        # a tighter bound between the two, cheaper than the score: the same result, fewer scored
        middle = {i: s + (bounds[i] - s) * rng.random() for i, s in exact.items()}
        fewer: list[int] = []
        again = top_k(bounds, lambda i, fewer=fewer, exact=exact: fewer.append(i) or exact[i], k, middle.__getitem__)
        assert again == got and set(fewer) <= set(scored)
        scored_in_all, fewer_in_all = scored_in_all + len(scored), fewer_in_all + len(fewer)
    assert fewer_in_all < 0.9 * scored_in_all  # the tighter bound is used


@pytest.mark.parametrize("question", ["Who keeps the Harwick Point lighthouse?", "Did O’Neill’s café close?",
                                      "Straße reports: what happened?"])
def test_the_word_overlap_bound_is_never_below_the_overlap(question):
    texts = ["The keeper of Harwick Point's lighthouse, Mirela Voss, kept it lit.", "O'Neill — the café’s owner — closed it.",
             "Die Straße (reported) happened", "", "lighthouses keepers closing"]
    q = stems(question)
    assert q
    for text in texts:
        assert _lexical_bound(q, text) >= _lexical(q, text)
    assert _lexical_bound(q, "nothing in common at all") == _lexical(q, "nothing in common at all") == 0.0
    glued = "".join(sorted(q)) + "zz"  # every stem inside one word whose stem is none of them
    assert _lexical_bound(q, glued) == 1.0 and _lexical(q, glued) == 0.0
