"""Merge rules of the knowledge graph, as pure functions: the normalized name that entities merge
by, and how the mentions' types, descriptions and keywords combine (k2desk.store.graph applies
them; the extraction uses the same normalization)."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from typing import Iterable, Sequence

ENTITY_TYPES = ("person", "organization", "location", "event", "product", "date", "concept", "other")
DESCRIPTION_LIMIT = 1200
KEYWORDS_LIMIT = 200

_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_KEYWORD_SPLIT = re.compile(r"[,;/|]+")


def normalize_name(name: str) -> str:
    """The merge key of a name: 'The Sam Bankman-Fried' -> 'sam bankman fried'.

    Decomposed (NFKD); accents and apostrophes dropped; punctuation, symbols, separators and
    control characters made spaces; case folded; spaces collapsed; a leading "the" dropped.
    K²RAG's graph search normalizes thousands of descriptions per question, so the characters
    are classified once each, and ASCII goes through a byte table: most non-ASCII text is ASCII
    but for a few quotes, dashes and accents, which are mapped one by one first (``str.translate``
    with a dict costs 16 ns per character)."""
    text = name or ""
    if text.isascii():
        key = " ".join(_ascii_folded(text).split())
    else:
        decomposed, folded = _decomposed(text)
        if folded is None:  # a letter that stays non-ASCII ("ß", "я")
            key = " ".join(decomposed.translate(_TRANSLATION).casefold().split())
        else:
            key = " ".join(_ascii_folded(folded).split())
    return key[4:] if key.startswith("the ") else key


def words_within(text: str) -> str:
    """``text`` folded as ``normalize_name`` folds it but with its punctuation kept: every word of
    ``normalize_name(text)`` is a substring of it (a cheap test of whether a word can be there)."""
    text = text or ""
    if not text.isascii():
        decomposed, text = _decomposed(text)
        if text is None:  # mapped as ``normalize_name`` maps it: its words are there too
            return decomposed.translate(_TRANSLATION).casefold()
    return _ascii_folded(text, keep_punctuation=True)


def _ascii_folded(text: str, keep_punctuation: bool = False) -> str:
    """ASCII ``text`` through the byte table: apostrophes dropped, lowercased, and (unless
    ``keep_punctuation``) punctuation, symbols and control characters made spaces."""
    return text.encode("ascii").translate(None if keep_punctuation else _ASCII_MAP, _ASCII_DROPPED).decode("ascii").lower()


def _decomposed(text: str) -> tuple[str, str | None]:
    """``text`` decomposed (NFKD), and the same with its non-ASCII characters mapped as
    ``normalize_name`` maps them (ASCII left as it is), or None when one of them stays
    non-ASCII (a letter: "ß", "я")."""
    text = unicodedata.normalize("NFKD", text)
    present = set(_NON_ASCII.findall(text))
    new = present.difference(_CLASSIFIED)
    if new:
        for ch in new:
            mapped = _mapped(ch)
            if mapped != ch:
                _TRANSLATION[ord(ch)] = mapped
            else:
                _KEPT.add(ch)
        _CLASSIFIED.update(new)
    if not present.isdisjoint(_KEPT):
        return text, None
    return text, _NON_ASCII.sub(_map_match, text)


def _map_match(match: re.Match) -> str:
    ch = match.group()
    return _TRANSLATION.get(ord(ch), ch) or ""


def _mapped(ch: str) -> str | None:
    """What ``normalize_name`` makes of one decomposed character (None: dropped)."""
    if unicodedata.combining(ch) or ch in "'’`´":
        return None
    return " " if unicodedata.category(ch)[0] in "PSZC" else ch


_CLASSIFIED: set[str] = {chr(c) for c in range(128)}  # characters whose mapping is known
_KEPT: set[str] = set()  # the non-ASCII ones among them that are kept as they are (letters)
_TRANSLATION: dict[int, str | None] = {c: _mapped(chr(c)) for c in range(128) if _mapped(chr(c)) != chr(c)}  # absent: kept
_ASCII_DROPPED = bytes(c for c in range(128) if _mapped(chr(c)) is None)
_ASCII_MAP = bytes.maketrans(bytes(range(128)), bytes(ord(_mapped(chr(c)) or chr(c)) for c in range(128)))


def merge_descriptions(texts: Iterable[str], limit: int = DESCRIPTION_LIMIT) -> str:
    """Distinct sentences of ``texts`` in order, each ending with a stop, at most ``limit`` chars."""
    out: list[str] = []
    seen: set[str] = set()
    size = 0
    for text in texts:
        for sentence in _SENTENCE.split((text or "").strip()):
            sentence = sentence.strip()
            key = normalize_name(sentence)
            if not key or key in seen:
                continue
            seen.add(key)
            if sentence[-1] not in ".!?":
                sentence += "."
            cost = len(sentence) + (1 if out else 0)
            if size + cost > limit:
                if not out:
                    out.append(sentence[:limit])
                    size = limit
                continue
            out.append(sentence)
            size += cost
    return " ".join(out)


def merge_keywords(texts: Iterable[str], limit: int = KEYWORDS_LIMIT) -> str:
    out: list[str] = []
    seen: set[str] = set()
    for text in texts:
        for phrase in _KEYWORD_SPLIT.split(text or ""):
            phrase = " ".join(phrase.split())
            key = normalize_name(phrase)
            if key and key not in seen and len(", ".join(out + [phrase])) <= limit:
                seen.add(key)
                out.append(phrase)
    return ", ".join(out)


def majority_type(types: Sequence[str]) -> str:
    """The most frequent type; 'other'/'' only when there is nothing else; ties: earliest."""
    specific = [t for t in types if t and t != "other"]
    if not specific:
        return "other"
    counts = Counter(specific)
    best = max(counts.values())
    return next(t for t in specific if counts[t] == best)
