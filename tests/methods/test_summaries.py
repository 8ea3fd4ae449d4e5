"""Summaries on request and questions about chosen documents (methods/summaries.py, the
retriever's scope), on the README's sample documents in a real collection; a summary request
needs no model."""

from pathlib import Path

import pytest

from k2desk.errors import UsageError
from k2desk.history_markdown import entry_markdown
from k2desk.methods.summaries import documents_named, overview, target_words
from k2desk.prompts import COLLECTION_SUMMARY_HEAD


@pytest.fixture(scope="module")
def engine(sample_engine):
    return sample_engine


def test_a_document_is_found_by_the_words_of_its_name(engine):
    docs = engine.documents()
    assert target_words("the solar cooperative document") == ["solar", "cooperative"]
    assert [Path(d.key).name for d in documents_named(docs, "the solar cooperative document")] == ["solar-cooperative.md"]
    assert [Path(d.key).name for d in documents_named(docs, "Hohenstein observatory page")] == ["observatory.html"]
    assert documents_named(docs, "the lighthouse report") == []


@pytest.mark.parametrize("method", ["evidence", "hybrid", "k2rag"])
def test_a_summary_request_is_answered_from_the_documents_summary_without_the_model(engine, method):
    out = engine.ask("Can you summarize the observatory page?", method=method)
    assert out.answer.startswith("Hohenstein Public Observatory: ") and "1959" in out.answer, out.answer
    assert out.trace["reader"]["form"] == "summary" and out.llm.calls == 0
    assert {Path(s.document).name for s in out.sources} == {"observatory.html"}


def test_the_collection_and_a_scope_are_summarized_document_by_document(engine):
    out = engine.ask("What is in this collection?", method="evidence")
    assert out.answer.splitlines()[0] == COLLECTION_SUMMARY_HEAD.format(n=3)
    assert len([line for line in out.answer.splitlines() if line.startswith("• ")]) == 3
    scoped = engine.ask("Summarize these documents.", method="evidence",
                        documents=[engine.folder / "river-ferry.txt"])
    assert scoped.answer.startswith("river-ferry.txt: The Kessing River Ferry") and scoped.scope == [str(engine.folder / "river-ferry.txt")]


def test_a_request_naming_no_document_says_so(engine):
    out = engine.ask("Summarize the lighthouse report.", method="evidence")
    assert out.answer == 'Not in your documents: no document\'s name matches "the lighthouse report".'
    assert out.sources == [] and out.llm.calls == 0


def test_a_scoped_question_reads_only_its_documents_and_is_remembered_with_them(engine):
    retriever = engine.method("evidence", scope=frozenset({engine.document(str(engine.folder / "observatory.html")).id})) \
        .ctx.retriever("text")
    hits = retriever.evidence_search("Who leads the Lindenfeld Solar Cooperative?", k=10)
    assert hits and {Path(h.chunk.document).name for h in hits} == {"observatory.html"}
    hits = retriever.search("Who leads the Lindenfeld Solar Cooperative?", k=10)
    assert hits and {Path(h.chunk.document).name for h in hits} == {"observatory.html"}
    out = engine.ask("Summarize it.", method="evidence", documents=[engine.folder / "observatory.html"], remember=True)
    entry = engine.history.list()[0]
    assert entry.scope == [str(engine.folder / "observatory.html")] and out.answer == entry.answer
    assert "*Asked about: `observatory.html`*" in entry_markdown(entry)


def test_a_scope_that_names_no_document_is_a_usage_error(engine):
    with pytest.raises(UsageError, match="no document of collection 'sample' is"):
        engine.ask("When did it open?", method="evidence", documents=[engine.folder / "nothing.txt"])


def test_a_long_summary_is_shown_as_its_sections_first_sentences():
    sections = [" ".join(f"Section {i} sentence {j} says something about topic {i}." for j in range(30)) for i in range(6)]
    shown = overview("\n\n".join(sections), words=120)
    assert 100 <= len(shown.split()) <= 140
    assert all(f"Section {i} sentence 0 says" in shown for i in range(6))  # every section is seen
    assert shown.index("Section 0 sentence 1") < shown.index("Section 1 sentence 0")  # in document order
    assert overview("Short. Summary.") == "Short. Summary."
