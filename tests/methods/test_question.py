"""What the question's wording says: its answer form, the outlets it names, its claims."""

import pytest

from k2desk.methods.question import answer_form, claims, mentioned_outlets, named_outlets, outlet_known, unknown_outlets

OUTLETS = ["TechCrunch", "The Verge", "Fortune", "Cnbc | World Business News Leader"]


@pytest.mark.parametrize("question, form", [
    ("Does the TechCrunch article claim that the tunnel opened in May?", "yes_no"),
    ("Did the lighthouse get a new lens in 2021?", "yes_no"),
    ("Between the report on May 2 and the report on May 9, was there a change in tone?", "yes_no"),
    ("After The Verge reported on the trial, did Fortune's report agree?", "yes_no"),
    ("Who leads the Lindenfeld Solar Cooperative?", "open"),
    ("Which company, covered by The Verge, is based in Tampere?", "open"),
    ("Does the article suggest a different timeline, or are they aligned in their statements?", "open"),
    ("Considering an article by The Guardian, which single letter starts the city's name?", "open"),
])
def test_answer_form(question, form):
    assert answer_form(question) == form


def test_named_outlets_are_publishers_not_topics():
    q = ("Considering the information from an article in The New York Times about a charity and a piece from "
         "The Guardian, and another on CNET discussing security, which city hosts it?")
    assert named_outlets(q) == ["New York Times", "Guardian", "CNET"]
    # a report *on* a company, a person or a month names a topic
    assert named_outlets("Between the TechCrunch report on Google's antitrust case and the report on Sam "
                         "Bankman-Fried published on November 3, was there a change?") == ["TechCrunch"]
    assert named_outlets("Who, according to a 'Fortune' article and a report by The Verge, left OpenAI?") == ["Fortune", "Verge"]


def test_unknown_outlets_need_a_collection_that_records_outlets():
    q = "Considering a CNBC article and a Bloomberg report on Mastercard, which letter starts the CEO's name?"
    assert outlet_known("CNBC", OUTLETS)  # "Cnbc | World Business News Leader"
    assert unknown_outlets(q, OUTLETS) == ["Bloomberg"]
    assert unknown_outlets(q, []) == []  # a folder of files records no outlet: nothing can be said
    assert unknown_outlets("Does the article by The Verge agree with the TechCrunch report?", OUTLETS) == []
    # a name a document's title holds is what a review is about, not its publisher
    review = "What score did the Steam Deck OLED review give the handheld?"
    assert unknown_outlets(review, OUTLETS) == ["Steam Deck OLED"]
    assert unknown_outlets(review, OUTLETS, in_titles=lambda name: name == "Steam Deck OLED") == []
    assert unknown_outlets(q, OUTLETS, in_titles=lambda name: name == "Steam Deck OLED") == ["Bloomberg"]


def test_claims_split_on_the_joins_and_carry_their_outlet():
    q = ("Does the TechCrunch article claim that the drill stopped in May, while the Fortune article reports a "
         "budget overrun, and does The Verge article also say the council approved it?")
    assert claims(q, OUTLETS) == [
        (["TechCrunch"], "The TechCrunch article claim that the drill stopped in May"),
        (["Fortune"], "The Fortune article reports a budget overrun"),
        (["The Verge"], "The Verge article also say the council approved it"),
    ]
    assert claims("Is the lighthouse older than the harbour?", OUTLETS) == [([], "The lighthouse older than the harbour")]
    assert claims("Between the Fortune report and the TechCrunch report, was there a change in tone?", OUTLETS) == [
        (["Fortune", "TechCrunch"], "Between the Fortune report and the TechCrunch report, was there a change in tone")]
    assert mentioned_outlets("as 'The Verge' and TechCrunch wrote", OUTLETS) == ["The Verge", "TechCrunch"]
