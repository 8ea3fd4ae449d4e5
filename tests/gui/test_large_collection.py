"""The app on a collection of 8,000 documents (rows written through the store, no vectors: the
list reads only documents and their stages): every document listed once and counted right.
How long it takes is measured by benchmarks/bench_scale.py (``gui``), not asserted here."""

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from k2desk.engine import Engine  # noqa: E402

pytestmark = pytest.mark.gui
N = 8000
BENCH_SCALE = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_scale.py"


def fill(settings, n: int = N) -> None:
    """The rows benchmarks/bench_scale.py times the app on (``gui --documents``)."""
    spec = importlib.util.spec_from_file_location("bench_scale", BENCH_SCALE)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    with Engine(settings, "default") as engine:
        bench.fill_documents(engine, n)


def test_eight_thousand_documents_are_listed_and_counted(settings, indexed_window):
    fill(settings)
    win = indexed_window(settings)
    try:
        table = win.index_panel.documents
        assert table.documents.rowCount() == N and len(set(table.documents.row_of)) == N
        assert table.counts() == {"done": 6000, "pending": 1920, "failed": 80}
        assert table.searchable() == 7920
        assert "8000 documents: 7920 searchable, 6000 fully indexed, 80 failed" in win.status.text()
        table.sortByColumn(0, Qt.SortOrder.DescendingOrder)
        assert table.rows()[0][0] == "note-07999.txt" and table.rows()[-1][0] == "note-00000.txt"
        assert table.status_of("/archive/00/note-00004.txt") == ("pending", "searchable")
    finally:
        win.close()


def test_a_document_arriving_while_sorted_takes_its_place(qtbot):
    from k2desk.gui.widgets.documents import DocumentModel

    model = DocumentModel()
    names = [f"/docs/{w}.txt" for w in ("kestrel", "Alder", "maple", "birch", "Juniper", "cedar")]
    for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
        model.clear()
        model.sort(0, order)
        for key in names + ["/docs/maple.txt"]:  # the last one updates a row in place
            model.set_status(key, "pending", "waiting")
        shown = [e.key for e in model.entries]
        assert shown == sorted(set(names), key=str.casefold, reverse=order == Qt.SortOrder.DescendingOrder)
        assert all(model.row_of[k] == i for i, k in enumerate(shown))
