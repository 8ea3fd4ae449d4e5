"""The history store: answers kept with their sources, newest first, removable."""

from k2desk.history_markdown import history_markdown
from k2desk.methods.base import Answer, LLMUsage, Source
from k2desk.store.history import HistoryStore
from k2desk.verdict import Signals, Verdict


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
                                                                                  "completion_tokens": 12, "reused_tokens": 0}
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


def test_an_answers_verdict_is_kept_with_it(backend):
    """Declined or cautioned, and why, come back with the answer (the app's reopened conversation
    greys a declined turn, the Markdown says why); a row kept before verdicts were kept is answered."""
    db = backend.open()
    store = HistoryStore(db)
    no = answer("Who painted the dome?", "Not in your documents: they do not say this.")
    no.verdict = Verdict("declined", "the passages do not mention painted", signals=Signals(coverage=0.2),
                         calibration="qwen2.5-coder-1.5b")
    maybe = answer("Who leads it?", "Anneli Korhonen")
    maybe.verdict = Verdict("cautioned", "the check and the words' support are lukewarm", "read the passage",
                            Signals(support=0.6, verify=0.1))
    ids = store.add(no), store.add(maybe), store.add(answer("What was the revenue?", "41 million euros"))
    got = [store.get(i).verdict for i in ids]
    assert [v.outcome for v in got] == ["declined", "cautioned", "answered"]
    assert got[0].reason == "the passages do not mention painted" and got[0].signals.coverage == 0.2
    assert got[0].calibration == "qwen2.5-coder-1.5b" and got[1].caution == "read the passage"
    md = history_markdown(store.list(), "work")
    assert "*Declined: the passages do not mention painted.*" in md and "*Cautioned: the check and" in md
    db.execute("UPDATE history SET verdict = '{}' WHERE id = ?", (ids[0],))  # as a row kept before version 11
    assert store.get(ids[0]).verdict == Verdict()
    db.close()
