"""Where each entity of the Graph tab goes: pure geometry, no Qt (tested on its own).

1. The related entities get a force-directed layout (networkx's Fruchterman–Reingold, seeded, so
   the same graph always looks the same) with the first searched entity pinned at the centre and
   the other searched ones starting around it.
2. Overlap removal: each entity is a box (its dot, its label centred under it); overlapping boxes
   are pushed apart along their shallower overlap until none overlaps (the pinned one stays).
3. Entities related to nothing shown are laid out in a grid of their own below the rest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Hashable, Iterable

import networkx as nx

DOT = 7.0  # radius of an entity's dot (the searched ones: SEED_DOT)
SEED_DOT = 10.0
GAP = 2.0  # between a dot and its label
PAD = 6.0  # kept free around every box
SPREAD = 95.0  # pixels per unit of the force layout, times sqrt(entities)
GRID_WIDTH = 900.0  # the isolated group wraps at this width (or the related part's, if wider)


@dataclass
class Layout:
    pos: dict[Hashable, tuple[float, float]] = field(default_factory=dict)  # centre of each dot
    isolated: list[Hashable] = field(default_factory=list)
    isolated_top: float = 0.0  # y of the isolated group's caption

    def box(self, node: Hashable, size: tuple[float, float], seed: bool = False) -> tuple[float, float, float, float]:
        return node_box(self.pos[node], size, seed)


def node_box(at: tuple[float, float], size: tuple[float, float], seed: bool = False) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of a dot with its label of ``size`` (width, height) centred under it."""
    r = SEED_DOT if seed else DOT
    half = max(r, size[0] / 2)
    return at[0] - half, at[1] - r, at[0] + half, at[1] + r + GAP + size[1]


def overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float], pad: float = 0.0) -> bool:
    return a[0] < b[2] + pad and b[0] < a[2] + pad and a[1] < b[3] + pad and b[1] < a[3] + pad


def layout(g: nx.Graph, seeds: Iterable[Hashable], sizes: dict[Hashable, tuple[float, float]],
           iterations: int = 300) -> Layout:
    """Positions for every node of ``g``; ``sizes`` are the label sizes in pixels."""
    out = Layout()
    related = [n for n in g.nodes if g.degree(n) > 0]
    out.isolated = [n for n in g.nodes if g.degree(n) == 0]  # searched ones too: drawn bold in the group
    seeds = [s for s in dict.fromkeys(seeds) if s in g and g.degree(s) > 0]
    if related:
        out.pos = _force(g.subgraph(related), seeds)
        _separate(out.pos, sizes, set(seeds[:1]), set(seeds), iterations)  # the others may move to make room
    _grid(out, sizes)
    return out


def _force(h: nx.Graph, seeds: list[Hashable]) -> dict[Hashable, tuple[float, float]]:
    n = h.number_of_nodes()
    if n == 1:
        return {next(iter(h.nodes)): (0.0, 0.0)}
    # the first searched entity is pinned at the centre; the other searched ones start near it
    init = {s: (0.0, 0.0) if i == 0 else (0.3 * math.cos(2 * math.pi * i / len(seeds)),
                                          0.3 * math.sin(2 * math.pi * i / len(seeds)))
            for i, s in enumerate(seeds)}
    raw = nx.spring_layout(h, k=1.0 / math.sqrt(n), pos=init or None, fixed=seeds[:1] or None, seed=7,
                           iterations=120, weight=None)
    cx, cy = raw[seeds[0]] if seeds else (sum(p[0] for p in raw.values()) / n, sum(p[1] for p in raw.values()) / n)
    # scale so that three entities in four lie within SPREAD·sqrt(n)/2: one far outlier does not
    # squeeze the rest together
    distances = sorted(math.hypot(x - cx, y - cy) for x, y in raw.values())
    typical = distances[min(len(distances) - 1, (3 * len(distances)) // 4)] or distances[-1] or 1.0
    scale = SPREAD * math.sqrt(n) / 2 / typical
    return {v: ((x - cx) * scale, (y - cy) * scale) for v, (x, y) in raw.items()}


def _separate(pos: dict, sizes: dict, pinned: set, seeds: set, iterations: int) -> None:
    """Push overlapping boxes apart (pinned nodes do not move) until none overlaps; searched
    entities have the bigger dot."""
    nodes = list(pos)
    for _ in range(iterations):
        moved = False
        boxes = {v: node_box(pos[v], sizes.get(v, (40.0, 14.0)), v in seeds) for v in nodes}
        for i, a in enumerate(nodes):
            for b in nodes[i + 1:]:
                ba, bb = boxes[a], boxes[b]
                if not overlaps(ba, bb, PAD):
                    continue
                dx = min(ba[2], bb[2]) - max(ba[0], bb[0]) + PAD  # overlap along x (with padding)
                dy = min(ba[3], bb[3]) - max(ba[1], bb[1]) + PAD
                sign_x = 1.0 if pos[b][0] >= pos[a][0] else -1.0
                sign_y = 1.0 if pos[b][1] >= pos[a][1] else -1.0
                push = (dx * sign_x, 0.0) if dx < dy else (0.0, dy * sign_y)
                share_a = 0.0 if a in pinned else (1.0 if b in pinned else 0.5)
                share_b = 0.0 if b in pinned else 1.0 - share_a
                if share_a == share_b == 0.0:
                    continue
                pos[a] = (pos[a][0] - push[0] * share_a, pos[a][1] - push[1] * share_a)
                pos[b] = (pos[b][0] + push[0] * share_b, pos[b][1] + push[1] * share_b)
                boxes[a] = node_box(pos[a], sizes.get(a, (40.0, 14.0)), a in seeds)
                boxes[b] = node_box(pos[b], sizes.get(b, (40.0, 14.0)), b in seeds)
                moved = True
        if not moved:
            return


def _grid(out: Layout, sizes: dict) -> None:
    """The isolated entities in rows (left to right, wrapping) below the related ones."""
    if not out.isolated:
        return
    boxes = [node_box(p, sizes.get(v, (40.0, 14.0))) for v, p in out.pos.items()]
    left = min((b[0] for b in boxes), default=0.0)
    right = max((b[2] for b in boxes), default=0.0)
    top = max((b[3] for b in boxes), default=0.0) + 48.0
    out.isolated_top = top
    width = max(right - left, GRID_WIDTH)
    height = max(sizes.get(v, (40.0, 14.0))[1] for v in out.isolated) + 2 * DOT + GAP + 2 * PAD
    x, row = 0.0, 0
    for v in out.isolated:
        cell = max(2 * DOT, sizes.get(v, (40.0, 14.0))[0]) + 2 * PAD
        if x and x + cell > width:
            x, row = 0.0, row + 1
        out.pos[v] = (left + x + cell / 2, top + 28.0 + DOT + row * height)
        x += cell
