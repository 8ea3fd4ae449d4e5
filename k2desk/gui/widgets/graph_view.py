"""The knowledge graph around an answer (or a searched entity), drawn with a seeded spring layout,
and the export of a collection's whole graph as GraphML.

Reads the ``entities`` / ``relations`` tables directly through ``GraphSource`` (a narrow
interface, so this can move onto ``k2desk.store.graph.GraphStore`` without touching the view).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Callable, Iterable, Optional

import networkx as nx
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import (QComboBox, QFileDialog, QGraphicsItem, QGraphicsScene, QGraphicsSimpleTextItem,
                               QGraphicsView, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget)

from k2desk.store.db import Database

MAX_NODES = 60
PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#bab0ac"]


class GraphSource:
    """What the view needs from a collection's graph, answered from the SQL tables."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def sources(self) -> list[str]:
        return [r[0] for r in self.db.all("SELECT source FROM entities GROUP BY source ORDER BY count(*) DESC")]

    def find(self, text: str, source: str, limit: int = 10) -> list[int]:
        text = text.strip().lower()
        if not text:
            return []
        exact = self.db.all("SELECT id FROM entities WHERE source = ? AND (lower(name) = ? OR lower(display) = ?)",
                            (source, text, text))
        if exact:
            return [r[0] for r in exact]
        like = f"%{text}%"
        return [r[0] for r in self.db.all(
            "SELECT e.id FROM entities e LEFT JOIN relations r ON r.src_id = e.id OR r.dst_id = e.id "
            "WHERE e.source = ? AND (lower(e.name) LIKE ? OR lower(e.display) LIKE ?) GROUP BY e.id "
            "ORDER BY count(r.id) DESC LIMIT ?", (source, like, like, limit))]

    def neighbourhood(self, seeds: Iterable[int], hops: int = 1, limit: int = MAX_NODES) -> nx.Graph:
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

    def _graph(self, ids: list[int]) -> nx.Graph:
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

    def whole(self) -> nx.MultiDiGraph:
        """Every entity and relation of every source, for export."""
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


def export_graphml(db: Database, path: Path | str) -> tuple[int, int]:
    """Write the collection's whole graph as GraphML; returns (nodes, edges)."""
    g = GraphSource(db).whole()
    nx.write_graphml(g, str(path))
    return g.number_of_nodes(), g.number_of_edges()


class ZoomView(QGraphicsView):
    def __init__(self, scene: QGraphicsScene) -> None:
        super().__init__(scene)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)

    def wheelEvent(self, event) -> None:  # noqa: N802
        factor = 1.15 if event.angleDelta().y() > 0 else 1 / 1.15
        self.scale(factor, factor)


class GraphView(QWidget):
    """``show_entities(names)`` after an answer; the search box shows any entity's neighbourhood."""

    message = Signal(str)

    def __init__(self, open_db: Callable[[], Optional[Database]], parent=None) -> None:
        super().__init__(parent)
        self.open_db = open_db  # a fresh connection for the current collection (None: no collection)
        self.graph = nx.Graph()
        self.seeds: set[int] = set()
        self.search = QLineEdit()
        self.search.setPlaceholderText("Entity to show (e.g. a person, a place)…")
        self.search.returnPressed.connect(self.show_search)
        self.source_box = QComboBox()
        self.source_box.setToolTip("Which graph: built from the documents' text or from their summaries")
        show = QPushButton("Show")
        show.clicked.connect(self.show_search)
        self.export_button = QPushButton("Export GraphML…")
        self.export_button.clicked.connect(self.choose_export)
        self.info = QLabel("")
        self.scene = QGraphicsScene(self)
        self.view = ZoomView(self.scene)
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.source_box)
        top.addWidget(show)
        top.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.info)

    # -- data --------------------------------------------------------------------------
    def refresh_sources(self) -> None:
        db = self.open_db()
        sources = GraphSource(db).sources() if db else []
        if db:
            db.close()
        current = self.source_box.currentText()
        self.source_box.clear()
        self.source_box.addItems(sources)
        if current in sources:
            self.source_box.setCurrentText(current)
        if not sources:
            self.scene.clear()
            self.info.setText("No knowledge graph in this collection yet (it is built when the graph stage runs).")

    def show_search(self) -> None:
        self.show_entities([self.search.text()])

    def show_entities(self, entities: Iterable, hops: int = 1, source: Optional[str] = None) -> int:
        """Draw the given entities (names, ids, or trace dicts with "id"/"name") and their
        neighbours; returns the number of nodes drawn."""
        ids = [int(e["id"]) if isinstance(e, dict) and "id" in e else e for e in entities]
        ids = [e for e in ids if isinstance(e, int)]
        names = [str(e.get("name", "")) if isinstance(e, dict) else e for e in entities]
        names = [n for n in names if isinstance(n, str) and n.strip()]
        db = self.open_db()
        if db is None or not (ids or names):
            return 0
        try:
            store = GraphSource(db)
            if source and self.source_box.findText(source) >= 0:
                self.source_box.setCurrentText(source)
            source = self.source_box.currentText() or (store.sources() or ["text"])[0]
            seeds = ids or [i for n in names for i in store.find(n, source)]
            self.graph = store.neighbourhood(seeds, hops)
        finally:
            db.close()
        self.seeds = set(seeds)
        self.draw()
        if not self.graph.number_of_nodes():
            self.info.setText(f"No entity matches {', '.join(names) or ids}.")
        else:
            around = ", ".join(self.graph.nodes[s]["label"] for s in seeds[:5] if s in self.graph)
            self.info.setText(f"{self.graph.number_of_nodes()} entities, {self.graph.number_of_edges()} relations around {around}")
        return self.graph.number_of_nodes()

    # -- drawing -----------------------------------------------------------------------
    def draw(self) -> None:
        self.scene.clear()
        g = self.graph
        if g.number_of_nodes() == 0:
            return
        scale = 140 * math.sqrt(g.number_of_nodes())
        pos = nx.spring_layout(g, seed=7, k=1.6 / math.sqrt(g.number_of_nodes()), iterations=80)
        at = {n: QPointF(float(x) * scale, float(y) * scale) for n, (x, y) in pos.items()}
        types = sorted({d.get("type", "") for _, d in g.nodes(data=True)})
        colors = {t: QColor(PALETTE[i % len(PALETTE)]) for i, t in enumerate(types)}
        for a, b, d in g.edges(data=True):
            pen = QPen(QColor("#9aa5b1"), 1 + min(3.0, d.get("strength", 1.0) / 3))
            line = self.scene.addLine(at[a].x(), at[a].y(), at[b].x(), at[b].y(), pen)
            line.setToolTip(f"{g.nodes[a]['label']} — {g.nodes[b]['label']}\n{d.get('description', '')}"
                            f"\n{d.get('keywords', '')}".strip())
            line.setZValue(0)
        for n, d in g.nodes(data=True):
            seed = n in self.seeds
            r = 9 if seed else 6
            color = colors[d.get("type", "")]
            dot = self.scene.addEllipse(-r, -r, 2 * r, 2 * r, QPen(QColor("#222") if seed else color.darker(130), 2 if seed else 1),
                                        QBrush(color))
            dot.setPos(at[n])
            dot.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)  # constant size at any zoom
            dot.setToolTip(f"{d['label']} ({d.get('type') or 'entity'})\n{d.get('description', '')[:600]}")
            dot.setZValue(2)
            label = QGraphicsSimpleTextItem(d["label"], dot)  # a child: same pixel size, beside its dot
            label.setPos(r + 3, -8)
            if seed:
                font = label.font()
                font.setBold(True)
                label.setFont(font)
        self.view.fitInView(self.scene.itemsBoundingRect().adjusted(-40, -40, 40, 40), Qt.AspectRatioMode.KeepAspectRatio)

    # -- export ------------------------------------------------------------------------
    def choose_export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export the whole graph as GraphML", "graph.graphml", "GraphML (*.graphml)")
        if path:
            self.export(path)

    def export(self, path: str | Path) -> tuple[int, int]:
        db = self.open_db()
        if db is None:
            return 0, 0
        try:
            nodes, edges = export_graphml(db, path)
        finally:
            db.close()
        self.message.emit(f"exported {nodes} entities and {edges} relations to {path}")
        return nodes, edges
