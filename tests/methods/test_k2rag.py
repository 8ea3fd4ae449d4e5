"""K²RAG end to end on the fixture folder with the tiny model: summaries, the summaries' graph,
and every step of Algorithm 2 visible in the trace."""

import re
import shutil
from pathlib import Path

import pytest

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.indexing.summary import summarize_long, summary_length
from k2desk.methods.retrieval import chunk_header
from k2desk.progress import CancelToken
from k2desk.runtime.summarizer import ExtractiveSummarizer
from k2desk.verdict import DEFAULTS, keeps

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture(scope="module")
def engine(tmp_path_factory, models_dir):
    home = tmp_path_factory.mktemp("k2rag")
    docs = home / "docs"
    docs.mkdir()
    for name in ("lighthouse.txt", "recipes.md"):
        shutil.copy(FIXTURES / "mixed" / name, docs / name)
    settings = Settings(home=home, models_dir=models_dir, llm="smollm2-135m", threads=2, build_profile="default",
                        verify_answers="on")  # the tiny model checks its own answers: the flow, not the judgement
    with Engine(settings, "k2") as e:
        report = e.index([docs])
        assert report.failed == [] and len(report.added) == 2
        yield e


def test_index_builds_summaries_and_the_summary_stores(engine):
    for d in engine.documents():
        assert d.status == "done"
        assert {"text", "summary", "summary_index", "graph_summary"} <= set(d.stages)
        summary = engine.db.one("SELECT summary FROM documents WHERE id = ?", (d.id,))[0]
        assert summary and summary.strip()
    assert engine.db.one("SELECT count(*) FROM vec_chunks WHERE source = 'summary'")[0] >= 2
    assert engine.db.one("SELECT count(*) FROM sparse_summary")[0] >= 2
    assert engine.db.one("SELECT count(*) FROM chunks WHERE source = 'summary' AND profile = 'graph'")[0] >= 2


def test_reindex_reuses_summaries(engine):
    report = engine.index([Path(engine.documents()[0].key).parent])
    assert report.processed == 0 and len(report.skipped) == 2


def _kept(reader_trace):
    """Whether the reader kept its short answer: its words' support and the model's check of it."""
    return keeps(reader_trace["answer_support"]["score"], reader_trace["verify"], False, DEFAULTS)


def test_k2rag_reads_the_questions_passages_in_one_call(engine):
    answer = engine.ask("Who keeps the Harwick Point lighthouse?", method="k2rag")
    t = answer.trace
    first_id = engine.method("k2rag").retrieve("Who keeps the Harwick Point lighthouse?")[0].chunk_id
    first = engine.docs.chunks([first_id])[first_id]
    assert Path(first.document).name == "lighthouse.txt"
    # the question's best sentences, under their document's line; no graph results (measured to earn nothing)
    assert t["final_context"].startswith(chunk_header(first.title, first.meta) + "\n")
    assert "Entities:" not in t["final_context"] and "kg_results" not in t
    assert "sub_questions" not in t and "kg_summary" not in t
    assert t["reader"]["kind"] == "factoid" and (t["reader"]["form"] == "open") == _kept(t["reader"])
    checked = "answer_support" in t["reader"]  # a short answer the words could be checked on
    assert ("verify" in t["reader"]) == checked and answer.llm.calls == 1 + checked  # the answer, and its check
    assert answer.sources[0].chunk_id == first_id


def test_k2rag_steps_reads_the_questions_best_passages_first(engine):
    answer = engine.ask("Who keeps the Harwick Point lighthouse?", method="k2rag-steps")
    t = answer.trace
    assert t["retrieval_source"] == "text"  # sub-questions retrieve raw-text evidence passages
    assert t["final_passages"] and Path(t["final_passages"][0]["document"]).name == "lighthouse.txt"
    first = engine.docs.chunks([t["final_passages"][0]["chunk_id"]])[t["final_passages"][0]["chunk_id"]]
    # the reader's best sentences of the passages come first (under their document's line), then
    # the KG summary and the summarized sub-answers
    assert t["final_context"].startswith(chunk_header(first.title, first.meta) + "\n")
    assert "keeper" in t["final_context"].split("\n\n")[0].lower()
    # the tiny model's answer was read, then kept or declined by its support in the passages
    assert t["reader"]["kind"] == "factoid" and "answer_support" in t["reader"]
    assert (t["reader"]["form"] == "open") == _kept(t["reader"])
    if t["kg_summary"]:
        assert t["final_context"].index(t["kg_summary"][:40]) > t["final_context"].index(first.title)
    assert all(s["answer"] and "\n" not in s["answer"] for s in t["sub_questions"])  # sub-answers: short lines
    assert [s.chunk_id for s in answer.sources[: len(t["final_passages"])]] == [p["chunk_id"] for p in t["final_passages"]]
    assert [s.chunk_id for s in engine.method("k2rag-steps").retrieve("Who keeps the Harwick Point lighthouse?")][:1] == \
        [t["final_passages"][0]["chunk_id"]]


def test_k2rag_paper_trace_shows_every_step(engine):
    answer = engine.ask("Who keeps the Harwick Point lighthouse?", method="k2rag-paper")
    t = answer.trace
    assert answer.answer and answer.method == "k2rag-paper"
    assert t["retrieval_source"] == "summary" and t["final_passages"] == []
    for key in ("kg_results", "kg_summary", "sub_questions", "sub_answers_summary", "final_context"):
        assert key in t
    assert len(t["sub_questions"]) >= 1
    for sq in t["sub_questions"]:
        assert sq["question"] and sq["sources"] and "answer" in sq
    assert answer.sources and answer.llm.calls >= 3
    for step in ("kg_search", "sub_questions", "sub_answers", "final_answer"):
        assert step in answer.timings
    assert any(Path(s.document).name == "lighthouse.txt" for s in answer.sources)


def test_kg_baseline_on_the_same_collection(engine):
    answer = engine.ask("How long is the Saffron Crown bread proofed?", method="kg")
    assert answer.method == "kg" and "kg_results" in answer.trace


def test_long_documents_are_summarized_section_by_section(embedder):
    text = " ".join(f"Fact {i}: the harbour of Port {i} handles {i * 7} ships a week." for i in range(400))
    calls = []

    class Recording(ExtractiveSummarizer):
        def summarize(self, text, max_tokens=200, cancel=None, usage=None):
            calls.append((text, max_tokens))
            return super().summarize(text, max_tokens, cancel, usage)

    out = summarize_long(Recording(), text, embedder, CancelToken())
    sections = out.split("\n\n")
    assert len(calls) >= 3 and len(sections) == len(calls)  # one summary per section, no summary of summaries
    for (section, budget), summary in zip(calls, sections):
        assert all(sentence.strip(" .") in section for sentence in summary.split(". ") if sentence.strip(" ."))
        assert budget == summary_length(embedder.count_tokens(section))
    # the summary grows with the document: an eighth of it, not one paragraph
    assert len(out.split()) <= summary_length(embedder.count_tokens(text)) and embedder.count_tokens(out) > 256
    assert min(int(n) for n in re.findall(r"Port (\d+)", sections[-1])) > 300  # the last section is seen too


def test_k2rag_answers_a_yes_no_question_from_its_claims(engine):
    question = "Does the lighthouse have a new lens, while the recipe says the bread is proofed overnight?"
    answer = engine.ask(question, method="k2rag")
    t = answer.trace
    assert answer.answer in ("Yes.", "No.") and t["reader"]["form"] == "yes_no"
    assert [c["claim"] for c in t["reader"]["claims"]] == ["The lighthouse have a new lens",
                                                           "The recipe says the bread is proofed overnight"]
    assert answer.llm.calls == 4 and answer.llm.completion_tokens == 0  # two scores per claim, no generation
    assert {Path(s.document).name for s in answer.sources} == {"lighthouse.txt", "recipes.md"}
    assert "claims" in answer.timings and "kg_search" not in answer.timings
