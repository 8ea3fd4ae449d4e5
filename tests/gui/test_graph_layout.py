"""The Graph tab's layout: searched entities at the centre, no two labels overlapping, unrelated
entities in a group of their own below, the same picture every time."""

import itertools
import random

import networkx as nx

from k2desk.gui.graph_layout import layout, node_box, overlaps


def sample_graph(seed: int = 3) -> tuple[nx.Graph, dict]:
    rnd = random.Random(seed)
    g = nx.Graph()
    names = [f"{rnd.choice(['Anneli', 'Tomas', 'Harwick', 'Quill', 'Lindenfeld'])} {i} "
             + "x" * rnd.randint(2, 22) for i in range(40)]
    for i, name in enumerate(names):
        g.add_node(i, label=name)
    for i in range(1, 30):  # a hub (0), a few clusters around it, and 10 entities related to nothing shown
        g.add_edge(i, 0 if i < 8 else rnd.randint(1, i - 1))
    sizes = {i: (7.0 * len(names[i]), 16.0) for i in g.nodes}
    return g, sizes


def test_no_two_entities_overlap_and_the_searched_one_is_at_the_centre():
    g, sizes = sample_graph()
    out = layout(g, [0], sizes)
    assert out.pos[0] == (0.0, 0.0)
    boxes = {n: node_box(out.pos[n], sizes[n], n == 0) for n in g.nodes}
    clashes = [(a, b) for a, b in itertools.combinations(g.nodes, 2) if overlaps(boxes[a], boxes[b])]
    assert clashes == []
    assert layout(g, [0], sizes).pos == out.pos  # seeded: the same graph looks the same


def test_unrelated_entities_are_grouped_below_the_related_ones():
    g, sizes = sample_graph()
    out = layout(g, [0], sizes)
    assert sorted(out.isolated) == list(range(30, 40))
    related_bottom = max(node_box(out.pos[n], sizes[n])[3] for n in range(30))
    assert out.isolated_top > related_bottom
    assert all(out.pos[n][1] > out.isolated_top for n in out.isolated)
    rows = {round(out.pos[n][1]) for n in out.isolated}
    assert len(rows) <= 3  # a compact grid, not scattered over the canvas


def test_many_searched_entities_the_first_at_the_centre_an_unrelated_one_in_the_group():
    g, sizes = sample_graph()
    seeds = [0, 12, 35, *range(1, 12)]  # an answer's entities: many, one related to nothing shown
    out = layout(g, seeds, sizes)
    assert out.pos[0] == (0.0, 0.0)
    assert 35 in out.isolated and out.pos[35][1] > out.isolated_top
    boxes = {n: node_box(out.pos[n], sizes[n], n in seeds) for n in g.nodes}
    assert [(a, b) for a, b in itertools.combinations(g.nodes, 2) if overlaps(boxes[a], boxes[b])] == []
    single = nx.Graph()
    single.add_node("a")
    assert layout(single, ["a"], {"a": (30.0, 14.0)}).isolated == ["a"]
