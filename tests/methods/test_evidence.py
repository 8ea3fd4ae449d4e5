"""The `evidence` retrieval: for several documents, BM25's first passages as they are, then one passage
per new article; for one document, BM25 and the dense ranking fused."""

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.methods.retrieval import one_document


def test_after_the_head_each_new_article_gets_a_passage(tmp_path, models_dir, embedder):
    folder = tmp_path / "docs"
    folder.mkdir()
    para = "The Brennwald tunnel tunnel drill crew logged tunnel progress in the tunnel today. "
    (folder / "a_tunnel_log.txt").write_text("\n\n".join(f"Day {i}. " + para * 6 for i in range(12)), encoding="utf-8")
    filler = "The council discussed parking, school meals, library hours and the summer fair at length. " * 12
    for name, who in (("b_council.txt", "One member"), ("c_budget.txt", "The treasurer")):
        (folder / name).write_text(filler + who + " asked about the tunnel.", encoding="utf-8")
    settings = Settings(home=tmp_path / "home", models_dir=models_dir, threads=2, build_profile="naive")
    with Engine(settings) as engine:
        engine.index([folder])
        retriever = engine.method("evidence").ctx.retriever("text")
        ranked = retriever.sparse.bm25("tunnel", 100)
        assert all(a[1] >= b[1] > 0 for a, b in zip(ranked, ranked[1:]))  # positive scores, best first
        order = [engine.docs.chunks([i])[i].document.rsplit("/", 1)[1] for i, _ in ranked]
        assert order.index("b_council.txt") >= 6 and order.index("c_budget.txt") >= 6  # BM25 alone buries them
        hits = retriever.evidence_search("tunnel", k=10)
        names = [h.chunk.document.rsplit("/", 1)[1] for h in hits]
        assert names[:4] == order[:4] == ["a_tunnel_log.txt"] * 4
        assert hits[0].score == 1.0 and all(0 < h.score <= 1.0 for h in hits)  # relative to the best passage
        assert not one_document([engine.docs.chunks([i])[i].document_id for i, _ in ranked[:10]])  # several documents
        assert sorted(names[4:6]) == ["b_council.txt", "c_budget.txt"] and len(names) == min(10, len(ranked))
        sources = engine.method("evidence").retrieve("tunnel")
        assert [s.chunk_id for s in sources] == [h.chunk.id for h in hits]


def test_a_file_kept_twice_is_read_once(tmp_path, models_dir, embedder):
    folder = tmp_path / "docs"
    (folder / "copies").mkdir(parents=True)
    report = "\n\n".join(f"Section {i}. The Brennwald tunnel crew drilled {40 + i} metres of granite this week, "
                         "the site engineer reported to the council. " * 3 for i in range(4))
    (folder / "tunnel_report.txt").write_text(report, encoding="utf-8")
    (folder / "copies" / "tunnel_report (1).txt").write_text(report, encoding="utf-8")  # the same file, kept twice
    (folder / "council.txt").write_text("The council asked the tunnel engineer about granite and the schedule. " * 4,
                                        encoding="utf-8")
    settings = Settings(home=tmp_path / "home", models_dir=models_dir, threads=2, build_profile="naive")
    with Engine(settings) as engine:
        engine.index([folder])
        retriever = engine.method("evidence").ctx.retriever("text")
        assert len({c for i, _ in retriever.sparse.bm25("tunnel granite", 100)
                    for c in [engine.docs.chunks([i])[i].text]}) < len(retriever.sparse.bm25("tunnel granite", 100))
        for hits in (retriever.evidence_search("tunnel granite", k=10), retriever.search("tunnel granite", k=10)):
            texts = [" ".join(h.chunk.text.split()) for h in hits]
            assert len(texts) == len(set(texts))  # each passage once, whichever copy it came from
            assert "council.txt" in {h.chunk.document.rsplit("/", 1)[1] for h in hits}


def test_one_document_rule():
    assert one_document([1] * 8 + [2, 3]) and one_document([4])
    assert not one_document([1] * 7 + [2, 3, 4]) and not one_document([])


def test_a_question_about_one_document_is_ranked_by_both_signals_without_spreading(tmp_path, models_dir, embedder):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a_tunnel_log.txt").write_text("\n\n".join(
        f"Day {i}. " + "The drill crew logged their progress through the granite at the Brennwald face. " * 6
        for i in range(12)), encoding="utf-8")
    (folder / "b_council.txt").write_text("The council discussed parking, school meals and the summer fair. " * 12,
                                          encoding="utf-8")
    settings = Settings(home=tmp_path / "home", models_dir=models_dir, threads=2, build_profile="naive")
    with Engine(settings) as engine:
        engine.index([folder])
        retriever = engine.method("evidence").ctx.retriever("text")
        ranked = retriever.sparse.bm25("drill crew progress", 100)
        log_id = engine.docs.get(str(folder.resolve() / "a_tunnel_log.txt")).id
        assert {engine.docs.chunks([i])[i].document_id for i, _ in ranked} == {log_id}
        hits = retriever.evidence_search("drill crew progress", k=10)
        names = [h.chunk.document.rsplit("/", 1)[1] for h in hits]
        assert names[:len(ranked)] == ["a_tunnel_log.txt"] * len(ranked)  # no passage of another document pushed in
        assert hits[0].score == 1.0 and all(0 < h.score <= 1.0 for h in hits)
        assert all(h.dense > 0 for h in hits)  # the dense signal took part (the BM25 path leaves it 0)
        assert {h.chunk.id for h in hits} >= {i for i, _ in ranked}
