"""What the graph methods' tests share.

* ``build_world``: a real collection (SQLite, sqlite-vec, FTS5, ONNX embeddings) of two short
  documents whose raw-text knowledge graph is written by hand, so tests know every entity and
  relation. A question needs several hops: the Harwick Point lighthouse got a lens from Orrin
  Glassworks, which Quillfeather Robotics acquired, which Anneli Korhonen leads.
* ``ScriptedLLM``: stands in for ``k2desk.runtime.llm.LLM`` only where a test must dictate the
  model's decisions (a refinement limit, a no-revisit rule) - a real model cannot be made to
  choose on demand. It keeps LLM's interface (chat/json/count_tokens/truncate/budget/total) and
  records every call. End-to-end tests use the real GGUF models.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Optional

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.graph.hypernodes import Hypernodes
from k2desk.graph.vectors import GraphVectors
from k2desk.methods.base import LLMUsage
from k2desk.methods.context import MethodContext
from k2desk.runtime.llm import LLM, Completion
from k2desk.store.graph import GraphStore

DOCUMENTS = {
    "harbour.txt": (
        "Harwick Point Lighthouse was built in 1887 on a granite headland above Saltmere Bay. "
        "Mirela Varga has kept the light since 1998. Her uncle Tobias Varga kept it before her. "
        "In 2021 the Saltmere Council funded a new lens for the lighthouse, made by Orrin Glassworks."
    ),
    "robots.txt": (
        "Quillfeather Robotics is a warehouse robot maker based in Tampere. Its chief executive is "
        "Anneli Korhonen. In 2023 Quillfeather Robotics acquired Orrin Glassworks for 40 million euros."
    ),
}

ENTITIES = {
    "harbour.txt": [
        ("Harwick Point Lighthouse", "location", "A lighthouse built in 1887 on a granite headland."),
        ("Saltmere Bay", "location", "The bay below the headland."),
        ("Mirela Varga", "person", "Keeper of the light since 1998."),
        ("Tobias Varga", "person", "Former keeper, uncle of Mirela Varga."),
        ("Saltmere Council", "organization", "The local council that funded a new lens."),
        ("Orrin Glassworks", "organization", "Maker of the lighthouse's new lens."),
        ("2021", "date", "The year the new lens was funded."),
    ],
    "robots.txt": [
        ("Quillfeather Robotics", "organization", "A warehouse robot maker in Tampere."),
        ("Tampere", "location", "City where Quillfeather Robotics is based."),
        ("Anneli Korhonen", "person", "Chief executive of Quillfeather Robotics."),
        ("Orrin Glassworks", "organization", "A glassworks acquired by Quillfeather Robotics."),
        ("2023", "date", "The year of the acquisition."),
    ],
}

# (source, target, description, keywords, strength)
RELATIONS = {
    "harbour.txt": [
        ("Harwick Point Lighthouse", "Saltmere Bay", "The lighthouse stands above the bay.", "location", 6),
        ("Mirela Varga", "Harwick Point Lighthouse", "She has kept the light since 1998.", "keeper", 9),
        ("Tobias Varga", "Mirela Varga", "Tobias is her uncle.", "family", 7),
        ("Tobias Varga", "Harwick Point Lighthouse", "He kept the light before her.", "former keeper", 7),
        ("Saltmere Council", "Harwick Point Lighthouse", "The council funded a new lens in 2021.", "funding", 6),
        ("Orrin Glassworks", "Harwick Point Lighthouse", "Orrin Glassworks made the lighthouse's new lens.", "supplier, lens", 8),
    ],
    "robots.txt": [
        ("Anneli Korhonen", "Quillfeather Robotics", "She is the chief executive.", "leadership, chief executive", 9),
        ("Quillfeather Robotics", "Tampere", "The company is based in Tampere.", "headquarters", 6),
        ("Quillfeather Robotics", "Orrin Glassworks", "Quillfeather Robotics acquired Orrin Glassworks in 2023.", "acquisition", 9),
    ],
}


def write_documents(folder: Path, names=None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names or DOCUMENTS:
        (folder / name).write_text(DOCUMENTS[name], encoding="utf-8")
    return folder


def add_graph(engine: Engine, names=None) -> None:
    """Write the hand-made graph of the named documents (all by default) as source 'text',
    mentioned by each document's first chunk, with real entity and relation vectors."""
    db, graph = engine.db, GraphStore(engine.db)
    with db.transaction():
        for name in names or DOCUMENTS:
            doc = next(d for d in engine.documents() if d.key.endswith(name))
            chunk = engine.docs.chunk_ids(doc.id, "text", "vec")[0]
            for ent, etype, desc in ENTITIES[name]:
                graph.upsert_entity("text", ent, ent, etype, desc, chunk, doc.id, refresh=False)
            for a, b, desc, kw, strength in RELATIONS[name]:
                graph.upsert_relation("text", a, b, desc, kw, strength, chunk, doc.id, refresh=False)
        ents = [r[0] for r in db.all("SELECT id FROM entities")]
        rels = [r[0] for r in db.all("SELECT id FROM relations")]
        graph.refresh(ents, rels)
        GraphVectors(db, engine.embedder).refresh(ents, rels, "text")
        Hypernodes(db, engine.embedder).sync("text")  # as the graph stage does


def build_world(home: Path, models_dir: Path, llm: str = "smollm2-135m") -> Engine:
    """Index the two documents (raw-text vectors and FTS; no LLM) and add their graph."""
    settings = Settings(home=home, models_dir=models_dir, llm=llm, threads=2, build_profile="naive")
    engine = Engine(settings, "world")
    report = engine.index([write_documents(home / "docs")])
    assert report.failed == [] and len(report.added) == len(DOCUMENTS)
    add_graph(engine)
    return engine


class ScriptedLLM:
    """An LLM whose replies come from ``reply(prompt, schema)`` (a str, or a value sent as JSON).
    Tokens are whitespace words. ``calls`` holds (prompt, schema, reply text) per call."""

    name = "scripted"
    n_ctx = 4096

    def __init__(self, reply: Callable[[str, Optional[dict]], Any]) -> None:
        self.reply = reply
        self.calls: list[tuple[str, Optional[dict], str]] = []
        self.avoided: list[str] = []  # each call's ``avoid`` (an earlier reply it must not begin as)
        self.total = LLMUsage()

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def truncate(self, text: str, max_tokens: int) -> str:
        return " ".join(text.split()[:max(0, max_tokens)])

    def budget(self, messages: list[dict], max_tokens: int) -> int:
        return self.n_ctx - self.count_tokens(" ".join(m["content"] for m in messages)) - max_tokens - 8

    def chat(self, messages: list[dict], max_tokens: int = 256, temperature: float = 0.0, schema: Optional[dict] = None,
             on_token=None, usage: Optional[LLMUsage] = None, cancel=None, stop=None, avoid: str = "",
             keep_state: bool = False) -> Completion:
        if cancel:
            cancel.check()
        self.avoided.append(avoid)
        prompt = messages[-1]["content"]
        out = self.reply(prompt, schema)
        text = out if isinstance(out, str) else json.dumps(out)
        self.calls.append((prompt, schema, text))
        spent = LLMUsage(1, self.count_tokens(prompt), self.count_tokens(text))
        self.total.add(spent)
        if usage is not None:
            usage.add(spent)
        if on_token:
            on_token(text)
        return Completion(text, spent.prompt_tokens, spent.completion_tokens, 0.0)

    # the real runtime's JSON parsing, over the scripted chat
    json = LLM.json


def schema_props(schema: dict) -> dict:
    """The properties of a schema made by ``ordered_object`` (listed through ``allOf``)."""
    return {k: v for part in schema.get("allOf", []) for k, v in part["properties"].items()}


def scripted_context(engine: Engine, llm: ScriptedLLM) -> MethodContext:
    """The engine's stores and embedder with the scripted LLM."""
    return MethodContext(engine.db, engine.settings, lambda: engine.embedder, lambda: llm)
