"""The knowledge graph around an answer (or a searched entity), and the export of a collection's
whole graph as GraphML. Layout in ``graph_layout.py`` (force-directed, searched entities at the
centre, no overlapping labels, unrelated entities grouped); colours by entity type, with a legend;
a relation shows its keywords when the pointer is on it.

Reads the graph through the engine (``Engine.graph_source()``), as the whole app reads its collection.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Callable, Iterable, Optional

import networkx as nx
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGraphicsLineItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from k2desk.engine import Engine
from k2desk.gui.graph_layout import DOT, SEED_DOT, Layout, layout

MIN_ZOOM = 0.55
LABEL_CHARS = 36
PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#bab0ac"]
TYPE_COLORS = {"person": "#4e79a7", "organization": "#f28e2b", "location": "#59a14f", "event": "#e15759",
               "date": "#b07aa1", "product": "#76b7b2", "concept": "#edc948"}


def short(label: str, limit: int = LABEL_CHARS) -> str:
    """A label as drawn: long names end in "…" (the whole name is in the dot's tooltip)."""
    label = " ".join(label.split())
    return label if len(label) <= limit else label[:limit - 1].rstrip() + "…"


def type_key(entity_type: str) -> str:
    """The LLM extractor writes PERSON, GEO, …; the fast one person, location, …: one legend."""
    t = (entity_type or "").strip().lower()
    return {"geo": "location", "org": "organization", "gpe": "location", "loc": "location"}.get(t, t or "other")


class ZoomView(QGraphicsView):
    def __init__(self, scene: QGraphicsScene) -> None:
        super().__init__(scene)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setBackgroundBrush(QColor("#fbfbfd"))

    def wheelEvent(self, event) -> None:  # noqa: N802
        factor = 1.15 if event.angleDelta().y() > 0 else 1 / 1.15
        self.scale(factor, factor)


class EdgeItem(QGraphicsLineItem):
    """A relation: visible at rest, its keywords shown at its middle while the pointer is on it."""

    PEN = QColor("#7b8794")
    HOVER = QColor("#d1495b")

    def __init__(self, a: QPointF, b: QPointF, strength: float, relation: str, tooltip: str) -> None:
        super().__init__(a.x(), a.y(), b.x(), b.y())
        self.width = 1.2 + min(2.8, strength / 4)
        self.setPen(QPen(self.PEN, self.width))
        self.setAcceptHoverEvents(True)
        self.setToolTip(tooltip)
        self.setZValue(0)
        self.relation = relation
        self.label = QGraphicsSimpleTextItem(relation or "related", self)
        self.label.setBrush(QBrush(self.HOVER))
        mid = (a + b) / 2
        self.label.setPos(mid.x() - self.label.boundingRect().width() / 2, mid.y() - 16)
        self.label.setVisible(False)

    def shape(self) -> QPainterPath:  # a band a few pixels wide: easy to point at
        path = QPainterPath()
        path.moveTo(self.line().p1())
        path.lineTo(self.line().p2())
        stroker = QPainterPathStroker()
        stroker.setWidth(10)
        return stroker.createStroke(path)

    def set_hovered(self, on: bool) -> None:
        self.setPen(QPen(self.HOVER if on else self.PEN, self.width + (1.5 if on else 0)))
        self.label.setVisible(on)
        self.setZValue(3 if on else 0)

    def hoverEnterEvent(self, event) -> None:  # noqa: N802
        self.set_hovered(True)

    def hoverLeaveEvent(self, event) -> None:  # noqa: N802
        self.set_hovered(False)


class GraphView(QWidget):
    """``show_entities(names)`` after an answer; the search box shows any entity's neighbourhood."""

    message = Signal(str)

    def __init__(self, open_engine: Callable[[], Optional[Engine]], parent=None) -> None:
        super().__init__(parent)
        self.open_engine = open_engine  # an engine on the current collection (None: no collection)
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
        self.legend = QLabel("")
        self.legend.setWordWrap(True)
        self.legend_types: list[str] = []
        self.edges: list[EdgeItem] = []
        self.layout: Optional[Layout] = None
        self.scene = QGraphicsScene(self)
        self.view = ZoomView(self.scene)
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.source_box)
        top.addWidget(show)
        top.addWidget(self.export_button)
        box = QVBoxLayout(self)
        box.addLayout(top)
        box.addWidget(self.view, 1)
        box.addWidget(self.legend)
        box.addWidget(self.info)

    # -- data --------------------------------------------------------------------------
    def refresh_sources(self) -> None:
        engine = self.open_engine()
        sources: list[str] = []
        if engine is not None:
            with engine:
                sources = engine.graph_source().sources()
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
        if not (ids or names):
            return 0
        engine = self.open_engine()
        if engine is None:
            return 0
        with engine:
            store = engine.graph_source()
            if source and self.source_box.findText(source) >= 0:
                self.source_box.setCurrentText(source)
            source = self.source_box.currentText() or (store.sources() or ["text"])[0]
            seeds = ids or [i for n in names for i in store.find(n, source)]
            self.graph = store.neighbourhood(seeds, hops)
        self.seeds = set(seeds)
        self.draw()
        if not self.graph.number_of_nodes():
            self.info.setText(f"No entity matches {', '.join(names) or ids}.")
        else:
            around = ", ".join(self.graph.nodes[s]["label"] for s in seeds[:5] if s in self.graph)
            self.info.setText(f"{self.graph.number_of_nodes()} entities, {self.graph.number_of_edges()} relations around {around}")
        return self.graph.number_of_nodes()

    # -- drawing -----------------------------------------------------------------------
    def type_colors(self) -> dict[str, QColor]:
        """Entity type -> colour: the usual types keep theirs; others take the remaining palette."""
        types = sorted({type_key(d.get("type", "")) for _, d in self.graph.nodes(data=True)})
        spare = iter(c for c in PALETTE if c not in TYPE_COLORS.values())
        return {t: QColor(TYPE_COLORS.get(t) or next(spare, "#9c9c9c")) for t in types}

    def draw(self) -> None:
        self.scene.clear()
        self.edges: list[EdgeItem] = []
        g = self.graph
        self.update_legend()
        if g.number_of_nodes() == 0:
            return
        font = QFont(self.font())
        bold = QFont(font)
        bold.setBold(True)
        sizes = {}
        for n, d in g.nodes(data=True):
            metrics = QFontMetricsF(bold if n in self.seeds else font)
            sizes[n] = (metrics.horizontalAdvance(short(d["label"])) + 8, metrics.height() + 2)
        self.layout = layout(g, self.seeds, sizes)
        at = {n: QPointF(*xy) for n, xy in self.layout.pos.items()}
        colors = self.type_colors()
        for a, b, d in g.edges(data=True):
            relation = (d.get("keywords") or "").strip() or (d.get("description") or "")[:60]
            tip = (f"{g.nodes[a]['label']} — {g.nodes[b]['label']}\n{d.get('keywords', '')}\n"
                   f"{d.get('description', '')[:500]}").strip()
            edge = EdgeItem(at[a], at[b], float(d.get("strength", 1.0)), relation, tip)
            self.scene.addItem(edge)
            self.edges.append(edge)
        for n, d in g.nodes(data=True):
            seed = n in self.seeds
            r = SEED_DOT if seed else DOT
            color = colors[type_key(d.get("type", ""))]
            dot = self.scene.addEllipse(-r, -r, 2 * r, 2 * r, QPen(QColor("#1f2933") if seed else color.darker(140),
                                                                   2.5 if seed else 1), QBrush(color))
            dot.setPos(at[n])
            dot.setToolTip(f"{d['label']} ({d.get('type') or 'entity'})\n{d.get('description', '')[:600]}")
            dot.setZValue(2)
            label = QGraphicsSimpleTextItem(short(d["label"]), dot)
            label.setFont(bold if seed else font)
            w, h = sizes[n]
            label.setPos(-(w - 8) / 2, r + 2)
            back = QGraphicsRectItem(QRectF(-(w - 8) / 2 - 3, r + 2, w - 2, h - 2), dot)
            back.setBrush(QBrush(QColor(255, 255, 255, 215)))
            back.setPen(QPen(Qt.PenStyle.NoPen))
            back.setZValue(-1)
            label.setZValue(1)
        if self.layout.isolated:
            left = min(at[n].x() for n in self.layout.isolated) - 40
            caption = self.scene.addSimpleText(f"Not related to the others shown ({len(self.layout.isolated)})")
            caption.setBrush(QBrush(QColor("#5b6775")))
            caption.setPos(left, self.layout.isolated_top)
        rect = self.scene.itemsBoundingRect().adjusted(-40, -40, 40, 40)
        seeds = [at[s] for s in self.seeds if s in at and s not in self.layout.isolated]
        centre = sum(seeds, QPointF()) / len(seeds) if seeds else rect.center()
        half_w = max(centre.x() - rect.left(), rect.right() - centre.x())
        half_h = max(centre.y() - rect.top(), rect.bottom() - centre.y())
        rect = QRectF(centre.x() - half_w, centre.y() - half_h, 2 * half_w, 2 * half_h)  # the searched at its middle
        self.scene.setSceneRect(rect)
        self.view.resetTransform()
        view = self.view.viewport().size()
        fit = min(view.width() / rect.width(), view.height() / rect.height()) if rect.width() and rect.height() else 1.0
        zoom = max(MIN_ZOOM, min(1.0, fit))  # never so small the labels cannot be read; pan for the rest
        self.view.scale(zoom, zoom)
        self.view.centerOn(centre)

    def update_legend(self) -> None:
        counts: dict[str, int] = {}
        for _, d in self.graph.nodes(data=True):
            counts[type_key(d.get("type", ""))] = counts.get(type_key(d.get("type", "")), 0) + 1
        colors = self.type_colors()
        self.legend_types = sorted(counts, key=lambda t: (-counts[t], t))
        chips = [f"<span style='color:{colors[t].name()}; font-size:16px'>●</span>&nbsp;{html.escape(t)} ({counts[t]})"
                 for t in self.legend_types]
        if chips:
            chips.append("<span style='font-size:16px'>◉</span>&nbsp;<b>searched / in the answer</b>"
                         " · hover a line for its relation")
        self.legend.setText("&nbsp;&nbsp;&nbsp;".join(chips))

    # -- export ------------------------------------------------------------------------
    def choose_export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export the whole graph as GraphML", "graph.graphml", "GraphML (*.graphml)")
        if path:
            self.export(path)

    def export(self, path: str | Path) -> tuple[int, int]:
        engine = self.open_engine()
        if engine is None:
            return 0, 0
        with engine:
            nodes, edges = engine.graph_source().export_graphml(path)
        self.message.emit(f"exported {nodes} entities and {edges} relations to {path}")
        return nodes, edges
