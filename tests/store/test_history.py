"""The history store: answers kept with their sources, newest first, removable."""

from k2desk.history_markdown import history_markdown
from k2desk.methods.base import Answer, LLMUsage, Source
from k2desk.store.history import HistoryStore


def answer(question: str, text: str, page: int = 0) -> Answer:
    source = Source("/docs/report.pdf", 3, 0.75, "Revenue  in 2023\nwas 41 million euros.", "report", 0, 40, page)
    return Answer(question, "hybrid", text, [source], {"coverage": {"note": "the graph covers 1 of 2 documents."}},
                  {"total": 2.5}, LLMUsage(1, 300, 12))


def test_history_round_trip_order_remove_and_markdown(backend):
    db = backend.open()
    store = HistoryStore(db)
    first = store.add(answer("What was the revenue?", "41 million euros", page=2), asked_at=1000.0)
    second = store.add(answer("Who leads it?", "Anneli Korhonen"), asked_at=2000.0)
    entries = store.list()
    assert [e.id for e in entries] == [second, first]  # newest first
    old = store.get(first)
    assert old.answer == "41 million euros" and old.seconds == 2.5 and old.llm == {"calls": 1, "prompt_tokens": 300,
                                                                                  "completion_tokens": 12}
    assert old.sources[0]["page"] == 2 and old.sources[0]["title"] == "report" and "page" not in store.get(second).sources[0]
    assert old.note == "the graph covers 1 of 2 documents."
    md = history_markdown(entries, "work")
    assert md.index("## What was the revenue?") < md.index("## Who leads it?")
    assert "1. `report.pdf`, page 2 (score 0.750) — /docs/report.pdf" in md
    assert "> Revenue in 2023 was 41 million euros." in md and "*the graph covers 1 of 2 documents.*" in md
    assert store.remove(first) and not store.remove(first)
    assert [e.id for e in store.list()] == [second]
    assert store.clear() == 1 and store.list() == []
    db.close()
