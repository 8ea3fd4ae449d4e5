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
