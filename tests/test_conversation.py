"""Conversations on the README's sample documents with the default settings and models (issue 54):
each follow-up answered as its standalone form is, the thread keeping its documents, a request's
own history read as a stored thread is, and a thread whose documents were removed refused in one
line."""

from pathlib import Path

import pytest

from k2desk.conversation import Turn, Understanding
from k2desk.errors import UsageError
from k2desk.eval.metrics import strict_match

SAMPLE = Path(__file__).resolve().parents[1] / "resources" / "sample"


@pytest.fixture(scope="module")
def engine(tmp_path_factory, indexed_with_defaults):
    with indexed_with_defaults(tmp_path_factory.mktemp("conversation"), SAMPLE, "sample") as e:
        yield e


@pytest.mark.slow
@pytest.mark.parametrize("first, follow_up, gold, topic", [
    ("Who leads the Lindenfeld Solar Cooperative?", "And who is its treasurer?", "Jonas Petrowski", "Solar Cooperative"),
    ("When did the Hohenstein observatory open?", "What is its main telescope?", "60-centimetre reflecting telescope",
     "Hohenstein"),
    ("How long does the ferry crossing take?", "How many cars can it carry?", "12", "ferry"),
])
def test_a_follow_up_is_answered_from_its_thread(engine, first, follow_up, gold, topic):
    opened = engine.converse(first)
    thread = opened.conversation["thread"]
    assert opened.conversation["how"] == "first" and opened.understood_as == ""
    answer = engine.converse(follow_up, thread=thread)
    assert strict_match(answer.answer, gold), (answer.question, answer.answer)
    assert topic in answer.understood_as and answer.conversation["thread"] == thread
    assert answer.to_json()["understood_as"] == answer.question and answer.to_json()["message"] == follow_up
    turns = engine.history.turns(thread)
    assert [t.asked for t in turns] == [first, follow_up] and turns[1].question == answer.question
    # the same two turns as plain data (a request carrying its own history) read the same way
    again = engine.converse(follow_up, turns=[Turn(first, answer=opened.answer)], remember=False)
    assert again.question == answer.question and "thread" not in again.conversation


@pytest.mark.slow
def test_a_thread_keeps_its_documents_until_widened_and_says_when_they_are_gone(engine):
    ferry = next(k for k in (d.key for d in engine.documents()) if k.endswith("river-ferry.txt"))
    first = engine.converse("Who was its longest-serving captain?", documents=[ferry])
    thread = first.conversation["thread"]
    assert first.scope == [ferry] and engine.threads.get(thread).scope == [ferry]
    follow = engine.converse("When did he retire?", thread=thread)
    assert follow.scope == [ferry] and "2019" in follow.answer
    engine.remove(ferry)
    with pytest.raises(UsageError, match=r"this conversation asks about 1 document\(s\) no longer in collection 'sample'"):
        engine.converse("And who runs the ferry?", thread=thread)
    widened = engine.converse("Who leads the Lindenfeld Solar Cooperative?", thread=thread, documents=[])
    assert widened.scope == [] and engine.threads.get(thread).scope == []
    assert len(engine.history.turns(thread)) == 3  # the refused message left nothing behind


@pytest.mark.slow
def test_a_question_about_a_cited_document_is_asked_of_it_alone(engine, monkeypatch):
    """"In that article, …" read as naming a source an earlier answer cited: that question is asked
    of the document alone, and the thread's own scope is left as it was."""
    import k2desk.engine as engine_module

    solar = next(d for d in engine.documents() if d.key.endswith("solar-cooperative.md"))
    assert solar.title
    message = "What does that article say about the members?"
    understood = Understanding(message, f"What does {solar.title} say about the members?", "llm", cited=solar.title)
    monkeypatch.setattr(engine_module, "understand", lambda *a, **k: understood)
    answer = engine.converse(message, turns=[Turn("Who leads the Lindenfeld Solar Cooperative?", answer="Henrike Albers",
                                                  sources=(solar.title,))])
    assert answer.scope == [solar.key] and answer.conversation["scope"] == "cited"
    assert answer.cited_note == f"Asked of “{solar.title}” alone, the document an earlier answer cited"
    assert engine.threads.get(answer.conversation["thread"]).scope == []
    assert engine._cited("No such title") == [] and engine._cited("") == []


@pytest.mark.slow
def test_a_follow_up_still_pointing_at_it_is_asked_of_the_last_answers_documents(engine, monkeypatch):
    """A follow-up asked as typed with "it" still open (the model's rewrite refused) is asked of
    the documents the last answer came from, by their keys where the turn has them, else by the
    titles it cited; a question that points at nothing is asked of the whole collection."""
    import k2desk.engine as engine_module

    engine.index([SAMPLE])  # (an earlier test of this module removes the ferry's document)
    ferry = next(d for d in engine.documents() if d.key.endswith("river-ferry.txt"))
    message = "How many cars can it carry?"
    typed = Understanding(message, message, "typed", ["it"], unresolved=["it"])
    monkeypatch.setattr(engine_module, "understand", lambda *a, **k: typed)
    before = Turn("How long does the ferry crossing take?", answer="seven minutes", documents=(ferry.key,))
    answer = engine.converse(message, turns=[before])
    assert answer.scope == [ferry.key] and answer.conversation["scope"] == "last answer"
    assert strict_match(answer.answer, "12"), answer.answer
    assert answer.cited_note == f"Asked of the documents the last answer came from (“{ferry.title or 'river-ferry.txt'}”): " \
        "the question still says “it”"
    assert engine.threads.get(answer.conversation["thread"]).scope == []  # the thread is not narrowed
    # plain data with titles only (a request carrying its history): the titles name the documents
    by_title = Turn(before.message, answer=before.answer, sources=(ferry.title or ferry.key,))
    assert engine._last_answers([by_title]) == [ferry.key]
    # nothing left open: the whole collection
    monkeypatch.setattr(engine_module, "understand", lambda *a, **k: Understanding(message, message, "unchanged"))
    assert engine.converse(message, turns=[before], remember=False).scope == []


@pytest.mark.slow
def test_a_source_named_by_its_number_is_asked_of_alone(engine):
    """"What does [1] say …?" in a stored thread: the document the last answer listed first, asked
    of alone and named in the note; the thread's scope is left as it was."""
    engine.index([SAMPLE])
    first = engine.converse("How long does the ferry crossing take?")
    listed = first.sources[0]
    answer = engine.converse("What does [1] say about how many cars it carries?", thread=first.conversation["thread"])
    assert answer.scope == [listed.document] and answer.conversation["scope"] == "cited"
    name = listed.title or Path(listed.document).name
    assert answer.conversation["standalone"].startswith(f"What does “{name}” say")
    assert answer.cited_note == f"Asked of “{engine._named(listed.document)}” alone, the document an earlier answer cited"
    assert engine.threads.get(answer.conversation["thread"]).scope == []
