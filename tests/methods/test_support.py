"""'Not in your documents' from the evidence (methods/support.py), on the README's sample
documents in a real collection (SQLite, FTS5, ONNX embeddings; no model)."""

import pytest

from k2desk.methods.support import (
    answer_support,
    asked_together,
    coverage,
    date_not_amount,
    lemmatized,
    linked_support,
    list_items,
    list_support,
    meaning_support,
    names_only_asked,
    question_terms,
    sentence_windows,
)
from k2desk.verdict import DEFAULTS

COVERAGE_MIN, SUPPORT_MIN = DEFAULTS.coverage_min, DEFAULTS.support_min
TOGETHER = 0.8  # a passage says what was asked: the share of its terms one window holds together


@pytest.fixture(scope="module")
def retriever(sample_engine):
    return sample_engine.method("evidence").ctx.retriever("text")


def passages(retriever, question):
    return retriever.evidence_search(question, k=10)


def test_irregular_forms_meet_their_lemma(retriever):
    assert "lead" in lemmatized("The cooperative is led by its chair").split()
    assert retriever.sparse.terms_of(lemmatized("was built in 1978"))[1] == retriever.sparse.terms_of("build")[0]
    assert question_terms("Who is the mayor of Altmoor?", retriever.sparse) == ["mayor", "altmoor"]


def test_a_hyphenated_compound_meets_the_word_written_whole(retriever):
    # the ferry page has "longest-serving captain"; a person may type it as one word
    question = "Who was the ferry's longestserving captain?"
    assert coverage(question, passages(retriever, question), retriever.sparse).score == 1.0
    s = answer_support(question, "Ulrich Sandmeier", passages(retriever, question), retriever.sparse)
    assert s.score == 1.0 and s.found_answer
    # "get" says how the question asks, like "give" or "find": the passages need not use it
    assert question_terms("Where does the ferry get its power from?", retriever.sparse) == ["ferri", "power"]


def test_a_question_whose_attribute_no_passage_mentions_is_not_covered(retriever):
    question = "Who is the mayor of Altmoor?"
    c = coverage(question, passages(retriever, question), retriever.sparse)
    assert c.score < COVERAGE_MIN and c.missing == ["mayor"]
    question = "Who leads the Lindenfeld Solar Cooperative?"
    assert coverage(question, passages(retriever, question), retriever.sparse).score == 1.0


def test_an_answer_away_from_the_questions_subject_is_not_supported(retriever):
    question = "How much did the Margarethe II cost to build?"
    hits = passages(retriever, question)
    assert coverage(question, hits, retriever.sparse).score >= COVERAGE_MIN  # every word is somewhere …
    s = answer_support(question, "2 euros", hits, retriever.sparse)
    assert s.found_answer and s.score < SUPPORT_MIN  # … but not beside the fare
    assert "margareth" in s.missing


def test_an_answer_beside_its_question_is_supported(retriever):
    question = "Who leads the Lindenfeld Solar Cooperative?"
    hits = passages(retriever, question)
    s = answer_support(question, "Henrike Albers", hits, retriever.sparse)
    assert s.score >= SUPPORT_MIN and s.missing == ["lindenfeld"]  # "solar", "cooperative": its file name
    # the model's sentence repeats the question: only its own words are looked for
    assert answer_support(question, "Henrike Albers leads the Lindenfeld Solar Cooperative.", hits,
                          retriever.sparse).score == s.score
    question = "When was the telescope installed?"
    assert answer_support(question, "1987", passages(retriever, question), retriever.sparse).score >= SUPPORT_MIN


def test_a_two_hop_answer_is_supported_through_the_name_that_joins_its_sentences(retriever):
    # the chair's sentence names neither the ferry nor its drive; the ferry page says the drive is
    # charged by the Lindenfeld Solar Cooperative, which the chair's passage names
    question = "Who chairs the cooperative that will charge the electric drive of the Altmoor-Weyden river ferry?"
    hits = passages(retriever, question)
    direct = answer_support(question, "Henrike Albers", hits, retriever.sparse)
    assert direct.score < SUPPORT_MIN and {"ferri", "charg", "drive"} <= set(direct.missing)
    description = "the cooperative that will charge the electric drive of the Altmoor-Weyden river ferry"
    joined = linked_support(question, "Henrike Albers", direct, hits, retriever.sparse, description)
    assert joined.score >= SUPPORT_MIN and not {"ferri", "charg", "drive"} & set(joined.missing)
    assert any("Lindenfeld" in name for name in joined.linked) and joined.held == direct.held
    # the answer's own name is no link: the cooperative's windows are the middle entity's own
    middle = answer_support(question, "Lindenfeld Solar Cooperative", hits, retriever.sparse)
    assert not any("Lindenfeld" in name for name in
                   linked_support(question, "Lindenfeld Solar Cooperative", middle, hits, retriever.sparse, description).linked)
    # what is asked of the answer ("chairs") must stand beside it: a link brings only the description's words
    other = "Who founded the cooperative that will charge the electric drive of the Altmoor-Weyden river ferry?"
    assert "found" in linked_support(other, "Henrike Albers", answer_support(other, "Henrike Albers", hits, retriever.sparse),
                                     hits, retriever.sparse, description).missing


def test_a_number_the_question_names_must_still_stand_beside_the_answer(retriever):
    question = "What dividend did the cooperative pay in 2022?"
    hits = passages(retriever, question)
    direct = answer_support(question, "3.5%", hits, retriever.sparse)
    assert "2022" in direct.missing_values
    assert "2022" in linked_support(question, "3.5%", direct, hits, retriever.sparse, "the cooperative in 2022").missing_values


def test_an_answer_the_passages_do_not_hold_has_no_support(retriever):
    question = "Who leads the Lindenfeld Solar Cooperative?"
    s = answer_support(question, "Margit Oberholzer", passages(retriever, question), retriever.sparse)
    assert (s.score, s.found_answer) == (0.0, False)
    assert answer_support(question, "the cooperative", passages(retriever, question), retriever.sparse).score == 0.0


def test_an_answers_number_must_stand_whole_in_the_window(retriever):
    question = "What dividend did the cooperative pay in 2022?"
    hits = passages(retriever, question)
    # "3.2 megawatts" and "2022" stand together, "3.5 percent" two paragraphs on: "3.5" is only beside 2023
    s = answer_support(question, "3.5%", hits, retriever.sparse)
    assert s.found_answer and "2022" in s.missing
    assert answer_support(question, "3.2%", hits, retriever.sparse).found_answer is True  # "3.2 megawatts" holds it
    assert answer_support(question, "4.5%", hits, retriever.sparse).found_answer is False


def test_a_list_answer_is_read_item_by_item():
    assert list_items("Henrike Albers, Jonas Petrowski and Margit Oberholzer") == [
        "Henrike Albers", "Jonas Petrowski", "Margit Oberholzer"]
    assert list_items("- grain store\n- gravel pit") == ["grain store", "gravel pit"]
    assert list_items("1. grain store\n2. gravel pit.") == ["grain store", "gravel pit"]
    assert list_items("3.5 percent; 2.1 percent") == ["3.5 percent", "2.1 percent"]


def test_a_list_is_supported_as_far_as_its_items_are(retriever):
    question = "Who are the chair and the treasurer of the Lindenfeld Solar Cooperative?"
    hits = passages(retriever, question)
    both = list_support(question, "Henrike Albers, Jonas Petrowski", hits, retriever.sparse)
    one = answer_support(question, "Henrike Albers", hits, retriever.sparse)
    assert both.found_answer and both.score >= SUPPORT_MIN
    # an item the passages do not hold counts 0: half the support of the list with it
    half = list_support(question, "Henrike Albers, Margit Oberholzer", hits, retriever.sparse)
    assert half.score == pytest.approx(one.score / 2)
    none = list_support(question, "Margit Oberholzer and Ulla Kestrel", hits, retriever.sparse)
    assert (none.score, none.found_answer) == (0.0, False)


def test_a_number_in_words_holds_the_answer_in_digits(retriever):
    # the ferry page says "The crossing takes seven minutes."; the reader may write "7 minutes"
    question = "How long does the crossing take?"
    s = answer_support(question, "7 minutes", passages(retriever, question), retriever.sparse)
    assert s.found_answer and s.score == 1.0
    assert not answer_support(question, "8 minutes", passages(retriever, question), retriever.sparse).found_answer


def test_the_meaning_of_the_windows_that_hold_an_answer(retriever, sample_engine):
    embed = sample_engine.method("evidence").ctx.embedder.embed
    question = "Who leads the Lindenfeld Solar Cooperative?"
    right = answer_support(question, "Henrike Albers", passages(retriever, question), retriever.sparse)
    near = "What is the mayor of Altmoor's name?"  # the name is there, beside nothing about a mayor
    miss = answer_support(near, "Henrike Albers", passages(retriever, near), retriever.sparse)
    assert right.held and miss.held
    assert meaning_support(question, right, embed) > meaning_support(near, miss, embed) + 0.2
    assert meaning_support(question, answer_support(question, "Oskar", [], retriever.sparse, []), embed) is None


def test_a_question_in_other_words_is_close_in_meaning_to_a_passage(retriever, sample_engine):
    """The lexical coverage misses "in charge", "energy", "co-op"; the embedder finds the
    cooperative's sentences close (the calibration's coverage_meaning_min); a question about a mayor the
    documents never name stays far."""
    COVERAGE_MEANING_MIN = DEFAULTS.coverage_meaning_min
    from k2desk.methods.support import meaning_coverage, sentence_windows

    embed = sample_engine.method("evidence").ctx.embedder.embed
    for question, close in (("Who is in charge of the Lindenfeld energy co-op?", True),
                            ("Who is the mayor of Altmoor?", False)):
        hits = passages(retriever, question)
        windows = sentence_windows(hits, retriever.sparse)
        assert coverage(question, hits, retriever.sparse, windows).score < COVERAGE_MIN
        assert (meaning_coverage(question, windows, embed) >= COVERAGE_MEANING_MIN) is close


def test_the_question_words_are_english_question_words_not_a_data_sets(retriever):
    from k2desk.methods.support import QUESTION_WORDS

    # the words one benchmark's questions used ("as reported in an article by …") count like any other
    assert not {"article", "reported", "coverage", "outlet", "publication", "company", "individual"} & QUESTION_WORDS
    assert question_terms("Who reported the ferry's new engine in an article?", retriever.sparse) == \
        ["report", "ferri", "new", "engin", "articl"]


def test_the_noun_a_wh_word_opens_names_the_kind_of_answer(retriever):
    from k2desk.methods.support import answer_types

    assert answer_types("Which company quoted for the hearing booth?") == {"company"}
    assert answer_types("what language pairs are explored?") == {"pairs"}  # the head noun, not its modifier
    assert answer_types("Who is the mayor of Altmoor?") == frozenset()  # asked for, not a kind: it must be there
    # counted where the passages have it ("the Brenner shipyard"), excused where they do not
    question = "Which company built the Margarethe II?"
    assert coverage(question, passages(retriever, question), retriever.sparse).score == 1.0
    question = "Which company runs the observatory's radio telescope?"  # "radio" still counts against it
    assert coverage(question, passages(retriever, question), retriever.sparse).missing == ["radio"]


def test_a_passage_holds_an_answerable_questions_terms_together_and_not_a_near_misss(retriever):
    def together(question):
        return asked_together(question, retriever.sparse, sentence_windows(passages(retriever, question), retriever.sparse))

    assert together("Who was the ferry's longest-serving captain?") >= TOGETHER
    # every word is somewhere in the passages, but no sentence names the ship's building cost
    assert together("How much did the Margarethe II cost to build?") < TOGETHER


def test_a_who_answer_naming_only_the_questions_names_is_no_answer():
    assert names_only_asked("Who was mayor before Hedda Marchbank?", "Hedda Marchbank")
    assert names_only_asked("Who founded the Wendlecote Wheelers?", "The Wendlecote Wheelers were founded in 1952.")
    assert names_only_asked("Who's Lowri's manager?", "Lowri")
    assert not names_only_asked("Who lit the first lantern?", "Hedda Marchbank")
    assert not names_only_asked("Who won the 2024 hill climb?", "Brume Valley Hill Climb")  # "Brume Valley" is new
    assert not names_only_asked("Who lit the first lantern?", "the mayor")  # no name: left to the other checks
    assert not names_only_asked("When was Hedda Marchbank elected?", "Hedda Marchbank")  # not a who-question


def test_a_bare_number_that_its_sentence_makes_a_date_is_no_amount():
    """"1978" in "was built in 1978" is a year (spaCy's entities), no answer to how much it cost;
    "2000" in "About 2000 people attended" is an amount; a number with its unit, or of other than
    four digits, is left alone."""
    built = "The current boat, the Margarethe II, was built in 1978 at the Brenner shipyard."
    assert date_not_amount("1978", built)
    assert not date_not_amount("2000", "About 2000 people attended the fair.")
    assert not date_not_amount("18,600", "The booth will cost 18,600 euros.")
    assert not date_not_amount("12", "Twelve marshals, 12 in all, start on 12 October.")  # no year
    assert not date_not_amount("1978 euros", built) and not date_not_amount("1978", "")
