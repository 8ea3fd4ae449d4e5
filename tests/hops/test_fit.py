"""Whether a question read once was answered with something that fits it: declined, no amount or
time where one was asked, or the description's own noun in the answer (the entity in the middle)."""

import pytest

from k2desk import prompts
from k2desk.graph.nlp import load_pipeline
from k2desk.hops.fit import asks_amount, unfit, unfit_text
from k2desk.types import Answer
from k2desk.verdict import Signals, Verdict


@pytest.fixture(scope="module")
def nlp():
    return load_pipeline()


@pytest.mark.parametrize("question, amount", [
    ("How strong is the ale that takes over in October?", True),
    ("How many cars can the ferry carry?", True),
    ("How old is the head teacher of the school?", True),
    ("When was the array connected to the grid?", True),
    ("Since when has she been clinical director?", True),
    ("In which year was the co-operative founded?", True),
    ("What time did the holder of the record ride?", True),
    ("How does the model detect the accounts?", False),
    ("How often does the ferry run?", False),
    ("Who founded the sailing school?", False),
    ("How much had the company poured into OpenAI when Altman was ousted?", True),
    ("Which company bought the shipyard when its founder retired?", False),  # "when" inside: not what is asked
    ("When the changes proposed by the mayor were signed, which councillor was placed first?", False),
])
def test_what_asks_for_an_amount_or_a_time(nlp, question, amount):
    assert asks_amount(nlp(question)) is amount


def answer(text, declined=False):
    form = "abstain" if declined else "short"
    return Answer("q", "k2rag", text, [], {"reader": {"form": form}}, {},
                  verdict=Verdict("declined" if declined else "answered"))


def checked(text, missing):
    """A short answer read once, with the question's terms its support check did not find beside it."""
    return Answer("q", "k2rag", text, [], {"reader": {"form": "short"}}, {},
                  verdict=Verdict(signals=Signals(support=0.5, missing=missing)))


def test_an_answer_that_does_not_fit(nlp):
    ale = nlp("How strong is the ale that takes over from Tanners Pale in October?")
    assert unfit(ale, answer("Lantern Ale"), nlp) == "no amount"
    assert unfit(ale, answer("4.8% ABV"), nlp) == ""
    assert unfit(ale, answer(prompts.NOT_IN_DOCUMENTS, declined=True), nlp) == "declined"
    school = nlp("Who founded the sailing school whose keelboat Marguerite is being refitted?")
    assert unfit(school, answer("Skellmouth Sailing School"), nlp, "school") == "the description"
    assert unfit(school, answer("Hester Quiller"), nlp, "school") == ""
    year = nlp("Since what year has the treasurer sat on the town council?")
    assert unfit_text(year, "answered", "since 2017", nlp) == ""
    assert unfit_text(nlp("When did it open?"), "cautioned", "in May", nlp) == ""  # a month is a time


def test_an_answer_whose_sentences_hold_only_the_description(nlp):
    # the support check's missing terms: outside the description ("run") and its own noun
    # ("shop"): the answer is what the description names, not what the question asks of it
    from k2desk.methods.support import lemmatized

    def terms(text):  # the index's terms, near enough: lower-case words, an "s" off
        return [w.lower().rstrip("s") for w in lemmatized(text).replace("'", " ").split()]

    question = nlp("Who runs the shop where tickets for the spring concert are sold?")
    description = "the shop where tickets for the spring concert are sold"
    shed = checked("Gribble's Fish Shed", ["run", "shop"])
    assert unfit(question, shed, nlp, "shop", description, terms) == "the description's answer"
    # lacking words of the description itself: its sentence is about the answer, not the description
    right = checked("Annis Gribble", ["ticket", "concert"])
    assert unfit(question, right, nlp, "shop", description, terms) == ""
    nothing = checked("Annis Gribble", [])
    assert unfit(question, nothing, nlp, "shop", description, terms) == ""
