"""The merge key of a name (k2desk.text.names.normalize_name)."""

from __future__ import annotations

import unicodedata

import pytest

from k2desk.text.names import _mapped, normalize_name, words_within


@pytest.mark.parametrize("name, key", [
    ("The Sam Bankman-Fried", "sam bankman fried"),
    ("  OpenAI,  Inc. ", "openai inc"),
    ("Beyoncé's  café", "beyonces cafe"),
    ("O’Neill `quoted´", "oneill quoted"),
    ("Ｓｔｒａßｅ", "strasse"),  # full-width letters decompose; ß folds
    ("ﬁnance_team\tQ3", "finance team q3"),
    ("THE the", "the"),
    ("Theodore", "theodore"),
    ("", ""),
    (None, ""),
])
def test_names_merge_by_their_key(name, key):
    assert normalize_name(name) == key


def test_the_three_paths_agree_on_every_ascii_character():
    """Plain ASCII takes a byte-table path; text whose non-ASCII characters all map to ASCII (an
    accent, a curly quote, a dash: dropped or made spaces) maps those one by one, then takes the
    byte table; a character that stays non-ASCII ("ß" folds to "ss") sends the whole text
    through ``str.translate``. All three must give the same key."""
    every = "".join(chr(c) for c in range(128))
    for text in [every, *every, "Mary-Jane O'Hara (CEO) & co. #1 @x_y"]:
        key = normalize_name("a " + text)[2:]  # "a " keeps a leading "the" in the key
        assert normalize_name(text) == normalize_name(text + "\u0301"), repr(text)
        assert normalize_name("\u2014" + text + "\u2019s") == normalize_name("-" + text + "'s"), repr(text)
        assert normalize_name("\u00df " + text) == f"ss {key}".strip(), repr(text)


@pytest.mark.parametrize("text", ["The Sam Bankman-Fried", "Beyoncé's  café", "O’Neill `quoted´", "Ｓｔｒａßｅ",
                                  "ﬁnance_team\tQ3", "İstanbul, «ΣΑΣ» — Ǆemal’s", "plain words, and (punctuation)."])
def test_every_word_of_the_key_is_within_the_folded_text(text):
    within = words_within(text)
    assert all(word in within for word in normalize_name(text).split())


def test_every_character_keys_as_classified_one_by_one():
    """The fast paths against the definition, for every character of the Basic Multilingual
    Plane in runs of 64 between ASCII letters: decompose, map each character by ``_mapped``
    (dropped, a space, or kept), fold the case, collapse the spaces."""
    def by_definition(text: str) -> str:
        mapped = "".join(_mapped(ch) or "" for ch in unicodedata.normalize("NFKD", text))
        key = " ".join(mapped.casefold().split())
        return key[4:] if key.startswith("the ") else key

    for start in range(0x80, 0x10000, 64):
        text = "the x" + "a".join(chr(c) for c in range(start, start + 64)) + "'s Q"
        key = normalize_name(text)
        assert key == by_definition(text), hex(start)
        within = words_within(text)
        assert all(word in within for word in key.split()), hex(start)
