"""Where a passage sits in its file: parts written by Parts, labels read back from offsets."""

from k2desk.ingest.locations import Parts, label, location, span


def test_pages_keep_the_pdf_layout_of_offsets():
    parts = Parts("page")
    for text in ("one", "", "three"):  # a blank page starts where the next page with text does
        parts.add(text)
    meta = parts.meta()
    assert meta == {"page_offsets": [0, 5, 5], "pages": 3}
    assert parts.text == "one\n\nthree"
    assert span(meta, 5, 10) == (3, 3) and location(meta, 0, 10) == "pp. 1–3"


def test_slides_and_trailing_empty_parts():
    parts = Parts("slide")
    for text in ("title", "body", ""):
        parts.add(text)
    meta = parts.meta()
    assert meta["unit"] == "slide" and meta["slides"] == 3 and meta["page_offsets"] == [0, 7, 11]
    assert location(meta, 7, 11) == "slide 2" and location(meta, 0, 11) == "slides 1–2"


def test_rows_are_cited_by_sheet_and_row_range():
    parts = Parts("rows")
    stock, suppliers = parts.sheet("Stock"), parts.sheet("Suppliers")
    parts.add("a\nb", [stock, 2, 11])
    parts.add("c", [stock, 12, 14])
    parts.add("d", [suppliers, 2, 3])
    meta = parts.meta()
    assert location(meta, 0, 3) == "sheet Stock, rows 2–11"
    assert location(meta, 0, 6) == "sheet Stock, rows 2–14"
    assert location(meta, 5, 9) == "sheet Stock row 12 – sheet Suppliers row 3"
    csv = Parts("rows")
    csv.add("x", [csv.sheet(""), 2, 2])
    assert location(csv.meta(), 0, 1) == "row 2"


def test_a_document_without_parts_has_no_location():
    assert span({}, 0, 10) == (0, 0) and location({}, 0, 10) == "" and label({}, 0, 0) == ""
