"""Readers on real fixtures with the real libraries (pypdfium2, pypdf, python-docx, selectolax,
markdown-it-py). Fixtures: tests/fixtures (regenerate binaries with make_fixtures.py)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import zipfile
from pathlib import Path

import pytest

from k2desk.errors import IngestError, K2Error
from k2desk.ingest import (
    SUPPORTED,
    CorpusReport,
    RawDocument,
    decode_text,
    file_hash,
    html_to_text,
    iter_corpus,
    normalize_text,
    read_path,
    readers,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MIXED = FIXTURES / "mixed"
CORPUS = FIXTURES / "corpus_small.jsonl"
MULTIHOP = Path(__file__).parents[3] / "shared/bench/multihop-rag-dev/corpus.jsonl"


def _make_fixtures():
    spec = importlib.util.spec_from_file_location("make_fixtures", FIXTURES / "make_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_one(path: Path) -> RawDocument:
    docs = read_path(path)
    assert len(docs) == 1
    return docs[0]


def test_supported_kinds():
    assert set(SUPPORTED.values()) == {"txt", "md", "pdf", "docx", "html", "epub", "jsonl", "image", "pptx", "xlsx",
                                       "csv", "ods", "odt", "odp", "rtf", "eml", "mbox"}
    assert SUPPORTED[".htm"] == "html" and SUPPORTED[".markdown"] == "md"
    assert SUPPORTED[".jpeg"] == SUPPORTED[".tif"] == SUPPORTED[".webp"] == "image" and SUPPORTED[".tsv"] == "csv"


def test_txt_facts_key_title_hash():
    path = MIXED / "lighthouse.txt"
    doc = read_one(path)
    assert doc.kind == "txt" and doc.title == "lighthouse"
    assert doc.key == str(path.resolve()) and doc.meta["path"] == doc.key
    for fact in ("built in 1887", "Mirela Varga", "23 nautical miles", "146 steps", "Tobiás Varga"):
        assert fact in doc.text
    assert doc.content_hash == hashlib.sha256(path.read_bytes()).hexdigest() == file_hash(path)
    assert doc.text == normalize_text(doc.text)
    assert "\n\nThe current keeper" in doc.text  # paragraph breaks kept


def test_markdown_is_plain_text():
    doc = read_one(MIXED / "recipes.md")
    assert doc.kind == "md"
    for fact in ("Saffron Crown Bread", "Bellweather Bakery", "Oskar Lindgren",
                 "Proof for 95 minutes at 27 °C", "0.4 g saffron threads", "Bake for 38 minutes at 190 °C",
                 "\nIngredients\n", "the bakery's notes", "shop | 24"):
        assert fact in doc.text
    for markup in ("#", "**", "*Saffron", "](", "https://bakery.example", "|---", "> Tip", "1. Mix"):
        assert markup not in doc.text
    assert "500 g strong white flour\n0.4 g saffron" in doc.text  # one list item per line


def test_pdf_pages_and_offsets():
    doc = read_one(MIXED / "report.pdf")
    assert doc.kind == "pdf" and doc.meta["pages"] == 2
    for fact in ("Quillfeather Robotics was founded in 2011 in Tampere", "Anneli Korhonen",
                 "42 million euros", "Kestrel-7 warehouse robot", "310 people", "Malmö"):
        assert fact in doc.text
    first, second = doc.meta["page_offsets"]
    assert first == 0 and doc.text[second:].startswith("Products and people")
    assert doc.text[:second].endswith("5.8 million euros.\n\n")


def test_pdf_blank_page_offsets(tmp_path):
    path = tmp_path / "three.pdf"
    path.write_bytes(_make_fixtures().pdf_bytes([["Alpha page text"], [], ["Gamma page text"]]))
    doc = read_one(path)
    assert doc.text == "Alpha page text\n\nGamma page text"
    assert doc.meta["pages"] == 3 and doc.meta["page_offsets"] == [0, 17, 17]


def test_pypdf_fallback_reads_the_same_pdf():
    pages = readers._pdf_pypdf((MIXED / "report.pdf").read_bytes())
    assert len(pages) == 2
    assert "Anneli Korhonen" in pages[0] and "Kestrel-7" in pages[1]


def test_pdf_without_text_is_reported(tmp_path):
    path = tmp_path / "scan.pdf"
    path.write_bytes(_make_fixtures().pdf_bytes([[], []]))
    with pytest.raises(IngestError, match=r"^scan\.pdf: no extractable text \(no text layer and no scanned page\)$"):
        read_path(path)


def test_docx_paragraphs_and_table():
    doc = read_one(MIXED / "minutes.docx")
    assert doc.kind == "docx" and doc.title == "minutes"
    for fact in ("Orchard Valley Water Board", "14 March 2024", "Desmond Achterberg",
                 "Pump Station 3", "Hollins & Pike", "Reservoir survey | 62,500 | Ruth Okonkwo",
                 "Pipe replacement | 418,000 | Pavel Sorensen"):
        assert fact in doc.text
    # document order: heading, table, closing paragraph
    assert doc.text.index("Budget lines") < doc.text.index("Pipe replacement") < doc.text.index(
        "next meeting")


def test_html_drops_noise_keeps_blocks():
    doc = read_one(MIXED / "garden.html")
    assert doc.kind == "html"
    assert doc.title == "Verdant Hollow Botanical Garden – Visitor Guide"
    for fact in ("founded in 1923", "Dr. Ottilie Brandt", "41 metres long", "312 species of orchid",
                 "Adult | 14 euros", "blue jade vine,\nwhich flowered", "registered charity 40218"):
        assert fact in doc.text
    for noise in ("SCRIPTNOISE", "trackingId", "NAVNOISE", "noise-style-rule", "Visitor Guide"):
        assert noise not in doc.text
    assert "\n\nIts Victorian-style glasshouse, the Palm Pavilion, is" in doc.text
    assert "April to October: 9:00 to 18:00\nNovember to March" in doc.text


def test_html_leaves_out_the_back_matter_sections():
    page = ("<h1>Ferry</h1><p>The ferry crosses the Altsee.</p>"
            "<h2>History [edit]</h2><p>It has run since 1931.</p>"
            "<h2>References ( edit )</h2><ol><li>Smith, J. (2001). The ferry of the Altsee. Retrieved 2017.</li></ol>"
            "<div><h3>Sources</h3><p>Not this either.</p></div>"
            "<h2>External links</h2><ul><li>Official site</li></ul>"
            "<h2>Trivia</h2><p>The ferry appears in a film.</p><h3>Sources of fares</h3><p>Fares are set by the town.</p>")
    text = html_to_text(page)[1]
    assert "It has run since 1931." in text and "The ferry appears in a film." in text
    assert "Fares are set by the town." in text  # a heading that only starts with a back-matter word
    assert "Retrieved" not in text and "Not this either" not in text and "Official site" not in text
    assert "References" not in text and "External links" not in text


def test_html_without_title_uses_stem_and_decodes_meta_charset(tmp_path):
    path = tmp_path / "page.htm"
    path.write_bytes(b'<meta charset="windows-1252"><p>Caf\xe9 au lait</p>')
    doc = read_one(path)
    assert doc.title == "page" and doc.text == "Café au lait"


def test_epub_spine_order_and_title():
    doc = read_one(FIXTURES / "epub" / "book.epub")
    assert doc.kind == "epub" and doc.title == "The Cartographer of Lumen Bay"
    assert doc.meta["chapters"] == 2
    assert "Tobias Renn charted the fourteen islands of Lumen Bay" in doc.text
    assert "Isle Carrow" in doc.text and "Saltcombe Maritime Museum" in doc.text
    assert doc.text.index("Chapter One") < doc.text.index("Chapter Two")  # spine, not manifest
    for noise in ("NAVTOC-NOISE", "font-family", "margin"):
        assert noise not in doc.text


def _zip(path: Path, members: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def test_epub_errors(tmp_path):
    with pytest.raises(IngestError, match=r"^nocontainer\.epub: cannot read EPUB \(missing META-INF"):
        read_path(_zip(tmp_path / "nocontainer.epub", {"mimetype": "application/epub+zip"}))
    (tmp_path / "plain.epub").write_bytes(b"just text")
    with pytest.raises(IngestError, match=r"^plain\.epub: cannot read EPUB \(not a zip archive\)$"):
        read_path(tmp_path / "plain.epub")
    src = zipfile.ZipFile(FIXTURES / "epub" / "book.epub")
    members = {i.filename: src.read(i).decode() for i in src.infolist()}
    members["META-INF/encryption.xml"] = (
        '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
        'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:CipherData>'
        '<enc:CipherReference URI="OEBPS/text/chapter1.xhtml"/></enc:CipherData>'
        '</enc:EncryptedData></encryption>')
    with pytest.raises(IngestError, match=r"^drm\.epub: EPUB is DRM-protected"):
        read_path(_zip(tmp_path / "drm.epub", members))
    bad = dict(members, **{"META-INF/container.xml": "<container><rootfiles"})
    del bad["META-INF/encryption.xml"]
    with pytest.raises(IngestError, match=r"^badxml\.epub: cannot read EPUB \(ParseError: "):
        read_path(_zip(tmp_path / "badxml.epub", bad))


@pytest.mark.parametrize("name, message", [
    ("corrupt.pdf", r"^corrupt\.pdf: cannot read PDF \(PdfiumError: .{1,160}\)$"),
    ("binary.txt", r"^binary\.txt: not a text file \(binary content\)$"),
    ("empty.txt", r"^empty\.txt: empty document \(no text\)$"),
    ("photo.bin", r"^photo\.bin: unsupported file type \.bin$"),
    ("missing.txt", r"^missing\.txt: no such file$"),
    ("nested", r"^nested: is a folder, not a file$"),
])
def test_unreadable_fixtures_raise_one_line_errors(name, message):
    with pytest.raises(IngestError, match=message) as info:
        read_path(MIXED / name)
    assert isinstance(info.value, K2Error) and "\n" not in str(info.value)


def test_library_exceptions_are_wrapped(tmp_path):
    (tmp_path / "broken.docx").write_bytes(b"PK\x03\x04 this is not really a docx")
    with pytest.raises(IngestError, match=r"^broken\.docx: cannot read DOCX \(not a zip archive\)$"):
        read_path(tmp_path / "broken.docx")
    with zipfile.ZipFile(tmp_path / "hollow.docx", "w") as zf:  # a zip, but no Word document inside
        zf.writestr("readme.txt", "nothing here")
    with pytest.raises(IngestError, match=r"^hollow\.docx: cannot read DOCX \(\w+: .*\)$") as info:
        read_path(tmp_path / "hollow.docx")
    assert len(str(info.value)) < 220 and "\n" not in str(info.value)
    (tmp_path / "blank.md").write_text("  \n\n   \t\n")
    with pytest.raises(IngestError, match=r"^blank\.md: empty document \(no text\)$"):
        read_path(tmp_path / "blank.md")
    (tmp_path / "onlyscript.html").write_text("<script>var a = 1;</script><nav>Menu</nav>")
    with pytest.raises(IngestError, match=r"^onlyscript\.html: empty document"):
        read_path(tmp_path / "onlyscript.html")


def test_decoding_fallbacks():
    assert decode_text("Zoë".encode("utf-8-sig"), "a.txt") == "Zoë"
    assert decode_text(b"Caf\xe9 cr\xe8me \x80 5", "a.txt") == "Café crème € 5"  # cp1252
    latin = b"0x81 is undefined in cp1252, so this line falls back to latin-1: \x81"
    assert decode_text(latin, "a.txt") == latin.decode("latin-1")
    assert decode_text("Grüße".encode("utf-16"), "a.txt") == "Grüße"
    with pytest.raises(IngestError, match="^a.txt: not a text file"):
        decode_text(bytes(range(1, 32)) * 20, "a.txt")  # no NUL, but mostly control bytes
    with pytest.raises(IngestError, match="^b.txt: not a text file"):
        decode_text(b"mostly readable words " * 40 + b"\x00", "b.txt")  # one NUL is enough


def test_normalize_text():
    raw = "  Title\r\n\r\n\r\n\tword  \u00a0 word\u00ad\x07\nline two \u2029next   "
    assert normalize_text(raw) == "Title\n\nword word\nline two\n\nnext"
    assert normalize_text(normalize_text(raw)) == normalize_text(raw)


def test_hash_stable_and_changes_with_content(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("The ferry leaves at 07:40.\n")
    b.write_text("The ferry leaves at 07:40.\n")
    first = read_one(a)
    assert file_hash(a) == file_hash(a) == first.content_hash == read_one(a).content_hash
    assert read_one(b).content_hash == first.content_hash and read_one(b).key != first.key
    a.write_text("The ferry leaves at 07:45.\n")
    assert file_hash(a) != first.content_hash and read_one(a).content_hash == file_hash(a)


# --- corpus .jsonl ------------------------------------------------------------------------


def test_corpus_records_metadata_and_skipped_line(caplog):
    report = CorpusReport()
    with caplog.at_level(logging.WARNING, logger="k2desk.ingest"):
        docs = read_path(CORPUS, report)
    assert len(docs) == 3 and report.records == 3
    assert report.path == str(CORPUS.resolve())
    assert [line for line, _ in report.skipped] == [3] and "invalid JSON" in report.skipped[0][1]
    assert "line 3" in caplog.text
    lines = CORPUS.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    doc = docs[0]
    assert doc.kind == "jsonl" and doc.title == first["title"]
    assert doc.key == f"{CORPUS.resolve()}#{first['url']}"
    assert doc.meta == {k: v for k, v in first.items() if k != "body"}
    assert doc.content_hash == hashlib.sha256(
        json.dumps(first, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    assert doc.text.startswith("Title: Glacier Rail opens the Brennwald Tunnel\n"
                               "Source: The Meridian Post\n"
                               "Published: 2023-11-02 (November 2, 2023)\n"
                               "Author: Hanna Lindqvist\nCategory: business\nURL: https://")
    assert "\n\nGlacier Rail opened the 27-kilometre Brennwald Tunnel" in doc.text
    assert "Source: TechWire Daily" in docs[2].text and "Sofia Reyes" in docs[2].text
    assert len({d.key for d in docs}) == 3


def test_corpus_line_rules(tmp_path):
    path = tmp_path / "news.jsonl"
    rows = [
        json.dumps({"title": "No url here", "body": "The mayor opened the bridge."}),
        "",
        json.dumps({"title": "Dup", "url": "https://x.example/1", "body": "First copy."}),
        json.dumps({"title": "Dup again", "url": "https://x.example/1", "body": "Second copy."}),
        json.dumps({"title": "No body", "url": "https://x.example/2"}),
        json.dumps(["not", "an", "object"]),
        json.dumps({"url": "https://x.example/3", "text": "Body under the text key.", "x": 1}),
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    report = CorpusReport()
    docs = list(iter_corpus(path, report))
    assert [d.key.split("#", 1)[1] for d in docs] == ["line-1", "https://x.example/1",
                                                       "https://x.example/3"]
    assert docs[2].title == "news line 7" and docs[2].meta == {"url": "https://x.example/3", "x": 1}
    assert [line for line, _ in report.skipped] == [4, 5, 6]
    assert "duplicate url (first on line 3)" == report.skipped[0][1]


def test_corpus_record_with_an_html_body_is_read_as_its_page(tmp_path):
    page = ("Ferry - wikipedia <H1> Ferry </H1> <Table> <Tr> <Th> Captain </Th> <Td> Ulrich Sandmeier </Td> </Tr> "
            "<Tr> <Th> Fare </Th> <Td> 2 euros </Td> </Tr> </Table> <P> The ferry crosses the Altsee. </P> "
            "<H2> History </H2> <P> It has run since <B> 1931 </B> . </P> <Ul> <Li> a </Li> </Ul>")
    prose = "Use <p> for a paragraph and </p> to close it; a </td> in prose stays as it is."
    path = tmp_path / "pages.jsonl"
    path.write_text(json.dumps({"title": "Ferry - wikipedia <H1> Ferry </H1> <Table> <Tr> <Th_c", "url": "u1", "body": page})
                    + "\n" + json.dumps({"title": "Markup guide", "url": "u2", "body": prose}) + "\n", encoding="utf-8")
    html, text = list(iter_corpus(path))
    assert html.title == "Ferry - wikipedia Ferry"
    assert html.text.startswith("Title: Ferry - wikipedia Ferry\n")
    assert "Captain | Ulrich Sandmeier" in html.text and "The ferry crosses the Altsee." in html.text
    assert "<" not in html.text and "Td" not in html.text
    assert text.text.endswith(prose)  # a few tags in prose: not a page


def test_corpus_without_valid_records_names_the_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('\n{"title": "x"}\nnot json\n', encoding="utf-8")
    with pytest.raises(IngestError, match=r"^bad\.jsonl: no valid records \(line 2: no body text\)$"):
        read_path(bad)
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(IngestError, match=r"^empty\.jsonl: empty document \(no text\)$"):
        list(iter_corpus(empty))


@pytest.mark.skipif(not MULTIHOP.exists(), reason="MultiHop-RAG dev slice not present")
def test_multihop_dev_corpus():
    report = CorpusReport()
    docs = read_path(MULTIHOP, report)
    assert len(docs) == 40 and report.skipped == []
    assert len({d.key for d in docs}) == 40 and len({d.content_hash for d in docs}) == 40
    for doc in docs:
        assert doc.key.startswith(f"{MULTIHOP.resolve()}#https://")
        assert f"Source: {doc.meta['source']}\n" in doc.text
        assert "\nPublished: 2023-" in doc.text and "body" not in doc.meta
    sbf = next(d for d in docs if d.meta["url"].startswith("https://techcrunch.com/2023/10/06/sbf"))
    assert "Published: 2023-10-06 (October 6, 2023)" in sbf.text
