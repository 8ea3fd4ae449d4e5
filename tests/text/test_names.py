"""The merge key of a name (k2desk.text.names.normalize_name)."""

from __future__ import annotations

import pytest

from k2desk.text.names import normalize_name


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


def test_the_ascii_path_and_the_unicode_path_agree_on_every_ascii_character():
    """Plain ASCII takes a byte-table path; an accent anywhere sends the same text through the
    Unicode path (the accent itself is dropped), which must give the same key."""
    every = "".join(chr(c) for c in range(128))
    for text in [every, *every, "Mary-Jane O'Hara (CEO) & co. #1 @x_y"]:
        assert normalize_name(text) == normalize_name(text + "\u0301"), repr(text)
