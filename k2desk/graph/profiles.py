"""LightRAG's profiles (paper §3.1, P(·)): every entity and relation of the graph as a key→value
pair. Keys are what a query's keywords are matched against, the value is the paragraph the
LightRAG context shows:

* an entity's key is its name; its value names it, gives its type and its merged description;
* a relation's keys are its keywords (the "global themes" of the paper) and its two entity
  names; its value gives both ends, the keywords, the merged description and the strength.

The paper's deduplication D(·) is not redone here: the graph store already merges entities by
normalized name and relations per unordered pair of entities, their descriptions and keywords
merged from every mention (k2desk.store.graph), and the paper's "incremental update" is the
store's union of a new document's mentions. Profiles are derived on read from the merged rows,
so they always follow the graph. The keys are searched through the graph vectors
(k2desk.graph.vectors embeds "name: description" and "A - B: keywords. description"), which
hold every key with the start of its value.
"""

from __future__ import annotations

from dataclasses import dataclass

from k2desk.store.graph import Entity, Relation
from k2desk.text.names import normalize_name


@dataclass(frozen=True)
class Profile:
    keys: tuple[str, ...]
    value: str


def entity_profile(entity: Entity) -> Profile:
    value = f"{entity.display} ({entity.type})" + (f": {entity.description}" if entity.description else "")
    return Profile((entity.display,), value)


def relation_profile(relation: Relation) -> Profile:
    themes = [k.strip() for k in relation.keywords.split(",") if k.strip()]
    keys = tuple({normalize_name(k): k for k in (*themes, relation.src, relation.dst) if normalize_name(k)}.values())
    head = f"{relation.src} -- {relation.dst}" + (f" [{relation.keywords}]" if relation.keywords else "")
    body = f": {relation.description}" if relation.description else ""
    return Profile(keys, f"{head}{body} (strength {round(relation.strength, 1):g}/10)")

