import math

import pytest

from k2desk.store.db import Database
from k2desk.store.sparse import SparseIndex


@pytest.fixture
def sparse(tmp_path):
    db = Database(tmp_path / "c.k2db")
    index = SparseIndex(db, "text")
    index.add([1, 2, 3], ["apple banana", "apples", "cherry"])
    return index


def test_terms_use_the_index_tokenizer(sparse):
    assert sparse.terms("The Apples, CAFÉ runs!") == ["the", "appl", "cafe", "run"]


def test_sparse_cosine_hand_computed(sparse):
    # N = 3 chunks; df(appl) = 2, df(banana) = 1
    idf_a = math.log(4 / 3) + 1
    idf_b = math.log(4 / 2) + 1
    assert sparse.candidates("apple") in ([1, 2], [2, 1])
    scores = sparse.cosine("apple", {1: "apple banana", 2: "apples", 3: "cherry"})
    assert scores[2] == pytest.approx(1.0)
    assert scores[1] == pytest.approx(idf_a / math.sqrt(idf_a**2 + idf_b**2))
    assert scores[3] == 0.0


def test_statistics_follow_deletes(sparse):
    sparse.remove([2])
    assert sparse.size() == 2
    assert sparse.candidates("apple") == [1]
    idf_a = math.log(3 / 2) + 1  # N = 2, df = 1
    idf_b = math.log(3 / 2) + 1
    assert sparse.cosine("apple", {1: "apple banana"})[1] == pytest.approx(idf_a / math.sqrt(idf_a**2 + idf_b**2))


def test_query_without_terms(sparse):
    assert sparse.candidates("?!") == []
    assert sparse.cosine("?!", {1: "apple"}) == {1: 0.0}
