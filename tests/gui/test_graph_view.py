"""The Graph tab drawn for real (offscreen): a legend of the entity types shown, relations visible
with their keywords on hover, the searched entity centred, no label over another, unrelated
entities grouped, long names shortened."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QGraphicsSimpleTextItem  # noqa: E402

from k2desk.store.db import Database  # noqa: E402

pytestmark = pytest.mark.gui

PEOPLE = ["Mirela Varga", "Tomas Reyes", "Anneli Korhonen", "Ilse Maren", "Henrike Albers", "Ottilie Brandt"]
PLACES = ["Harwick Point", "Tampere", "Lindenfeld", "Oulu", "Malmö"]
ORGS = ["Rookhaven Chess Club", "Quillfeather Robotics", "Lindenfeld Solar Cooperative and Community Energy Fund"]


def fill(db):
    rows = ([(n, "person") for n in PEOPLE] + [(n, "location") for n in PLACES] + [(n, "ORGANIZATION") for n in ORGS]
            + [("Kestrel-7", "product"), ("1998", "date")])
    with db.transaction():
        for eid, (display, etype) in enumerate(rows, 1):
            db.execute("INSERT INTO entities(id, source, name, display, type, description) VALUES (?, 'text', ?, ?, ?, ?)",
                       (eid, display.lower(), display, etype, f"{display} appears in the documents."))
        hub = 1  # Mirela Varga: related to every person and place and two clubs; the last three to nothing
        for other in range(2, len(rows) - 2):
            db.execute("INSERT INTO relations(source, src_id, dst_id, description, keywords, strength) "
                       "VALUES ('text', ?, ?, ?, ?, ?)", (hub, other, f"Mirela Varga and {rows[other - 1][0]}",
                                                          f"knows {other}", 1.0 + other % 5))


def test_graph_view_legend_hover_centre_and_no_overlaps(window):
    db = Database(window.settings.collection_path(window.collection))
    fill(db)
    db.close()
    view = window.graph_view
    window.tabs.setCurrentWidget(view)
    view.refresh_sources()
    names = ["Mirela Varga", "Kestrel-7", "1998", "Lindenfeld Solar Cooperative and Community Energy Fund"]
    assert view.show_entities(names) == 16

    assert view.legend_types == ["person", "location", "organization", "date", "product"]  # most first
    assert "organization (3)" in view.legend.text() and "searched / in the answer" in view.legend.text()

    hub = view.layout.pos[1]
    centre = view.view.mapToScene(view.view.viewport().rect().center())
    assert abs(centre.x() - hub[0]) < 20 and abs(centre.y() - hub[1]) < 20  # the searched entity centred

    labels = [i for i in view.scene.items() if isinstance(i, QGraphicsSimpleTextItem) and i.parentItem() is not None
              and i.parentItem() not in view.edges]
    rects = [i.sceneBoundingRect() for i in labels]
    assert len(rects) == 16
    assert not [(a, b) for n, a in enumerate(rects) for b in rects[n + 1:] if a.intersects(b)]
    assert any(i.text() == "Lindenfeld Solar Cooperative and Co…" for i in labels)  # shortened

    assert sorted(view.layout.isolated) == [14, 15, 16]  # the fund, Kestrel-7 and 1998: related to nothing shown
    assert min(view.layout.pos[n][1] for n in (14, 15, 16)) > max(view.layout.pos[n][1] for n in range(1, 14))

    edge = next(e for e in view.edges if e.relation == "knows 2")
    assert edge.pen().widthF() >= 1.2 and not edge.label.isVisible()
    edge.set_hovered(True)
    assert edge.label.isVisible() and edge.label.text() == "knows 2"
    assert "Mirela Varga — Tomas Reyes" in edge.toolTip()
    edge.set_hovered(False)
    assert not edge.label.isVisible()
