"""Chunk rows: the page a PDF chunk starts on, from the reader's page offsets."""

from k2desk.store.documents import ChunkRow


def chunk(start: int, source: str = "text", offsets=(0, 0, 120, 300)) -> ChunkRow:
    meta = {"pages": len(offsets), "page_offsets": list(offsets)} if offsets else {}
    return ChunkRow(7, 1, "/docs/a.pdf", "a", source, "raw", 0, start, start + 50, "passage", meta)


def test_page_of_a_chunk_from_the_page_offsets():
    # page 1 has no text (offset shared with page 2), page 3 starts at 120, page 4 at 300
    assert [chunk(s).page for s in (0, 119, 120, 299, 300, 5000)] == [2, 2, 3, 3, 4, 4]
    assert chunk(130, source="summary").page == 0  # a summary's offsets are not the PDF's
    assert chunk(130, offsets=()).page == 0  # no pages: a text file
    assert chunk(150).as_source(0.5).page == 3 and chunk(150).as_source(0.5).to_json()["page"] == 3
    assert "page" not in chunk(150, offsets=()).as_source(0.5).to_json()
    spanning = chunk(280).as_source(0.5)  # characters 280-330: over the break at 300
    assert (spanning.page, spanning.last_page, spanning.pages()) == (3, 4, "pp. 3–4")
    assert chunk(150).as_source(0.5).pages() == "p. 3" and chunk(150, offsets=()).as_source(0.5).pages() == ""


def test_documents_stages_and_chunks(backend):
    from k2desk.store.documents import DocumentStore
    from k2desk.text.chunking import Chunk

    db = backend.open()
    docs = DocumentStore(db)
    a = docs.upsert("/docs/100%_a.txt", "A", "txt", {"source": "Harbour Post", "pages": 2}, "h1", "text of a")
    b = docs.upsert("/docs/100x_b.txt", "B", "txt", {"source": ["not", "a", "name"]}, "h2", None, status="failed", error="unreadable")
    c = docs.upsert("/docs/c.txt", "C", "txt", {}, "h3", "text of c")
    assert docs.upsert("/docs/c.txt", "C again", "txt", {"source": "Lamp Weekly"}, "h4", "new text", status="done") == c
    assert docs.get("/docs/c.txt").title == "C again" and docs.text(c) == "new text" and docs.by_id(b).error == "unreadable"
    assert docs.get("/docs/100%_a.txt").meta == {"source": "Harbour Post", "pages": 2}
    assert docs.keys_with_prefix("/docs/100%_") == ["/docs/100%_a.txt"]  # % and _ are the key's own characters
    assert docs.outlets() == ["Harbour Post", "Lamp Weekly"]  # a source that is not a name is left out
    assert docs.title_holds("again") and docs.title_holds("C AGAIN") and not docs.title_holds("Lamp Weekly")
    assert not docs.title_holds("%") and not docs.title_holds("_")  # the words as written, not a pattern
    assert docs.counts() == {"pending": 1, "failed": 1, "done": 1} and docs.ids_to_process() == [a]
    docs.mark_stage(a, "text", "h1")
    docs.mark_stage(a, "text", "h1")  # again: one row
    docs.mark_stage(a, "graph_text", "old")
    assert docs.stage_done(a, "text", "h1") and not docs.stage_done(a, "text", "h0")
    assert docs.stage_counts() == {"text": 1} and docs.any_stage("graph") and not docs.any_stage("summary")
    ids = docs.add_chunks(a, "text", "vec", [Chunk(i, i * 10, i * 10 + 9, 3, f"chunk {i}") for i in range(3)])
    assert len(set(ids)) == 3 and docs.chunk_ids(a, "text", "vec") == sorted(ids)
    assert [ch.text for ch in docs.chunks_of(a, "text", "vec")] == ["chunk 0", "chunk 1", "chunk 2"]
    got = docs.chunks([ids[1], 999_999])
    assert list(got) == [ids[1]] and got[ids[1]].document == "/docs/100%_a.txt" and got[ids[1]].meta["pages"] == 2
    docs.set_summary(a, "a summary", "h1:extractive")
    assert docs.summary(a, "h1:extractive") == "a summary" and docs.current_summary(docs.by_id(a)) == "a summary"
    assert docs.source_text(a, "summary") == "a summary" and docs.source_text(a, "text") == "text of a"
    assert [(d.key, d.n_chunks, d.stages) for d in docs.list()][0] == ("/docs/100%_a.txt", 3, ["graph_text", "text"])
    docs.clear_stages(a, ["graph_text"])
    assert docs.any_stage("graph") is False
    docs.delete(a)  # its chunks and stages go with it
    assert docs.get("/docs/100%_a.txt") is None and docs.chunks(ids) == {} and docs.stage_counts() == {}
    assert db.one("SELECT count(*) FROM document_stages")[0] == 0
