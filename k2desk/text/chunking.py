"""Token-window chunking, the K²RAG paper's equation (1), with the tail kept.

Windows of S tokens overlapping by O advance by S−O. The paper counts
L = floor((N−O)/(S−O)) full windows and drops what is left; we add one final partial window so
no text is lost (the K²RAG paper's chunking, eq. 1). Tokens are the embedder's word pieces; each window's text is
the original text between its first token's start and its last token's end, so chunks quote the
document exactly and carry character offsets for highlighting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

PROFILES: dict[str, tuple[int, int]] = {
    "vec": (256, 20),  # dense and sparse stores
    "graph": (300, 100),  # knowledge-graph extraction
    "query": (128, 10),  # K²RAG step (C): KG results → sub-questions
}


@dataclass(frozen=True)
class Chunk:
    seq: int
    start_char: int
    end_char: int
    n_tokens: int
    text: str


def windows(n_tokens: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Token index ranges [start, end) of every window, the final partial one included."""
    if size <= 0 or not 0 <= overlap < size:
        raise ValueError(f"need size > overlap >= 0, got size={size}, overlap={overlap}")
    out: list[tuple[int, int]] = []
    start = 0
    while start < n_tokens:
        end = min(start + size, n_tokens)
        out.append((start, end))
        if end == n_tokens:
            break
        start += size - overlap
    return out


def full_windows(n_tokens: int, size: int, overlap: int) -> int:
    """The paper's L = floor((N−O)/(S−O)) (for N ≥ S)."""
    return max(0, (n_tokens - overlap) // (size - overlap))


def chunk_spans(text: str, spans: Sequence[tuple[int, int]], size: int, overlap: int) -> list[Chunk]:
    """Chunk ``text`` given its tokens' character ``spans`` (from the embedder's tokenizer)."""
    chunks = []
    for seq, (a, b) in enumerate(windows(len(spans), size, overlap)):
        start, end = spans[a][0], spans[b - 1][1]
        chunks.append(Chunk(seq, start, end, b - a, text[start:end]))
    return chunks


BLOCK_CHARS = 1 << 16  # a long text is tokenized a block at a time (cut at whitespace: the same tokens)


def token_spans(text: str, tokenizer, start: int = 0, end: Optional[int] = None) -> list[tuple[int, int]]:
    """The tokens' character spans of text[start:end], tokenized in blocks of at most BLOCK_CHARS
    cut at whitespace, so a 10 MB text never goes to the tokenizer whole."""
    end = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    while start < end:
        stop = min(end, start + BLOCK_CHARS)
        if stop < end:
            cut = max(text.rfind("\n", start, stop), text.rfind(" ", start, stop))
            stop = cut + 1 if cut > start else stop
        spans += [(a + start, b + start) for a, b in tokenizer.token_spans(text[start:stop])]
        start = stop
    return spans


def chunk_text(text: str, tokenizer, profile: str, breaks: Sequence[int] = ()) -> list[Chunk]:
    """Chunk with a named profile; ``tokenizer`` has ``token_spans(text)`` (the Embedder does).
    With ``breaks`` (where each part of the file starts), each part is tokenized and chunked on
    its own, so memory follows the largest part, not the document."""
    size, overlap = PROFILES[profile]
    cuts = sorted({b for b in breaks if 0 < b < len(text)})
    if not cuts:
        return chunk_spans(text, token_spans(text, tokenizer), size, overlap)
    chunks: list[Chunk] = []
    for start, end in zip([0, *cuts], [*cuts, len(text)]):
        for c in chunk_spans(text, token_spans(text, tokenizer, start, end), size, overlap):
            chunks.append(Chunk(len(chunks), c.start_char, c.end_char, c.n_tokens, c.text))
    return chunks
