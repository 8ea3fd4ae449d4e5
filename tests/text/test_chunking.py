import re

import pytest

from k2desk.text.chunking import PROFILES, chunk_spans, chunk_text, full_windows, windows


def test_windows_follow_equation_1_and_keep_the_tail():
    # N=600, S=256, O=20: L = floor((600-20)/236) = 2 full windows, then the tail 472..600
    assert full_windows(600, 256, 20) == 2
    assert windows(600, 256, 20) == [(0, 256), (236, 492), (472, 600)]


def test_windows_edge_cases():
    assert windows(0, 256, 20) == []
    assert windows(10, 256, 20) == [(0, 10)]
    assert windows(256, 256, 20) == [(0, 256)]
    assert windows(257, 256, 20) == [(0, 256), (236, 257)]
    with pytest.raises(ValueError):
        windows(10, 20, 20)


@pytest.mark.parametrize("n", [1, 99, 300, 301, 1000, 1337])
@pytest.mark.parametrize("profile", list(PROFILES))
def test_windows_cover_every_token_with_the_profile_overlap(n, profile):
    size, overlap = PROFILES[profile]
    ws = windows(n, size, overlap)
    covered = set()
    for a, b in ws:
        assert 0 < b - a <= size
        covered.update(range(a, b))
    assert covered == set(range(n))
    for (_, b1), (a2, _) in zip(ws, ws[1:]):
        assert b1 - a2 == overlap  # consecutive windows share exactly O tokens


def test_chunk_spans_quote_the_text_exactly():
    text = "alpha beta  gamma delta epsilon"
    spans = [(0, 5), (6, 10), (12, 17), (18, 23), (24, 31)]
    chunks = chunk_spans(text, spans, size=3, overlap=1)
    assert [c.text for c in chunks] == ["alpha beta  gamma", "gamma delta epsilon"]
    assert [(c.start_char, c.end_char, c.n_tokens) for c in chunks] == [(0, 17, 3), (12, 31, 3)]


def test_chunk_text_with_the_real_tokenizer(embedder):
    text = " ".join(f"Sentence number {i} talks about lighthouses and bread." for i in range(120))
    chunks = chunk_text(text, embedder, "vec")
    n = embedder.count_tokens(text)
    assert len(chunks) == len(windows(n, 256, 20)) >= 3
    assert all(c.n_tokens <= 256 for c in chunks)
    assert chunks[0].text.startswith("Sentence number 0")
    assert chunks[-1].text.endswith("bread.")  # the tail is kept
    for c in chunks:
        assert text[c.start_char:c.end_char] == c.text


def test_no_window_runs_over_a_part_break(monkeypatch):
    class Words:  # a tokenizer whose tokens are the words
        def token_spans(self, text):
            return [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]

    text = "aa bb cc dd ee ff"
    spans = [(i, i + 2) for i in range(0, len(text), 3)]  # six two-letter tokens
    monkeypatch.setitem(PROFILES, "vec", (4, 1))
    chunks = chunk_text(text, Words(), "vec", breaks=[0, 6, 6, 12])
    assert [c.text for c in chunks] == ["aa bb", "cc dd", "ee ff"] and [c.seq for c in chunks] == [0, 1, 2]
    assert [c.text for c in chunk_spans(text, spans, size=4, overlap=1)] == ["aa bb cc dd", "dd ee ff"]


def test_a_long_text_is_tokenized_in_blocks_into_the_same_tokens(embedder, monkeypatch):
    from pathlib import Path

    import k2desk.text.chunking as chunking

    text = (Path(__file__).resolve().parents[1] / "fixtures" / "mixed" / "lighthouse.txt").read_text(encoding="utf-8") * 3
    monkeypatch.setattr(chunking, "BLOCK_CHARS", 500)
    assert chunking.token_spans(text, embedder) == embedder.token_spans(text)
    parts = [0, len(text) // 3, 2 * len(text) // 3]
    parted = chunking.chunk_text(text, embedder, "vec", parts)
    assert [c.seq for c in parted] == list(range(len(parted)))
    assert all(not (c.start_char < p <= c.end_char - 1) for c in parted for p in parts[1:])
