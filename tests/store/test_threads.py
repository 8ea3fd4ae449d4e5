"""Conversations kept in a collection (store/threads.py): a thread's turns are history rows, on
both backends; removing a thread removes its turns, and clearing the history clears threads."""

from k2desk.methods.base import Answer, LLMUsage
from k2desk.store.history import HistoryStore
from k2desk.store.threads import TITLE_MAX, ThreadStore, title_of


def answer(question: str, text: str) -> Answer:
    return Answer(question, "k2rag", text, [], {}, {"total": 1.0}, LLMUsage(1, 100, 3))


def test_threads_keep_their_turns_method_and_scope(backend):
    db = backend.open()
    history, threads = HistoryStore(db), ThreadStore(db)
    alone = history.add(answer("How long is the crossing?", "seven minutes"))
    tid = threads.create("Who leads the Lindenfeld Solar Cooperative?", "k2rag", ["/docs/solar.md"])
    history.add(answer("Who leads the Lindenfeld Solar Cooperative?", "Henrike Albers"), thread_id=tid,
                message="Who leads the Lindenfeld Solar Cooperative?")
    history.add(answer("Who is the treasurer of the Lindenfeld Solar Cooperative?", "Jonas Petrowski"), thread_id=tid,
                message="And who is its treasurer?")
    turns = history.turns(tid)
    assert [t.asked for t in turns] == ["Who leads the Lindenfeld Solar Cooperative?", "And who is its treasurer?"]
    assert turns[0].message == ""  # typed as answered: not kept twice
    assert turns[1].question == "Who is the treasurer of the Lindenfeld Solar Cooperative?" and turns[1].thread_id == tid
    t = threads.get(tid)
    assert (t.title, t.method, t.scope, t.turns) == ("Who leads the Lindenfeld Solar Cooperative?", "k2rag",
                                                     ["/docs/solar.md"], 2)
    assert threads.update(tid, title="Solar  cooperative", method="hybrid", scope=[])
    t = threads.get(tid)
    assert (t.title, t.method, t.scope) == ("Solar cooperative", "hybrid", [])
    other = threads.create("x" * 200)
    assert [x.id for x in threads.list()] == [other, tid]  # the one last continued first
    assert len(threads.get(other).title) <= TITLE_MAX + 1
    assert history.get(alone).thread_id is None and len(history.list()) == 3
    assert threads.remove(tid) and threads.get(tid) is None and history.turns(tid) == []
    assert [e.id for e in history.list()] == [alone]  # the question asked alone stays
    assert not threads.remove(tid)
    history.add(answer("Who?", "Nobody"), thread_id=other)
    assert history.clear() == 2 and threads.list() == []
    db.close()


def test_a_title_is_the_first_message_on_one_line_cut_at_a_word():
    assert title_of("  Who leads\n the cooperative? ") == "Who leads the cooperative?"
    long = title_of("word " * 40)
    assert long.endswith("…") and len(long) <= TITLE_MAX + 1 and "wor…" not in long
