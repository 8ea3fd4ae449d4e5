"""The `evidence` retrieval: BM25's first passages as they are, then one passage per new article."""

from k2desk.config import Settings
from k2desk.engine import Engine


def test_after_the_head_each_new_article_gets_a_passage(tmp_path, models_dir, embedder):
    folder = tmp_path / "docs"
    folder.mkdir()
    para = "The Brennwald tunnel tunnel drill crew logged tunnel progress in the tunnel today. "
    (folder / "a_tunnel_log.txt").write_text("\n\n".join(f"Day {i}. " + para * 6 for i in range(12)), encoding="utf-8")
    filler = "The council discussed parking, school meals, library hours and the summer fair at length. " * 12
    for name in ("b_council.txt", "c_budget.txt"):
        (folder / name).write_text(filler + "One member asked about the tunnel.", encoding="utf-8")
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
        assert sorted(names[4:6]) == ["b_council.txt", "c_budget.txt"] and len(names) == min(10, len(ranked))
        sources = engine.method("evidence").retrieve("tunnel")
        assert [s.chunk_id for s in sources] == [h.chunk.id for h in hits]
