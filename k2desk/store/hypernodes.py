"""The triple hypernodes' tables (KG-RAG's Chain of Explorations; derived in
``k2desk.graph.hypernodes``): one hypernode per relation, its label and the hash of what it was
derived from, and its links to the entities it is about."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

from k2desk.store.db import Database


@dataclass(frozen=True)
class Link:
    entity_id: int
    role: str  # subject | object | qualifier
    label: str


@dataclass(frozen=True)
class Hypernode:
    id: int  # the relation's id
    source: str
    label: str
    links: tuple[Link, ...]

    @property
    def vector_text(self) -> str:
        return self.label


def _marks(values: Sequence) -> str:
    return ",".join("?" * len(values))


class HypernodeStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def _where(self, source: str, relation_ids: Optional[Iterable[int]]) -> Optional[tuple[str, list]]:
        where, params = "r.source = ?", [source]
        if relation_ids is not None:
            ids = list(dict.fromkeys(int(i) for i in relation_ids))
            if not ids:
                return None
            where += f" AND r.id IN ({_marks(ids)})"
            params += ids
        return where, params

    def triples(self, source: str, relation_ids: Optional[Iterable[int]] = None) -> list[tuple]:
        """(relation id, subject id, object id, subject name, object name, keywords, description)
        of ``relation_ids`` (every relation of ``source`` when None)."""
        found = self._where(source, relation_ids)
        if found is None:
            return []
        where, params = found
        return self.db.all(f"SELECT r.id, r.src_id, r.dst_id, a.display, b.display, r.keywords, r.description "
                           f"FROM relations r JOIN entities a ON a.id = r.src_id JOIN entities b ON b.id = r.dst_id "
                           f"WHERE {where}", params)

    def nearby(self, source: str, relation_ids: Optional[Iterable[int]] = None) -> dict[int, list[tuple[int, str]]]:
        """Relation -> the entities (id, name) mentioned in the chunks that mention it."""
        found = self._where(source, relation_ids)
        out: dict[int, list[tuple[int, str]]] = {}
        if found is None:
            return out
        where, params = found
        for rid, eid, display in self.db.all(
                f"SELECT DISTINCT rm.relation_id, e.id, e.display FROM relations r "
                f"JOIN relation_mentions rm ON rm.relation_id = r.id JOIN entity_mentions em ON em.chunk_id = rm.chunk_id "
                f"JOIN entities e ON e.id = em.entity_id WHERE {where} ORDER BY e.id", params):
            out.setdefault(rid, []).append((eid, display))
        return out

    def keys(self, ids: Sequence[int]) -> dict[int, str]:
        """Hypernode -> the hash of what it was derived from."""
        return dict(self.db.all(f"SELECT id, vector_key FROM hypernodes WHERE id IN ({_marks(ids)})", list(ids))) if ids else {}

    def replace(self, nodes: Sequence[Hypernode], keys: Sequence[str]) -> None:
        """Write ``nodes`` (and their links) over what their ids held."""
        ids = [n.id for n in nodes]
        self.db.executemany("DELETE FROM hypernodes WHERE id = ?", [(i,) for i in ids])
        self.db.executemany("INSERT INTO hypernodes(id, source, label, vector_key) VALUES (?, ?, ?, ?)",
                            [(n.id, n.source, n.label, key) for n, key in zip(nodes, keys, strict=True)])
        self.db.executemany("INSERT INTO hypernode_links(hypernode_id, entity_id, role, label) VALUES (?, ?, ?, ?)",
                            [(n.id, ln.entity_id, ln.role, ln.label) for n in nodes for ln in n.links])

    def orphan_vector_ids(self) -> list[int]:
        """Vectors of kind "nodes" whose hypernode is gone (its relation was deleted)."""
        return [r[0] for r in self.db.all("SELECT id FROM vec_nodes WHERE id NOT IN (SELECT id FROM hypernodes)")]

    def missing(self, source: str) -> int:
        """Relations of ``source`` without a hypernode (a collection built before hypernodes)."""
        return int(self.db.one("SELECT count(*) FROM relations r LEFT JOIN hypernodes h ON h.id = r.id "
                               "WHERE r.source = ? AND h.id IS NULL", (source,))[0])

    def get(self, ids: Iterable[int]) -> dict[int, Hypernode]:
        ids = list(dict.fromkeys(int(i) for i in ids))
        if not ids:
            return {}
        marks = _marks(ids)
        links: dict[int, list[Link]] = {}
        for hid, eid, role, label in self.db.all(
                f"SELECT hypernode_id, entity_id, role, label FROM hypernode_links WHERE hypernode_id IN ({marks}) "
                "ORDER BY hypernode_id, CASE role WHEN 'subject' THEN 0 WHEN 'object' THEN 1 ELSE 2 END, entity_id", ids):
            links.setdefault(hid, []).append(Link(eid, role, label))
        return {hid: Hypernode(hid, source, label, tuple(links.get(hid, ())))
                for hid, source, label in self.db.all(f"SELECT id, source, label FROM hypernodes WHERE id IN ({marks})", ids)}

    def of_entities(self, entity_ids: Iterable[int]) -> dict[int, list[int]]:
        """{entity id: ids of the hypernodes it is a part or a qualifier of}."""
        ids = list(dict.fromkeys(int(i) for i in entity_ids))
        out: dict[int, list[int]] = {}
        if ids:
            for eid, hid in self.db.all(f"SELECT entity_id, hypernode_id FROM hypernode_links WHERE entity_id IN "
                                        f"({_marks(ids)}) ORDER BY hypernode_id", ids):
                out.setdefault(eid, []).append(hid)
        return out
