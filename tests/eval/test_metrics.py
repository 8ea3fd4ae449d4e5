"""Each metric pinned on hand-computed examples."""

import math

import pytest

from k2desk.eval import metrics as M
from k2desk.prompts import NO_SUCH_DOCUMENT, NOT_IN_DOCUMENTS


def test_normalize_answer_is_squad():
    assert M.normalize_answer("The  Sam Bankman-Fried!") == "sam bankmanfried"
    assert M.normalize_answer("An apple, a pear & the fig.") == "apple pear fig"
    assert M.normalize_answer("I don’t know") == "i dont know"  # Unicode apostrophe too
    assert M.normalize_answer(None) == ""


def test_exact_match_ignores_case_and_punctuation():
    assert M.exact_match("Yes", "yes.") == 1.0
    assert M.exact_match("Insufficient information", "Insufficient information.") == 1.0
    assert M.exact_match("no", "No, he did not") == 0.0
    assert M.exact_match("the Google", "Google") == 1.0


def test_token_f1_by_hand():
    # "sam bankmanfried" vs "sam bankman fried": common {sam} → P = 1/2, R = 1/3, F1 = 2PR/(P+R) = 0.4
    assert M.token_f1("Sam Bankman-Fried", "Sam Bankman Fried") == pytest.approx(0.4)
    assert M.token_f1("Sam Bankman-Fried.", "sam bankman-fried") == 1.0
    # counts matter: "google google apple" vs "google": common 1, P = 1/3, R = 1, F1 = 0.5
    assert M.token_f1("google google apple", "google") == pytest.approx(0.5)
    # "no he did not" vs "no": P = 1/4, R = 1, F1 = 0.4
    assert M.token_f1("No, he did not", "no") == pytest.approx(0.4)
    assert M.token_f1("Microsoft", "Google") == 0.0
    assert M.token_f1("", "") == 1.0 and M.token_f1("", "x") == 0.0
    assert M.token_f1("the", "an") == 1.0  # both empty after normalization


def test_word_overlap_accuracy():
    assert M.word_overlap("Alphabet's Google unit", "Google")
    assert not M.word_overlap("Microsoft", "Google")
    assert not M.word_overlap("the", "the")  # articles are not words after normalization


def test_yes_no_polarity_and_casing():
    assert M.gold_polarity("Yes") == "yes" and M.gold_polarity("no") == "no"
    assert M.gold_polarity("Yes, it did") == "yes" and M.gold_polarity("Google") is None
    j = M.judge("No, he did not", "no")
    assert (j.kind, j.correct, j.em, j.hallucinated) == ("yes_no", True, 0.0, False)
    j = M.judge("yes.", "Yes")
    assert j.correct and j.em == 1.0
    assert M.judge("The answer is Yes.", "yes").correct
    # polarity = the FIRST yes/no word of the prediction
    assert M.prediction_polarity("There is no doubt: yes") == "no"
    assert not M.judge("There is no doubt: yes", "Yes").correct
    j = M.judge("Yes", "no")
    assert not j.correct and j.hallucinated
    # a Yes/No question answered without a yes/no word is wrong, even with word overlap
    assert not M.judge("Google did", "Yes").correct


def test_abstention_phrases():
    for pred in ("Insufficient information.", "I don't know.", "I don’t know", "The answer cannot be determined.",
                 "I am sorry, I could not find an answer to your question.", "", "   ", "Not enough information.",
                 NOT_IN_DOCUMENTS, NO_SUCH_DOCUMENT.format(target="the ferry report")):
        assert M.is_abstention(pred), pred
    for pred in ("Google", "no", "Sam Altman", "The informant knows"):
        assert not M.is_abstention(pred), pred


def test_null_question():
    ok = M.judge("Insufficient information.", "Insufficient information.")
    assert (ok.kind, ok.correct, ok.abstained, ok.hallucinated, ok.em) == ("null", True, True, False, 1.0)
    other_words = M.judge("I don't know", "Insufficient information.")
    assert other_words.correct and other_words.em == 0.0 and not other_words.hallucinated
    wrong = M.judge("Sam Altman", "Insufficient information.")
    assert (wrong.correct, wrong.abstained, wrong.hallucinated, wrong.em, wrong.f1) == (False, False, True, 0.0, 0.0)


def test_hallucination_versus_abstention_counts():
    cases = [  # (prediction, gold): correct / hallucinated / abstained by hand
        ("Google", "Google"),  # correct
        ("Sam Altman", "Sam Bankman-Fried"),  # overlap "sam": correct
        ("Microsoft", "Google"),  # hallucinated
        ("Yes", "No"),  # hallucinated
        ("Insufficient information.", "Google"),  # abstained, not correct, not hallucinated
        ("Insufficient information.", "Insufficient information."),  # abstained and correct
    ]
    js = [M.judge(p, g) for p, g in cases]
    assert [j.correct for j in js] == [True, True, False, False, False, True]
    assert [j.hallucinated for j in js] == [False, False, True, True, False, False]
    assert [j.abstained for j in js] == [False, False, False, False, True, True]
    n = len(js)
    assert sum(j.hallucinated for j in js) / n == pytest.approx(2 / 6)
    assert sum(j.abstained for j in js) / n == pytest.approx(2 / 6)
    # every question is exactly one of: correct, hallucinated, abstained on an answerable question
    assert all(j.correct + j.hallucinated + (j.abstained and not j.correct) == 1 for j in js)
    # an abstention on an answerable question is never correct, even with a shared word
    assert not M.judge("I don't know Google", "Google").correct


def test_quartiles_and_percentiles():
    q = M.quartiles([10, 1, 2, 3, 4, 5, 6, 7, 8, 9])  # linear: Q1 at 2.25 → 3.25, Q3 at 6.75 → 7.75
    assert q == {"q1": 3.25, "mean": 5.5, "median": 5.5, "q3": 7.75}
    assert M.percentile(range(1, 11), 90) == pytest.approx(9.1)
    assert M.quartiles([0.5]) == {"q1": 0.5, "mean": 0.5, "median": 0.5, "q3": 0.5}
    assert all(math.isnan(v) for v in M.quartiles([]).values())
    assert M.quartiles([1.0, None, float("nan"), 3.0])["mean"] == 2.0
    assert M.std([0.9, 0.2]) == pytest.approx(0.7 / math.sqrt(2))
    assert math.isnan(M.std([0.9]))


def test_answer_similarity_is_cosine():
    assert M.answer_similarity([1, 0], [1, 1]) == pytest.approx(1 / math.sqrt(2))
    assert M.answer_similarity([0.6, 0.8], [0.6, 0.8]) == pytest.approx(1.0)
    assert M.answer_similarity([1, 0], [-2, 0]) == pytest.approx(-1.0)
    assert M.answer_similarity([0, 0], [1, 0]) == 0.0


def test_multiple_choice_mapping():
    options = ["Paris", "London", "Berlin"]
    assert M.choose_option("london.", options) == 1  # exact after normalization
    assert M.choose_option("B", options) == 1  # option letter
    assert M.choose_option("(C)", options) == 2
    assert M.choose_option("A) Paris", options) == 0
    assert M.choose_option("It is the city of London, England", options) == 1  # highest token F1
    assert M.choose_option("A city", options) is None  # "A" is an article here, not a letter
    assert M.choose_option("D", options) is None
    j = M.judge("B) London", "London", options, 1)
    assert (j.kind, j.chosen, j.correct) == ("choice", 1, True)
    j = M.judge("Paris", "London", options, 1)
    assert (j.chosen, j.correct, j.hallucinated) == (0, False, True)
    j = M.judge("Insufficient information", "London", options, 1)
    assert (j.correct, j.abstained, j.hallucinated) == (False, True, False)


def test_content_words_and_gold_token_recall():
    assert M.content_words("The University of Qatar") == ["university", "qatar"]  # articles and "of" go
    assert M.content_words("Sam Bankman-Fried") == ["sam", "bankman", "fried"]  # a dash reads as a space
    assert M.content_words("April 25 , 2018") == ["april", "25", "2018"]  # numbers are content words
    assert M.content_words("who is it") == []
    # recall: the share of the gold's distinct content words among the prediction's words
    assert M.gold_token_recall("Abdelkarim Erradi University", "Qatar University") == 0.5
    assert M.gold_token_recall("Claudia Wells", "Jennifer Parker") == 0.0
    assert M.gold_token_recall("2018", "April 25 , 2018") == pytest.approx(1 / 3)
    assert M.gold_token_recall("relu and tanh", "relu, selu, tanh") == pytest.approx(2 / 3)
    # a gold without content words falls back to exact match
    assert M.gold_token_recall("It is.", "it is") == 1.0 and M.gold_token_recall("it is so", "it is") == 0.0


@pytest.mark.parametrize("pred, gold, overlap, strict", [
    ("Abdelkarim Erradi University", "Qatar University", True, False),  # one shared word is not the answer
    ("Qatar University, in Doha", "Qatar University", True, True),  # extra words are allowed
    ("the University of Qatar", "Qatar University", True, True),  # order and function words do not matter
    ("Claudia Wells", "Jennifer Parker", False, False),  # the actress, not the character
    ("Jennifer", "Jennifer Parker", True, False),
    ("13 episodes", "13", True, True),
    ("10", "13", False, False),
    ("7", "seven", False, True),  # a number word is the number (overlap compares the words as written)
    ("Seven episodes", "7", False, True),
    ("7", "seventh season", False, False),
    ("2018", "April 25 , 2018", True, False),  # the year alone is not the date
    ("It started on April 25, 2018.", "April 25 , 2018", True, True),
    ("1,000 people", "1000", True, True),  # a thousands separator is punctuation
    ("Sam Bankman Fried", "Sam Bankman-Fried", True, True),  # hyphen against space
    ("Sam Bankman–Fried", "Sam Bankman-Fried", True, True),  # en dash against hyphen
    ("Bankman-Fried", "Sam Bankman Fried", False, False),  # "sam" missing; overlap: "bankmanfried" is no gold word
    ("Sam Altman", "Sam Bankman-Fried", True, False),
    ("3.5%", "3.5 percent", True, True),  # a percent sign is the word
    ("3.5 per cent", "3.5%", True, True),
    ("3.5", "3.5 percent", True, False),  # the number alone is not the share
    ("Clara Weissmüller", "Dr. Clara Weissmüller", True, True),  # a title before the name is not asked for
    ("Dr. Weissmüller", "Dr. Clara Weissmüller", True, False),
    ("It is.", "it is", True, True),  # no content word in the gold: exact match
    ("it is so", "it is", True, False),
])
def test_strict_against_word_overlap(pred, gold, overlap, strict):
    j = M.judge(pred, gold)
    assert (j.kind, j.correct, j.strict) == ("open", overlap, strict)
    assert j.hallucinated == (not overlap)  # the old verdicts keep their names


def test_strict_equals_the_old_rule_off_open_questions():
    cases = [("No, he did not", "no"), ("Yes", "no"), ("Google did", "Yes"),  # yes/no: polarity
             ("Insufficient information.", "Insufficient information."), ("Sam Altman", "Insufficient information."),  # null
             ("I don't know Google", "Google")]  # an abstention on an answerable question: wrong under both
    for pred, gold in cases:
        j = M.judge(pred, gold)
        assert j.strict == j.correct, (pred, gold)
    options = ["Paris", "London", "Berlin"]
    for pred in ("B) London", "Paris", "It is the city of London, England"):
        j = M.judge(pred, "London", options, 1)
        assert j.strict == j.correct
    assert M.judge("yes.", "Yes").recall == 1.0 and M.judge("Insufficient information.", "Google").recall == 0.0
