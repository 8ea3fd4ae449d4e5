"""The `evidence` retrieval: for several documents, BM25's first passages as they are, then one passage
per new article; for one document, BM25 and the dense ranking fused."""

from contextlib import contextmanager

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.methods.retrieval import one_document


@contextmanager
def indexed(tmp_path, models_dir, path, *collection: str):
    """An engine over ``path`` indexed (naive profile), and its ``evidence`` method's text retriever."""
    settings = Settings(home=tmp_path / "home", models_dir=models_dir, threads=2, build_profile="naive")
    with Engine(settings, *collection) as engine:
        engine.index([path])
        yield engine, engine.method("evidence").ctx.retriever("text")


def test_after_the_head_each_new_article_gets_a_passage(tmp_path, models_dir, embedder):
    folder = tmp_path / "docs"
    folder.mkdir()
    para = "The Brennwald tunnel tunnel drill crew logged tunnel progress in the tunnel today. "
    (folder / "a_tunnel_log.txt").write_text("\n\n".join(f"Day {i}. " + para * 6 for i in range(12)), encoding="utf-8")
    filler = "The council discussed parking, school meals, library hours and the summer fair at length. " * 12
    for name, who in (("b_council.txt", "One member"), ("c_budget.txt", "The treasurer")):
        (folder / name).write_text(filler + who + " asked about the tunnel.", encoding="utf-8")
    with indexed(tmp_path, models_dir, folder) as (engine, retriever):
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
    """A passage that repeats an earlier-ranked one word for word (a copy of a file in another
    folder) is read once, in every ranking, and the passages after it move up."""
    from k2desk.methods.retrieval import Retriever

    folder = tmp_path / "docs"
    (folder / "copies").mkdir(parents=True)
    report = "\n\n".join(f"Section {i}. The Brennwald tunnel crew drilled {40 + i} metres of granite this week, "
                         "the site engineer reported to the council. " * 3 for i in range(4))
    (folder / "tunnel_report.txt").write_text(report, encoding="utf-8")
    (folder / "copies" / "tunnel_report (1).txt").write_text(report, encoding="utf-8")  # the same file, kept twice
    (folder / "council.txt").write_text("The council asked the tunnel engineer about granite and the schedule. " * 4,
                                        encoding="utf-8")
    with indexed(tmp_path, models_dir, folder) as (engine, retriever):
        query = "tunnel granite metres drilled"
        ranked = [i for i, _ in retriever.sparse.bm25(query, 100)]
        texts = {i: " ".join(c.text.split()) for i, c in engine.docs.chunks(ranked).items()}
        report_passages = len({texts[i] for i in ranked if texts[i] != texts[ranked[-1]]})
        assert len(set(texts.values())) < len(ranked)  # BM25 ranks both copies
        assert [texts[i] for i in ranked].index(texts[ranked[-1]]) >= report_passages * 2  # the council's last
        k = report_passages + 1  # room for each report passage once and the council's
        for hits in (retriever.evidence_search(query, k=k), retriever.search(query, k=k)):
            shown = [" ".join(h.chunk.text.split()) for h in hits]
            assert len(shown) == len(set(shown)) == k  # each passage once, whichever copy it came from
            assert "council.txt" in {h.chunk.document.rsplit("/", 1)[1] for h in hits}
        copies = frozenset({d.id for d in engine.docs.list() if "tunnel_report" in d.key})
        scoped = Retriever(engine.db, engine.embedder, "text", scope=copies)  # one document's passages, twice
        hits = scoped.evidence_search(query, k=10)  # BM25 and the dense ranking fused
        shown = [" ".join(h.chunk.text.split()) for h in hits]
        assert len(shown) == len(set(shown)) == report_passages


def test_the_same_story_from_two_outlets_is_kept_for_each(tmp_path, models_dir, embedder):
    """Word for word the same text from two outlets is not a copy: questions name outlets, so each
    outlet's passage stays, with or without the outlet asked for."""
    import json

    body = ("The council discussed parking, school meals and the summer fair. " * 30  # the story's second passage:
            + "The Brennwald tunnel drill stopped on Monday after water entered the shaft.")  # no outlet in its text
    corpus = tmp_path / "news.jsonl"
    corpus.write_text("".join(json.dumps({"title": "Tunnel drill stops", "source": source, "published_at": "2023-05-02",
                                          "body": body}) + "\n" for source in ("Valley Post", "Harbour Ledger")),
                      encoding="utf-8")
    with indexed(tmp_path, models_dir, corpus, "news") as (engine, retriever):
        second = lambda hits: [h for h in hits if "drill" in h.chunk.text and not h.chunk.text.startswith("Title:")]  # noqa: E731
        hits = second(retriever.evidence_search("tunnel drill", k=10))
        assert len({h.chunk.text for h in hits}) == 1  # the same words …
        assert sorted(h.chunk.meta["source"] for h in hits) == ["Harbour Ledger", "Valley Post"]  # … twice
        hits = second(retriever.evidence_search("tunnel drill", k=10, outlet="Harbour Ledger"))
        assert [h.chunk.meta["source"] for h in hits] == ["Harbour Ledger"]


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
    with indexed(tmp_path, models_dir, folder) as (engine, retriever):
        ranked = retriever.sparse.bm25("drill crew progress", 100)
        log_id = engine.docs.get(str(folder.resolve() / "a_tunnel_log.txt")).id
        assert {engine.docs.chunks([i])[i].document_id for i, _ in ranked} == {log_id}
        hits = retriever.evidence_search("drill crew progress", k=10)
        names = [h.chunk.document.rsplit("/", 1)[1] for h in hits]
        assert names[:len(ranked)] == ["a_tunnel_log.txt"] * len(ranked)  # no passage of another document pushed in
        assert hits[0].score == 1.0 and all(0 < h.score <= 1.0 for h in hits)
        assert all(h.dense > 0 for h in hits)  # the dense signal took part (the BM25 path leaves it 0)
        assert {h.chunk.id for h in hits} >= {i for i, _ in ranked}
