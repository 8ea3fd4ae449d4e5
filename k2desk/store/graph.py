"""The knowledge graph over the collection's tables: entities, relations and their mentions.

One graph per source ('text': the raw documents, naive `kg` baseline and LightRAG; 'summary':
the K²RAG corpus summaries). Everything merged is derived from the mentions (which chunk said
what), so a document's removal recomputes exactly the entities and relations it touched:

* **Entities** merge by normalized name (``normalize_name``: accents and apostrophes dropped,
  casefolded, punctuation to spaces, spaces collapsed, a leading "the" dropped; "Sam
  Bankman-Fried" and "sam bankman fried" are one entity). ``display`` is the name as first
  written. ``type`` is the majority of the mentions' types ("other" counts only when nothing
  else does; ties go to the earliest mention). ``description`` is the distinct sentences of the
  mentions' descriptions in mention order, bounded to ``DESCRIPTION_LIMIT`` characters, read
  from the first ``MERGED_MENTIONS`` mentions: a hub named in most documents (its 1,200
  characters long full) is not re-read in full for every new document that names it (at 30k
  chunks one such refresh read 2,082 mentions, 100 ms, for 84 % of the documents indexed).
* **Relations are undirected**: one row per unordered pair of entities (A–B and B–A merge, as
  in LightRAG; small models get direction wrong). ``src_id``/``dst_id`` keep the orientation of
  the first mention, which is how the relation is displayed. Descriptions merge like entities',
  keywords are the distinct phrases (bounded, from the same first mentions), ``strength`` is
  the mean of all the mentions'.
* An entity or relation exists exactly while it has mentions; one that loses its last mention
  is deleted together with its vector.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional, Sequence

from k2desk.store.db import Database
from k2desk.store.vectors import VectorIndex
from k2desk.text.names import (  # noqa: F401 (re-exported)
    DESCRIPTION_LIMIT,
    ENTITY_TYPES,
    KEYWORDS_LIMIT,
    majority_type,
    merge_descriptions,
    merge_keywords,
    normalize_name,
)

if TYPE_CHECKING:
    import networkx as nx

MERGED_MENTIONS = 256  # mentions a merged description / keyword list is read from (the 40 dev articles: 189 at most)

SOURCES = ("text", "summary")


@dataclass
class Entity:
    id: int
    source: str
    name: str  # normalized key
    display: str
    type: str
    description: str
    mentions: int = 0


@dataclass
class Relation:
    id: int
    source: str
    src_id: int
    dst_id: int
    src: str  # display names of the endpoints
    dst: str
    description: str
    keywords: str
    strength: float
    mentions: int = 0

    def other(self, entity_id: int) -> int:
        return self.dst_id if entity_id == self.src_id else self.src_id


@dataclass
class GraphChange:
    """What a write or a removal touched: ids still present, and ids deleted."""

    entities: set[int] = field(default_factory=set)
    relations: set[int] = field(default_factory=set)
    removed_entities: set[int] = field(default_factory=set)
    removed_relations: set[int] = field(default_factory=set)


_ENTITY_COLS = ("e.id, e.source, e.name, e.display, e.type, e.description, "
                "(SELECT count(*) FROM entity_mentions m WHERE m.entity_id = e.id)")
_RELATION_COLS = ("r.id, r.source, r.src_id, r.dst_id, a.display, b.display, r.description, r.keywords, r.strength, "
                  "(SELECT count(*) FROM relation_mentions m WHERE m.relation_id = r.id)")
_RELATION_FROM = "relations r JOIN entities a ON a.id = r.src_id JOIN entities b ON b.id = r.dst_id"


def _marks(values: Sequence) -> str:
    return ",".join("?" * len(values))


class GraphStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.entity_vectors = VectorIndex(db, "entities")
        self.relation_vectors = VectorIndex(db, "relations")

    # -- writes (call inside a transaction) ----------------------------------------------
    def upsert_entity(self, source: str, name: str, display: Optional[str], type: str, description: str,
                      chunk_id: int, document_id: int, refresh: bool = True) -> Optional[int]:
        """Record that ``chunk_id`` mentions the entity; returns its id (None: empty name).
        With ``refresh=False`` the merged fields are left for ``refresh()`` (batch writes)."""
        key = normalize_name(name)
        if not key:
            return None
        display = " ".join((display or name).split()) or key
        type = type if type in ENTITY_TYPES else "other"
        description = " ".join((description or "").split())
        row = self.db.one("SELECT id FROM entities WHERE source = ? AND name = ?", (source, key))
        if row is None:
            row = next(self.db.execute("INSERT INTO entities(source, name, display, type, description) VALUES (?, ?, ?, ?, ?) RETURNING id",
                                       (source, key, display, type, description)))
        entity_id = int(row[0])
        old = self.db.one("SELECT type, description FROM entity_mentions WHERE entity_id = ? AND chunk_id = ?", (entity_id, chunk_id))
        if old is None:
            self.db.execute("INSERT INTO entity_mentions(entity_id, chunk_id, document_id, type, description) VALUES (?, ?, ?, ?, ?)",
                            (entity_id, chunk_id, document_id, type, description))
        else:  # named twice in one chunk: one mention, both descriptions
            merged_type = old[0] if old[0] != "other" else type
            self.db.execute("UPDATE entity_mentions SET type = ?, description = ? WHERE entity_id = ? AND chunk_id = ?",
                            (merged_type, merge_descriptions([old[1], description]), entity_id, chunk_id))
        if refresh:
            self.refresh([entity_id], [])
        return entity_id

    def upsert_relation(self, source: str, src: str, dst: str, description: str, keywords: str, strength: float,
                        chunk_id: int, document_id: int, refresh: bool = True) -> Optional[int]:
        """Record that ``chunk_id`` relates entities ``src`` and ``dst`` (names); endpoints not in
        the graph are added (type 'other', mentioned by the same chunk). None: empty name or a
        self-relation."""
        ends = []
        for name in (src, dst):
            key = normalize_name(name)
            if not key:
                return None
            row = self.db.one("SELECT id FROM entities WHERE source = ? AND name = ?", (source, key))
            has_mention = row is not None and self.db.one(
                "SELECT 1 FROM entity_mentions WHERE entity_id = ? AND chunk_id = ?", (row[0], chunk_id)) is not None
            ends.append(int(row[0]) if has_mention else self.upsert_entity(source, name, name, "other", "", chunk_id, document_id, refresh))
        a, b = ends
        if a is None or b is None or a == b:
            return None
        strength = float(min(10.0, max(1.0, strength)))
        description, keywords = " ".join((description or "").split()), " ".join((keywords or "").split())
        row = self.db.one("SELECT id FROM relations WHERE source = ? AND ((src_id = ? AND dst_id = ?) OR (src_id = ? AND dst_id = ?))",
                          (source, a, b, b, a))
        if row is None:
            row = next(self.db.execute(
                "INSERT INTO relations(source, src_id, dst_id, description, keywords, strength) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                (source, a, b, description, keywords, strength)))
        relation_id = int(row[0])
        old = self.db.one("SELECT description, keywords, strength FROM relation_mentions WHERE relation_id = ? AND chunk_id = ?",
                          (relation_id, chunk_id))
        if old is None:
            self.db.execute("INSERT INTO relation_mentions(relation_id, chunk_id, document_id, description, keywords, strength) "
                            "VALUES (?, ?, ?, ?, ?, ?)", (relation_id, chunk_id, document_id, description, keywords, strength))
        else:
            self.db.execute("UPDATE relation_mentions SET description = ?, keywords = ?, strength = ? "
                            "WHERE relation_id = ? AND chunk_id = ?",
                            (merge_descriptions([old[0], description]), merge_keywords([old[1], keywords]),
                             max(old[2], strength), relation_id, chunk_id))
        if refresh:
            self.refresh([], [relation_id])
        return relation_id

    def refresh(self, entity_ids: Iterable[int], relation_ids: Iterable[int]) -> None:
        """Recompute merged type/description (entities) and description/keywords/strength
        (relations) from the remaining mentions."""
        for eid in set(entity_ids):
            types = [r[0] for r in self.db.all("SELECT type FROM entity_mentions WHERE entity_id = ? ORDER BY chunk_id", (eid,))]
            if types:
                texts = self.db.all("SELECT description FROM entity_mentions WHERE entity_id = ? ORDER BY chunk_id LIMIT ?",
                                    (eid, MERGED_MENTIONS))
                self.db.execute("UPDATE entities SET type = ?, description = ? WHERE id = ?",
                                (majority_type(types), merge_descriptions(r[0] for r in texts), eid))
        for rid in set(relation_ids):
            strengths = [r[0] for r in self.db.all("SELECT strength FROM relation_mentions WHERE relation_id = ? ORDER BY chunk_id",
                                                   (rid,))]
            if strengths:
                texts = self.db.all("SELECT description, keywords FROM relation_mentions WHERE relation_id = ? "
                                    "ORDER BY chunk_id LIMIT ?", (rid, MERGED_MENTIONS))
                self.db.execute("UPDATE relations SET description = ?, keywords = ?, strength = ? WHERE id = ?",
                                (merge_descriptions(r[0] for r in texts), merge_keywords(r[1] for r in texts),
                                 sum(strengths) / len(strengths), rid))

    def remove_document(self, document_id: int, source: Optional[str] = None) -> GraphChange:
        """Delete the document's mentions (of one source, or both), recompute what they touched,
        and delete entities/relations (and vectors) left without mentions. Nothing else changes."""
        sources = [source] if source else list(SOURCES)
        marks = _marks(sources)
        ents = [r[0] for r in self.db.all(
            f"SELECT DISTINCT m.entity_id FROM entity_mentions m JOIN entities e ON e.id = m.entity_id "
            f"WHERE m.document_id = ? AND e.source IN ({marks})", (document_id, *sources))]
        rels = [r[0] for r in self.db.all(
            f"SELECT DISTINCT m.relation_id FROM relation_mentions m JOIN relations r ON r.id = m.relation_id "
            f"WHERE m.document_id = ? AND r.source IN ({marks})", (document_id, *sources))]
        self.db.executemany("DELETE FROM relation_mentions WHERE relation_id = ? AND document_id = ?", [(r, document_id) for r in rels])
        self.db.executemany("DELETE FROM entity_mentions WHERE entity_id = ? AND document_id = ?", [(e, document_id) for e in ents])
        change = GraphChange()
        alive = lambda table, col, i: self.db.one(f"SELECT 1 FROM {table} WHERE {col} = ? LIMIT 1", (i,)) is not None  # noqa: E731
        for rid in rels:
            (change.relations if alive("relation_mentions", "relation_id", rid) else change.removed_relations).add(rid)
        for eid in ents:
            (change.entities if alive("entity_mentions", "entity_id", eid) else change.removed_entities).add(eid)
        if change.removed_entities:  # relations cascade from their endpoints: drop their vectors too
            gone = list(change.removed_entities)
            m = _marks(gone)
            cascaded = {r[0] for r in self.db.all(f"SELECT id FROM relations WHERE src_id IN ({m}) OR dst_id IN ({m})", gone + gone)}
            change.removed_relations |= cascaded
            change.relations -= cascaded
        self.delete(change.removed_entities, change.removed_relations)
        self.refresh(change.entities, change.relations)
        return change

    def delete(self, entity_ids: Iterable[int], relation_ids: Iterable[int]) -> None:
        """Delete entities and relations with their mentions and vectors."""
        entity_ids, relation_ids = list(entity_ids), list(relation_ids)
        self.relation_vectors.remove(relation_ids)
        self.entity_vectors.remove(entity_ids)
        self.db.executemany("DELETE FROM relations WHERE id = ?", [(i,) for i in relation_ids])
        self.db.executemany("DELETE FROM entities WHERE id = ?", [(i,) for i in entity_ids])

    def set_vector_keys(self, kind: str, keys: dict[int, Optional[str]]) -> None:
        table = {"entities": "entities", "relations": "relations"}[kind]
        self.db.executemany(f"UPDATE {table} SET vector_key = ? WHERE id = ?", [(k, i) for i, k in keys.items()])

    def vector_keys(self, kind: str, ids: Sequence[int]) -> dict[int, Optional[str]]:
        table = {"entities": "entities", "relations": "relations"}[kind]
        ids = list(ids)
        if not ids:
            return {}
        return dict(self.db.all(f"SELECT id, vector_key FROM {table} WHERE id IN ({_marks(ids)})", ids))

    # -- lookups -------------------------------------------------------------------------
    def entities(self, ids: Iterable[int]) -> dict[int, Entity]:
        ids = list(dict.fromkeys(ids))
        if not ids:
            return {}
        rows = self.db.all(f"SELECT {_ENTITY_COLS} FROM entities e WHERE e.id IN ({_marks(ids)})", ids)
        return {r[0]: Entity(*r) for r in rows}

    def entity(self, entity_id: int) -> Optional[Entity]:
        return self.entities([entity_id]).get(entity_id)

    def find(self, source: str, names: Iterable[str]) -> list[Entity]:
        """Entities whose normalized name equals the normalized form of one of ``names``."""
        keys = list(dict.fromkeys(k for k in (normalize_name(n) for n in names) if k))
        if not keys:
            return []
        rows = self.db.all(f"SELECT {_ENTITY_COLS} FROM entities e WHERE e.source = ? AND e.name IN ({_marks(keys)})", [source, *keys])
        return [Entity(*r) for r in rows]

    def containing(self, source: str, phrase: str, limit: int = 10) -> list[Entity]:
        """Entities whose name contains ``phrase`` as whole words ('harwick point' finds
        'harwick point lighthouse'); most-mentioned first."""
        key = normalize_name(phrase)
        if not key:
            return []
        dialect = self.db.dialect
        rows = self.db.all(f"SELECT {_ENTITY_COLS} FROM {dialect.names_from} "
                           f"WHERE {dialect.names_match} AND e.source = ? ORDER BY 7 DESC, e.id LIMIT ?",
                           (dialect.name_query(key), source, limit))
        return [Entity(*r) for r in rows]

    def relations(self, ids: Iterable[int]) -> dict[int, Relation]:
        ids = list(dict.fromkeys(ids))
        if not ids:
            return {}
        rows = self.db.all(f"SELECT {_RELATION_COLS} FROM {_RELATION_FROM} WHERE r.id IN ({_marks(ids)})", ids)
        return {r[0]: Relation(*r) for r in rows}

    def relation(self, relation_id: int) -> Optional[Relation]:
        return self.relations([relation_id]).get(relation_id)

    def relations_of(self, entity_ids: Iterable[int], both_ends: bool = False) -> list[Relation]:
        """Relations touching any of ``entity_ids`` (``both_ends``: only those between them)."""
        ids = list(dict.fromkeys(entity_ids))
        if not ids:
            return []
        m = _marks(ids)
        cond = f"r.src_id IN ({m}) AND r.dst_id IN ({m})" if both_ends else f"r.src_id IN ({m}) OR r.dst_id IN ({m})"
        rows = self.db.all(f"SELECT {_RELATION_COLS} FROM {_RELATION_FROM} WHERE {cond} ORDER BY r.id", ids + ids)
        return [Relation(*r) for r in rows]

    def neighbours(self, entity_ids: Iterable[int], hops: int = 1) -> dict[int, int]:
        """{entity id: hop distance} of everything within ``hops`` relations of ``entity_ids``
        (the seeds at distance 0), by a recursive query walking relations both ways."""
        ids = list(dict.fromkeys(int(i) for i in entity_ids))
        if not ids:
            return {}
        rows = self.db.all(*self.db.dialect.neighbours(ids, hops))
        return {int(i): int(d) for i, d in rows}

    def entity_chunks(self, entity_ids: Iterable[int]) -> dict[int, list[int]]:
        """{entity id: ids of the chunks that mention it, in order}."""
        return self._chunks("entity_mentions", "entity_id", entity_ids)

    def relation_chunks(self, relation_ids: Iterable[int]) -> dict[int, list[int]]:
        return self._chunks("relation_mentions", "relation_id", relation_ids)

    def _chunks(self, table: str, col: str, ids: Iterable[int]) -> dict[int, list[int]]:
        ids = list(dict.fromkeys(ids))
        out: dict[int, list[int]] = {}
        if ids:
            for item, chunk in self.db.all(f"SELECT {col}, chunk_id FROM {table} WHERE {col} IN ({_marks(ids)}) ORDER BY chunk_id", ids):
                out.setdefault(item, []).append(chunk)
        return out

    def has_entities(self, source: Optional[str] = None) -> bool:
        sql = "SELECT 1 FROM entities" + (" WHERE source = ?" if source else "") + " LIMIT 1"
        return self.db.one(sql, (source,) if source else ()) is not None

    def degrees(self, entity_ids: Iterable[int]) -> dict[int, int]:
        """Entity -> how many relations it has (either end)."""
        ids = list(dict.fromkeys(entity_ids))
        if not ids:
            return {}
        marks = _marks(ids)
        rows = self.db.all(f"SELECT e, count(*) FROM (SELECT src_id AS e FROM relations WHERE src_id IN ({marks}) "
                           f"UNION ALL SELECT dst_id FROM relations WHERE dst_id IN ({marks})) AS ends GROUP BY e", ids + ids)
        return {int(e): int(n) for e, n in rows}

    def counts(self, source: Optional[str] = None) -> dict[str, int]:
        where, params = ("WHERE source = ?", (source,)) if source else ("", ())
        one = lambda sql: int(self.db.one(sql, params)[0])  # noqa: E731
        return {
            "entities": one(f"SELECT count(*) FROM entities {where}"),
            "relations": one(f"SELECT count(*) FROM relations {where}"),
            "entity_mentions": one(f"SELECT count(*) FROM entity_mentions WHERE entity_id IN (SELECT id FROM entities {where})"),
            "relation_mentions": one(f"SELECT count(*) FROM relation_mentions WHERE relation_id IN (SELECT id FROM relations {where})"),
        }

    # -- whole-graph views ---------------------------------------------------------------
    def to_networkx(self, source: str = "text", directed: bool = False):
        """The graph of ``source`` as a networkx ``Graph`` (relations are undirected), or a
        ``DiGraph`` oriented as first mentioned. Nodes are entity ids with name, display, type,
        description and mentions; edges carry id, description, keywords, strength, mentions."""
        import networkx as nx

        g = nx.DiGraph() if directed else nx.Graph()
        for r in self.db.all(f"SELECT {_ENTITY_COLS} FROM entities e WHERE e.source = ? ORDER BY e.id", (source,)):
            e = Entity(*r)
            g.add_node(e.id, name=e.name, display=e.display, type=e.type, description=e.description, mentions=e.mentions)
        for r in self.db.all(f"SELECT {_RELATION_COLS} FROM {_RELATION_FROM} WHERE r.source = ? ORDER BY r.id", (source,)):
            rel = Relation(*r)
            g.add_edge(rel.src_id, rel.dst_id, id=rel.id, description=rel.description, keywords=rel.keywords,
                       strength=float(rel.strength), mentions=rel.mentions)
        return g

    def export_graphml(self, path: Path | str, source: str = "text", directed: bool = False) -> Path:
        import networkx as nx

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        nx.write_graphml(self.to_networkx(source, directed), str(path))
        return path


MAX_NODES = 60  # the most entities a neighbourhood brings


class GraphSource:
    """What the app's Graph tab needs from a collection's graph: the sources, a search by name, the
    neighbourhood of some entities and the whole graph of every source (for GraphML)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def sources(self) -> list[str]:
        return [r[0] for r in self.db.all("SELECT source FROM entities GROUP BY source ORDER BY count(*) DESC")]

    def find(self, text: str, source: str, limit: int = 10) -> list[int]:
        """The entity named ``text``, else those whose name has words starting with what was
        typed, in its order ("harw poi" finds "harwick point lighthouse"), most related first."""
        key = normalize_name(text)
        if not key:
            return []
        exact = self.db.all("SELECT id FROM entities WHERE source = ? AND name = ?", (source, key))
        if exact:
            return [r[0] for r in exact]
        dialect = self.db.dialect
        return [r[0] for r in self.db.all(
            f"SELECT e.id FROM {dialect.names_from} WHERE {dialect.names_match} AND e.source = ? "
            "ORDER BY (SELECT count(*) FROM relations r WHERE r.src_id = e.id) "
            "+ (SELECT count(*) FROM relations r WHERE r.dst_id = e.id) DESC, e.id LIMIT ?",
            (dialect.name_query(key, prefix=True), source, limit))]

    def neighbourhood(self, seeds: Iterable[int], hops: int = 1, limit: int = MAX_NODES) -> "nx.Graph":
        """Seeds plus their neighbours up to ``hops`` away (strongest relations first), at most ``limit`` nodes."""
        keep: list[int] = list(dict.fromkeys(seeds))[:limit]
        frontier = list(keep)
        for _ in range(hops):
            nxt: list[int] = []
            for node in frontier:
                for (other,) in self.db.all(
                        "SELECT CASE WHEN src_id = ? THEN dst_id ELSE src_id END FROM relations "
                        "WHERE src_id = ? OR dst_id = ? ORDER BY strength DESC LIMIT 25", (node, node, node)):
                    if other not in keep and len(keep) < limit:
                        keep.append(other)
                        nxt.append(other)
            frontier = nxt
        return self._graph(keep)

    def _graph(self, ids: list[int]) -> "nx.Graph":
        import networkx as nx

        g = nx.Graph()
        if not ids:
            return g
        marks = ",".join("?" * len(ids))
        for eid, display, etype, desc in self.db.all(
                f"SELECT id, display, type, description FROM entities WHERE id IN ({marks})", ids):
            g.add_node(eid, label=display, type=etype or "", description=desc or "")
        for src, dst, desc, keywords, strength in self.db.all(
                f"SELECT src_id, dst_id, description, keywords, strength FROM relations "
                f"WHERE src_id IN ({marks}) AND dst_id IN ({marks})", ids + ids):
            g.add_edge(src, dst, description=desc or "", keywords=keywords or "", strength=float(strength))
        return g

    def whole(self) -> "nx.MultiDiGraph":
        """Every entity and relation of every source, for export."""
        import networkx as nx

        g = nx.MultiDiGraph()
        for eid, source, name, display, etype, desc in self.db.all(
                "SELECT id, source, name, display, type, description FROM entities"):
            g.add_node(f"{source}:{name}", id=eid, source=source, name=name, label=display, type=etype or "",
                       description=desc or "")
        for src_s, src_n, dst_s, dst_n, source, desc, keywords, strength in self.db.all(
                "SELECT a.source, a.name, b.source, b.name, r.source, r.description, r.keywords, r.strength "
                "FROM relations r JOIN entities a ON a.id = r.src_id JOIN entities b ON b.id = r.dst_id"):
            g.add_edge(f"{src_s}:{src_n}", f"{dst_s}:{dst_n}", source=source, description=desc or "",
                       keywords=keywords or "", strength=float(strength))
        return g

    def export_graphml(self, path: Path | str) -> tuple[int, int]:
        """Write every source's graph as GraphML (nodes ``source:name``); returns (nodes, edges)."""
        import networkx as nx

        g = self.whole()
        nx.write_graphml(g, str(path))
        return g.number_of_nodes(), g.number_of_edges()
