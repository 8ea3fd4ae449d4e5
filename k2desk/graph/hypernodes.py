"""Triple hypernodes (KG-RAG paper §4.1, Figure 2b): every relation of the graph is also a node,
labelled with the full triple "(A) -[name]-> (B)" and linked to its parts, so that a triple can
be found by vector search and explored like an entity. A hypernode is linked to

* its subject and object (roles 'subject' / 'object', the link named by the relation), and
* the entities that qualify the statement (role 'qualifier'): entities mentioned in the same
  chunk and named in the relation's description other than its two ends, e.g. the description
  "Quillfeather Robotics acquired Orrin Glassworks in 2023" links the hypernode
  ((Quillfeather Robotics) -[acquisition]-> (Orrin Glassworks)) to (2023) by "in". This is how
  our extraction's flat triples yield the paper's nested ones without a second extraction pass.

Hypernodes are derived from the merged graph: ``sync`` re-derives the given relations' hypernodes
whose label or links changed (a hash in ``vector_key``) and re-embeds only those, so they follow
the graph's incremental updates; a deleted relation cascades to its hypernode, and ``sync`` drops
the vectors left behind. Vectors live in VectorIndex kind "nodes" (id = relation id).
"""

from __future__ import annotations

import re
from typing import Iterable, Optional

from k2desk.graph.vectors import text_key
from k2desk.progress import CancelToken
from k2desk.runtime.embedder import Embedder
from k2desk.store.db import Database
from k2desk.store.hypernodes import Hypernode, HypernodeStore, Link  # noqa: F401 (re-exported)
from k2desk.store.vectors import VectorIndex
from k2desk.text.names import normalize_name

QUALIFIER_WORDS = {"in", "on", "at", "for", "by", "with", "from", "to", "of", "since", "until", "during", "after", "before"}
NAME_WORDS = 4  # a relation without keywords is named by the first words of its description


def relation_name(keywords: str, description: str) -> str:
    first = next((k.strip() for k in re.split(r"[,;/|]", keywords or "") if k.strip()), "")
    return first or " ".join((description or "related to").split()[:NAME_WORDS])


def triple_label(src: str, name: str, dst: str) -> str:
    return f"({src}) -[{name}]-> ({dst})"


def qualifier_word(description: str, name: str) -> str:
    """The word before ``name`` in ``description`` when it is a preposition ("in 2023" -> "in")."""
    words = normalize_name(description).split()
    target = normalize_name(name).split()
    for i in range(1, len(words) - len(target) + 1):
        if words[i:i + len(target)] == target:
            return words[i - 1] if words[i - 1] in QUALIFIER_WORDS else "mentions"
    return "mentions"


class Hypernodes:
    def __init__(self, db: Database, embedder: Optional[Embedder] = None) -> None:
        self.db = db
        self.store = HypernodeStore(db)
        self.embedder = embedder
        self.vectors = VectorIndex(db, "nodes")

    # -- derivation -----------------------------------------------------------------------
    def derive(self, source: str, relation_ids: Optional[Iterable[int]] = None) -> dict[int, Hypernode]:
        """The hypernodes the graph implies for ``relation_ids`` (all of ``source`` when None)."""
        if relation_ids is not None:
            relation_ids = list(relation_ids)
        nearby = self.store.nearby(source, relation_ids)  # relation -> entities mentioned in its chunks
        out = {}
        for rid, src_id, dst_id, src, dst, keywords, description in self.store.triples(source, relation_ids):
            name = relation_name(keywords, description)
            links = [Link(src_id, "subject", name), Link(dst_id, "object", name)]
            said = f" {normalize_name(description)} "
            for eid, display in nearby.get(rid, []):
                key = normalize_name(display)
                if eid not in (src_id, dst_id) and key and f" {key} " in said:
                    links.append(Link(eid, "qualifier", qualifier_word(description, display)))
            out[rid] = Hypernode(rid, source, triple_label(src, name, dst), tuple(links))
        return out

    @staticmethod
    def key(node: Hypernode) -> str:
        return text_key(node.label + "|" + "|".join(f"{ln.entity_id}:{ln.role}:{ln.label}" for ln in node.links))

    # -- storage --------------------------------------------------------------------------
    def sync(self, source: str, relation_ids: Optional[Iterable[int]] = None,
             cancel: Optional[CancelToken] = None) -> int:
        """Bring the hypernodes of ``relation_ids`` (all of ``source`` when None) in line with the
        graph; returns how many were (re)written. Call inside a transaction for atomicity."""
        derived = self.derive(source, relation_ids)
        have = self.store.keys(list(derived))
        stale = [n for rid, n in derived.items() if have.get(rid) != self.key(n)]
        if stale:
            if self.embedder is None:
                raise ValueError("an embedder is needed to write hypernodes")
            vectors = self.embedder.embed([n.vector_text for n in stale], cancel=cancel)
            self.vectors.ensure(self.embedder.dim, self.embedder.name)
            ids = [n.id for n in stale]
            self.vectors.remove(ids)
            self.store.replace(stale, [self.key(n) for n in stale])
            self.vectors.add(ids, vectors, source)
        self.drop_orphan_vectors()
        return len(stale)

    def drop_orphan_vectors(self) -> None:
        if self.vectors.ready:
            self.vectors.remove(self.store.orphan_vector_ids())

    def missing(self, source: str) -> int:
        """Relations of ``source`` without a hypernode (a collection built before hypernodes)."""
        return self.store.missing(source)

    def get(self, ids: Iterable[int]) -> dict[int, Hypernode]:
        return self.store.get(ids)

    def of_entities(self, entity_ids: Iterable[int]) -> dict[int, list[int]]:
        """{entity id: ids of the hypernodes it is a part or a qualifier of}."""
        return self.store.of_entities(entity_ids)
