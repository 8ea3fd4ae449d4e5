"""The engine end to end on the mixed fixture folder: real readers, SQLite, sqlite-vec, ONNX."""

from pathlib import Path

import pytest

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.errors import UsageError
from k2desk.progress import CancelToken

FIXTURES = Path(__file__).parent / "fixtures"
BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench" / "multihop-rag-dev"
GOOD = {"lighthouse.txt", "recipes.md", "report.pdf", "minutes.docx", "garden.html", "chess_club.txt"}
BAD = {"corrupt.pdf", "binary.txt", "empty.txt"}


@pytest.fixture
def engine(tmp_path, models_dir):
    settings = Settings(home=tmp_path / "home", models_dir=models_dir, llm="smollm2-135m", threads=2, build_profile="naive")
    with Engine(settings, "test") as e:
        yield e


def counts(engine):
    q = lambda sql: engine.db.one(sql)[0]  # noqa: E731
    return {
        "chunks": q("SELECT count(*) FROM chunks"),
        "vectors": q("SELECT count(*) FROM vec_chunks") if engine.db.table_exists("vec_chunks") else 0,
        "fts": q("SELECT count(*) FROM sparse_text"),
        "stages": q("SELECT count(*) FROM document_stages"),
        "documents": q("SELECT count(*) FROM documents"),
    }


def test_mixed_folder_indexes_the_good_files_and_reports_the_bad(engine, folder):
    report = engine.index([folder])
    assert {Path(k).name for k in report.added} == GOOD
    assert {Path(k).name for k, _ in report.failed} == BAD
    reasons = dict((Path(k).name, r) for k, r in report.failed)
    assert "cannot read PDF" in reasons["corrupt.pdf"]
    assert "binary" in reasons["binary.txt"] and "empty" in reasons["empty.txt"]
    assert [Path(p).name for p, _ in report.unsupported] == ["photo.bin"]
    status = {Path(d.key).name: d.status for d in engine.documents()}
    assert {n for n, s in status.items() if s == "done"} == GOOD
    assert {n for n, s in status.items() if s == "failed"} == BAD
    c = counts(engine)
    assert c["chunks"] == c["vectors"] == c["fts"] >= len(GOOD)


def test_rerun_skips_unchanged_and_edit_reindexes_only_that_file(engine, folder):
    engine.index([folder])
    before = {d.key: d for d in engine.documents()}
    again = engine.index([folder])
    assert sorted(Path(k).name for k in again.skipped) == sorted(GOOD)
    assert again.added == [] and again.updated == [] and again.processed == 0 and again.chunks == 0

    (folder / "lighthouse.txt").write_text("The Harwick Point lamp now reaches 30 nautical miles.", encoding="utf-8")
    edited = engine.index([folder])
    assert [Path(k).name for k in edited.updated] == ["lighthouse.txt"]
    assert edited.processed == 1 and edited.added == []
    after = {d.key: d for d in engine.documents()}
    changed = [k for k in after if after[k].content_hash != before[k].content_hash]
    assert [Path(k).name for k in changed] == ["lighthouse.txt"]
    hits = engine.docs.chunks_of(after[changed[0]].id, "text", "vec")
    assert len(hits) == 1 and "30 nautical miles" in hits[0].text
    c = counts(engine)
    assert c["chunks"] == c["vectors"] == c["fts"]


def test_remove_leaves_no_orphans(engine, folder):
    engine.index([folder])
    doc = next(d for d in engine.documents() if d.key.endswith("report.pdf"))
    removed = engine.remove(folder / "report.pdf")
    assert removed == [doc.key]
    for table in ("chunks", "document_stages", "entity_mentions", "relation_mentions"):
        assert engine.db.one(f"SELECT count(*) FROM {table} WHERE document_id = ?", (doc.id,))[0] == 0
    c = counts(engine)
    assert c["chunks"] == c["vectors"] == c["fts"]
    # the vector and FTS rows are exactly those of the remaining chunks
    chunk_ids = {r[0] for r in engine.db.all("SELECT id FROM chunks")}
    assert {r[0] for r in engine.db.all("SELECT id FROM vec_chunks")} == chunk_ids
    assert {r[0] for r in engine.db.all("SELECT rowid FROM sparse_text")} == chunk_ids
    # a whole folder
    assert len(engine.remove(folder)) == len(GOOD) - 1 + len(BAD)
    assert counts(engine) == {"chunks": 0, "vectors": 0, "fts": 0, "stages": 0, "documents": 0}


def test_cancel_then_resume_indexes_every_document_once(engine, folder):
    cancel = CancelToken()
    seen = []

    def progress(stage, done, total):
        seen.append((stage, done, total))
        if stage == "embed" and done == 2:
            cancel.cancel()

    first = engine.index([folder], progress=progress, cancel=cancel)
    assert first.cancelled
    done_now = [d for d in engine.documents() if d.status == "done"]
    assert len(done_now) < len(GOOD)
    assert {d.status for d in engine.documents() if Path(d.key).name in GOOD} <= {"pending", "done"}
    resumed = engine.resume()
    assert not resumed.cancelled
    assert {Path(d.key).name for d in engine.documents() if d.status == "done"} == GOOD
    per_doc = engine.db.all("SELECT document_id, seq, count(*) FROM chunks GROUP BY document_id, source, profile, seq HAVING count(*) > 1")
    assert per_doc == []
    c = counts(engine)
    assert c["chunks"] == c["vectors"] == c["fts"]


def test_documents_answer_as_soon_as_their_text_is_indexed(tmp_path, models_dir, folder, tiny_llm_path):
    """Progressive availability: the raw-text stage runs first for every document, so a run
    stopped before the summaries and the graph already answers; K²RAG says what it lacked."""
    settings = Settings(home=tmp_path / "home", models_dir=models_dir, llm="smollm2-135m", threads=2, gpu_layers=0)
    with Engine(settings, "progressive") as engine:
        cancel = CancelToken()
        report = engine.index([folder], progress=lambda stage, *_: stage == "summarize" and cancel.cancel(), cancel=cancel)
        assert report.cancelled
        n = len(GOOD)
        assert engine.coverage("hybrid") == {"text": (n, n)}
        assert engine.coverage("k2rag") == {"text": (n, n), "summary_index": (0, n), "graph_summary": (0, n)}
        question = "Who keeps the Harwick Point lighthouse?"
        hybrid = engine.ask(question, method="hybrid")
        assert Path(hybrid.sources[0].document).name == "lighthouse.txt" and "coverage" not in hybrid.trace
        k2rag = engine.ask(question, method="k2rag")
        assert k2rag.answer and Path(k2rag.sources[0].document).name == "lighthouse.txt"
        assert k2rag.trace["coverage"]["note"] == (f"Answered from what is indexed so far: the summaries cover 0 of {n} "
                                                   f"documents, the graph covers 0 of {n} documents.")
        with pytest.raises(UsageError, match="indexing has not built it for any document yet"):
            engine.ask(question, method="kg")
        assert not engine.resume().cancelled
        assert engine.coverage_note("k2rag") == "" and "coverage" not in engine.ask(question, method="k2rag").trace


def test_a_document_whose_graph_failed_stays_searchable(tmp_path, models_dir, folder, tiny_llm_path, monkeypatch):
    from k2desk.errors import ModelError
    from k2desk.graph import nlp

    def broken(*args, **kwargs):
        raise ModelError("the fast graph extractor needs spaCy")

    monkeypatch.setattr(nlp.NlpExtractor, "extract", broken)
    settings = Settings(home=tmp_path / "home", models_dir=models_dir, llm="smollm2-135m", threads=2, gpu_layers=0)
    with Engine(settings, "graphless") as engine:
        report = engine.index([folder])
        n = len(GOOD)
        assert sum(reason.startswith("graph of summaries: ") for _, reason in report.failed) == n
        assert engine.coverage("k2rag") == {"text": (n, n), "summary_index": (n, n), "graph_summary": (0, n)}
        answer = engine.ask("When was the Harwick Point lighthouse built?", method="hybrid")
        assert Path(answer.sources[0].document).name == "lighthouse.txt"


def test_retrieval_methods_find_the_right_document(engine, folder):
    engine.index([folder])
    from k2desk.methods.retrieval import Retriever

    r = Retriever(engine.db, engine.embedder, "text")
    top = lambda q, lam: Path(r.search(q, k=3, lam=lam)[0].chunk.document).name  # noqa: E731
    assert top("How far is the lighthouse lamp visible at sea?", 1.0) == "lighthouse.txt"
    assert top("saffron proof minutes", 0.0) == "recipes.md"
    assert top("Who is the chief executive of Quillfeather Robotics?", 0.8) == "report.pdf"
    for hit in r.search("orchard valley water board budget", k=5, lam=0.8):
        assert hit.score == pytest.approx(0.8 * hit.dense + 0.2 * hit.sparse)
    scores = [h.score for h in r.search("chess club", k=10, lam=0.8)]
    assert scores == sorted(scores, reverse=True)


def test_a_hybrid_search_embeds_the_question_while_bm25_runs_with_the_same_hits(engine, folder, monkeypatch):
    import threading

    import k2desk.methods.retrieval as retrieval

    engine.index([folder])
    r = retrieval.Retriever(engine.db, engine.embedder, "text")
    threads = []
    embed_one = engine.embedder.embed_one
    monkeypatch.setattr(engine.embedder, "embed_one", lambda q: threads.append(threading.current_thread()) or embed_one(q))
    question = "Who is the chief executive of Quillfeather Robotics?"
    together = [(h.chunk.id, h.score) for h in r.search(question, k=5, lam=0.8)]
    r.search(question, k=5, lam=1.0)  # semantic: nothing to overlap with
    assert threads[0] is not threading.current_thread() and threads[1] is threading.current_thread()
    original = retrieval._embedding
    monkeypatch.setattr(retrieval, "_embedding", lambda e, q, alongside: original(e, q, alongside=False))
    assert [(h.chunk.id, h.score) for h in r.search(question, k=5, lam=0.8)] == together


def test_ask_hybrid_returns_sources_from_the_right_document(engine, folder):
    engine.index([folder])
    answer = engine.ask("When was the Harwick Point lighthouse built?", method="hybrid")
    assert answer.answer
    assert Path(answer.sources[0].document).name == "lighthouse.txt"
    assert 0 < len(answer.sources) <= 10
    assert answer.llm.calls == 1 and answer.llm.prompt_tokens > 50
    assert answer.timings["total"] >= answer.timings["retrieve"]
    payload = answer.to_json()
    assert set(payload) == {"question", "method", "answer", "outcome", "verdict", "sources", "trace", "timings", "llm",
                            "models"}
    assert set(payload["sources"][0]) == {"document", "chunk_id", "score", "text"}


def test_ask_errors_are_usage_errors(engine, folder):
    with pytest.raises(UsageError, match="no searchable document yet; run `k2desk index PATH` first"):
        engine.ask("anything?", method="hybrid")
    engine.index([folder])
    with pytest.raises(UsageError, match="unknown method"):
        engine.ask("anything?", method="nope")
    with pytest.raises(UsageError, match="empty"):
        engine.ask("   ", method="hybrid")
    for method in ("kg", "lightrag-local", "coe", "mindmap"):  # profile naive builds no graph
        with pytest.raises(UsageError, match=f"method '{method}' is not available on collection 'test': it has no knowledge graph"):
            engine.ask("anything?", method=method)


@pytest.mark.skipif(not (BENCH / "corpus.jsonl").is_file(), reason="shared bench data not present")
def test_index_benchmark_corpus(engine):
    report = engine.index([BENCH / "corpus.jsonl"])
    assert len(report.added) == 40 and report.failed == []
    docs = engine.documents()
    assert len(docs) == 40 and all(d.status == "done" for d in docs)
    assert all(d.meta.get("source") and d.meta.get("published_at") for d in docs)
    # questions name outlets and dates: a chunk of any document is found by its outlet + date
    from k2desk.methods.retrieval import Retriever

    hits = Retriever(engine.db, engine.embedder, "text").search("Fortune October 4, 2023", k=5, lam=0.0)
    assert any(h.chunk.meta.get("source") == "Fortune" for h in hits)


def test_the_claim_checker_is_the_larger_model_only_when_prepared_and_the_default_answers(tmp_path, models_dir):
    from k2desk.config import CHECK_LLM, DEFAULT_LLM, TEST_LLM
    from k2desk.engine import check_llm_name

    assert (models_dir / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf").is_file()  # setup prepares it
    assert check_llm_name(Settings(home=tmp_path, models_dir=models_dir)) == CHECK_LLM
    assert check_llm_name(Settings(home=tmp_path, models_dir=tmp_path / "empty")) == DEFAULT_LLM  # not prepared
    assert check_llm_name(Settings(home=tmp_path, models_dir=models_dir, llm=TEST_LLM)) == TEST_LLM  # the user's model
    assert check_llm_name(Settings(home=tmp_path, models_dir=models_dir, check_llm="")) == DEFAULT_LLM
    assert check_llm_name(Settings(home=tmp_path, models_dir=models_dir, check_llm="/m/judge.gguf")) == "/m/judge.gguf"


def test_the_reader_is_the_larger_model_like_the_checker_and_verifies_only_as_measured(tmp_path, models_dir):
    from k2desk.config import CHECK_LLM, DEFAULT_LLM, TEST_LLM
    from k2desk.engine import reader_llm_name, verify_answers

    default = Settings(home=tmp_path, models_dir=models_dir)
    assert reader_llm_name(default) == CHECK_LLM and verify_answers(default)
    for other in (Settings(home=tmp_path, models_dir=tmp_path / "empty"), Settings(home=tmp_path, models_dir=models_dir, reader_llm="")):
        assert reader_llm_name(other) == DEFAULT_LLM and not verify_answers(other)  # the 0.5B: not measured as a checker
    mine = Settings(home=tmp_path, models_dir=models_dir, llm=TEST_LLM)
    assert reader_llm_name(mine) == TEST_LLM and not verify_answers(mine)
    assert verify_answers(Settings(home=tmp_path, models_dir=models_dir, llm=TEST_LLM, verify_answers="on"))
    assert not verify_answers(Settings(home=tmp_path, models_dir=models_dir, verify_answers="off"))
    assert not verify_answers(Settings(home=tmp_path, models_dir=models_dir, llm_url="http://127.0.0.1:8080"))
    with pytest.raises(UsageError, match="verify_answers must be auto, on or off"):
        Settings(home=tmp_path, models_dir=models_dir, verify_answers="yes")


def _reads(monkeypatch) -> list[str]:
    """What the stores read into the process from now on (vector tables, sparse statistics)."""
    from k2desk.store import sparse, vectors

    reads: list[str] = []
    blocks, of = vectors._blocks, sparse.Statistics.of
    monkeypatch.setattr(vectors, "_blocks", lambda db, sql, params, *a: reads.append(f"{sql.split()[4]}/{params[0]}")
                        or blocks(db, sql, params, *a))
    monkeypatch.setattr(sparse.Statistics, "of", classmethod(lambda cls, *a: reads.append("statistics") or of(*a)))
    return reads


def test_warm_reads_what_the_methods_first_question_would_and_the_question_reads_nothing_more(engine, folder, monkeypatch):
    from k2desk.errors import Cancelled

    assert engine.warm("hybrid") == []  # nothing searchable yet
    engine.index([folder])
    reads = _reads(monkeypatch)
    cancelled = CancelToken()
    cancelled.cancel()
    with pytest.raises(Cancelled):
        engine.warm("hybrid", cancelled)
    assert reads == []
    assert engine.warm("k2rag") == ["chunks/text", "sparse/text"]  # the naive profile: no summaries, no graph
    assert reads == ["vec_chunks/text", "statistics"]
    answer = engine.ask("When was the Harwick Point lighthouse built?", method="hybrid")
    assert Path(answer.sources[0].document).name == "lighthouse.txt"
    assert reads == ["vec_chunks/text", "statistics"]  # the question found both in memory
    assert engine.warm("hybrid") == ["chunks/text", "sparse/text"] and len(reads) == 2


def test_warm_reads_each_methods_stores_on_a_collection_with_summaries_and_a_graph(tmp_path, models_dir, folder):
    settings = Settings(home=tmp_path / "home", models_dir=models_dir, llm="smollm2-135m", threads=2, gpu_layers=0)
    with Engine(settings, "full") as engine:
        engine.index([folder])
        assert engine.warm("hybrid") == ["chunks/text", "sparse/text"]
        assert engine.warm("k2rag-paper") == ["chunks/summary", "sparse/summary", "entities/summary", "relations/summary"]
        assert engine.warm("kg") == ["entities/summary", "relations/summary"]  # the summaries' graph: no raw-text one
        with pytest.raises(UsageError, match="unknown method"):
            engine.warm("nonsense")
