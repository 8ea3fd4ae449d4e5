import math

import pytest

from k2desk.store.sparse import SparseIndex


@pytest.fixture
def sparse(backend):
    db = backend.open()
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


def test_the_statistics_follow_what_another_connection_commits(backend):
    reader, writer = SparseIndex(backend.open(), "text"), SparseIndex(backend.open(), "text")
    writer.add([1, 2], ["harbour lamp", "harbour office"])
    assert reader.statistics().df["harbour"] == 2 and reader.statistics().n == 2
    assert reader.statistics() is reader.statistics()  # read once per state of the index
    writer.add([3], ["lamp room"])
    assert reader.statistics().df["lamp"] == 2 and reader.statistics().n == 3
    writer.remove([1])
    assert reader.statistics().df["lamp"] == 1 and reader.idf({"lamp"})["lamp"] == pytest.approx(math.log(3 / 2) + 1)


def test_bm25_matches_the_rarest_terms_that_fit_the_posting_budget(backend):
    index = SparseIndex(backend.open(), "text")
    texts = [f"the harbour report number {i}" for i in range(40)] + ["the beacon keeper", "the beacon lens"]
    index.add(list(range(1, 43)), texts)
    query = "the beacon keeper of the harbour"
    assert index.match_terms(query, None) == ["keeper", "beacon", "harbour", "the"]  # rarest first
    assert index.match_terms(query, 45) == ["keeper", "beacon", "harbour"]  # 1 + 2 + 40 postings
    assert index.match_terms(query, 1) == ["keeper"] and index.match_terms("the", 1) == ["the"]  # the rarest always
    budgeted, every = index.bm25(query, 5, budget=3), index.bm25(query, 5, budget=None)
    assert [i for i, _ in budgeted] == [41, 42] and [i for i, _ in every][:2] == [41, 42]
    assert index.match_terms("zeppelin", None) == [] and index.bm25("zeppelin") == []


def test_match_phrases_are_stems_which_fts5_stems_again(sparse):
    """Kept as measured (SparseIndex.match_terms): 'accused' -> 'accus' -> 'accu' finds nothing."""
    sparse.add([4], ["he was accused by the lighthouse keeper"])
    assert sparse.terms("accused") == ["accus"] and sparse.bm25("accused lighthouse") == []
    assert [i for i, _ in sparse.bm25("accused keeper")] == [4]
    assert [i for i, _ in sparse.bm25("apples")] in ([1, 2], [2, 1])


def test_a_collection_made_again_at_the_same_path_gets_its_own_statistics(backend):
    old = SparseIndex(backend.open(), "text")
    old.add([1], ["harbour lamp"])
    assert old.statistics().df == {"harbour": 1, "lamp": 1}
    old.db.close()
    backend.drop()
    new = SparseIndex(backend.open(), "text")
    new.db.execute("DELETE FROM meta WHERE key LIKE 'generation:%'")  # as a collection built before the token
    new._insert([1], ["orchard"])  # a row written without a new token
    assert new.statistics().df == {"orchard": 1}


def test_a_rare_term_outranks_a_common_one_and_within_keeps_to_its_chunks(backend):
    index = SparseIndex(backend.open(), "text")
    texts = [f"harbour harbour notes {i}" for i in range(1, 21)] + ["beacon notes"]
    index.add(list(range(1, 22)), texts)
    ranked = index.bm25("beacon harbour", 5, budget=None)
    assert ranked[0][0] == 21 and all(score > 0 for _, score in ranked)  # one rare term beats two common ones
    assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)
    assert [i for i, _ in index.bm25("beacon harbour", 10, budget=None, within=[3, 21, 99])] == [21, 3]
    assert index.bm25("beacon", within=[]) == [] and index.bm25("beacon", within=[4]) == []
