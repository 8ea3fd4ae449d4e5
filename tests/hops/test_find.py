"""Bridges found in a question's grammar (spaCy's parse): the innermost description and the
question that names it; none where the description is what the question asks for, in yes/no
questions, or in a question of several parts."""

import pytest

from k2desk.graph.nlp import load_pipeline
from k2desk.hops.find import clause_description, find_bridge, substitute


@pytest.fixture(scope="module")
def nlp():
    return load_pipeline()


@pytest.mark.parametrize("question, description, hop, rest", [
    ("Who founded the company that salvaged the wreck?", "the company that salvaged the wreck",
     "Which company salvaged the wreck?", "Who founded X?"),
    ("Who runs the institute whose vessel found the reef?", "the institute whose vessel found the reef",
     "Which institute's vessel found the reef?", "Who runs X?"),
    ("Where is the headquarters of the company that Acme acquired?", "the company that Acme acquired",
     "Which company did Acme acquire?", "Where is the headquarters of X?"),
    ("Which company acquired the firm founded by Hanna Ostrowski?", "the firm founded by Hanna Ostrowski",
     "Which firm was founded by Hanna Ostrowski?", "Which company acquired X?"),
    ("Who is the founder of the company that salvaged the wreck?", "the company that salvaged the wreck",
     "Which company salvaged the wreck?", "Who is the founder of X?"),
    # spaCy hangs "born" on the clause's object; it belongs to the question
    ("In which town was the captain of the ship that rescued the crew born?", "the ship that rescued the crew",
     "Which ship rescued the crew?", "In which town was the captain of X born?"),
    ("When was the largest array of the cooperative that will charge the ferry connected to the grid?",
     "the cooperative that will charge the ferry", "Which cooperative will charge the ferry?",
     "When was the largest array of X connected to the grid?"),
    ("Who runs the shop where the tickets are sold?", "the shop where the tickets are sold",
     "What is the shop where the tickets are sold?", "Who runs X?"),
    ("Who chairs the cooperative chosen to charge the ferry's new drive?",
     "the cooperative chosen to charge the ferry's new drive", "Which cooperative was chosen to charge the ferry's new drive?",
     "Who chairs X?"),
])
def test_the_innermost_description_and_the_question_that_names_it(nlp, question, description, hop, rest):
    bridge = find_bridge(nlp(question))
    assert (bridge.description, bridge.question) == (description, hop)
    assert substitute(question, bridge, "X") == rest


@pytest.mark.parametrize("question", [
    "Which company salvaged the wreck?",  # the described thing is what is asked for
    "Who is the company that salvaged the wreck?",
    "Who leads the Lindenfeld Solar Cooperative?",
    "Where is the headquarters of Nordsee Bergung?",
    "Was the founder of Acme older than the founder of Brask?",  # yes/no: asked as it stands
    "How many cars can the ferry carry?",
    "Who founded Nordsee Bergung, which salvaged the wreck?",  # named: the clause describes, it does not pick out
    "Who made the lens, and who leads the company that acquired it?",  # a pronoun inside: no question of its own
    "Who is the individual who founded the company that built the ship, sailed it to Norway, and later sold it"
    " to the firm that repaired it?",  # several parts: more clauses than a chain of two descriptions
])
def test_no_bridge(nlp, question):
    assert find_bridge(nlp(question)) is None


def test_the_of_phrase_around_an_earlier_answer_is_the_next_hop(nlp):
    question = "Where was the founder of Nordsee Bergung born?"
    assert find_bridge(nlp(question)) is None  # named in the question: the reader reads it at once
    bridge = find_bridge(nlp(question), resolved=["Nordsee Bergung"])
    assert (bridge.description, bridge.kind) == ("the founder of Nordsee Bergung", "of")
    assert substitute(question, bridge, "Karl Imhoff") == "Where was Karl Imhoff born?"
    # what the question asks for, or an object that may be an event: no hop
    for asked in ("Who is the managing director of Nordsee Bergung?", "Who won the 2023 championship of Nordsee Bergung?"):
        assert find_bridge(nlp(asked), resolved=["Nordsee Bergung"]) is None


def test_loose_reads_an_of_or_possessive_phrase_around_a_name(nlp):
    # only where the question read once did not fit its answer: then a name's "of" or possessive
    # phrase, on the subject or the object, is a hop too
    question = "Who voices Candace Flynn's best friend in Phineas and Ferb?"
    assert find_bridge(nlp(question)) is None
    bridge = find_bridge(nlp(question), loose=True)
    assert (bridge.description, bridge.question, bridge.noun) == (
        "Candace Flynn's best friend", "Who or what is Candace Flynn's best friend?", "friend")
    assert substitute(question, bridge, "Stacy Hirano") == "Who voices Stacy Hirano in Phineas and Ferb?"
    # the relative clause found either way carries its noun
    assert find_bridge(nlp("Who founded the sailing school whose keelboat was refitted?"), loose=True).noun == "school"
    # still nothing in a question that asks for the phrase, names nothing in it, or is yes/no
    for asked in ("Who is the founder of Nordsee Bergung?", "Who founded the company?",
                  "Was the founder of Acme older than the founder of Brask?"):
        assert find_bridge(nlp(asked), loose=True) is None, asked


@pytest.mark.parametrize("question, description, hop, rest", [
    # spaCy splits "co-operative" and hangs the clause on the question's verb
    ("In which year was the co-operative that runs the harbour ferry founded?",
     "the co-operative that runs the harbour ferry", "Which co-operative runs the harbour ferry?",
     "In which year was X founded?"),
    # "that" tagged a conjunction
    ("Who is the head of the clinic that the spring collection went to?", "the clinic that the spring collection went to",
     "What is the clinic that the spring collection went to?", "Who is the head of X?"),
    # the question's "who" read as a relativizer after the comma: the question read from it, the
    # hop asked in its frame
    ("In the film of Moby Dick, who played the sailor who carries the harpoon back to the ship?",
     "the sailor who carries the harpoon back to the ship",
     "In the film of Moby Dick, which sailor carries the harpoon back to the ship?", "In the film of Moby Dick, who played X?"),
    # the question's own predicate after the clause, and the clause's "its" its own noun's
    ("In which city is the publisher that signed a deal with Acme to license its archive based?",
     "the publisher that signed a deal with Acme to license its archive",
     "Which publisher signed a deal with Acme to license its archive?", "In which city is X based?"),
    ("Since what year has the treasurer of the club whose 2023 raffle went towards the school's new minibus sat on"
     " the parish council?", "the club whose 2023 raffle went towards the school's new minibus",
     "Which club's 2023 raffle went towards the school's new minibus?",
     "Since what year has the treasurer of X sat on the parish council?"),
    ("How much does a return ticket cost on the ferry whose first captain was Ulrich Sandmeier?",
     "the ferry whose first captain was Ulrich Sandmeier", "Which ferry's first captain was Ulrich Sandmeier?",
     "How much does a return ticket cost on X?"),
])
def test_loose_reads_a_relative_clause_the_parse_hung_elsewhere_from_the_tags(nlp, question, description, hop, rest):
    # the parse finds no bridge in these (read once first, as before); where that reading does not
    # fit, the clause is read from the words' tags: the noun before the relativizer to the clause's end
    assert find_bridge(nlp(question)) is None
    bridge = find_bridge(nlp(question), loose=True)
    assert (bridge.description, bridge.question) == (description, hop)
    assert substitute(question, bridge, "X") == rest


def test_loose_reads_a_framed_question_from_its_question_word_and_asks_its_hop_in_the_frame(nlp):
    # "In X, who …": spaCy hangs the question on the frame as a relative clause; the question
    # proper is read alone, and its hop keeps the frame, which says where to look
    question = "In the 1998 stage version, who played the sister of the girl who found the map?"
    assert find_bridge(nlp(question)) is None
    bridge = find_bridge(nlp(question), loose=True)
    assert (bridge.description, bridge.question) == (
        "the girl who found the map", "In the 1998 stage version, which girl found the map?")
    assert substitute(question, bridge, "Nell Barrow") == "In the 1998 stage version, who played the sister of Nell Barrow?"
    nested = "In the 2017 film, who plays the father of the character portrayed by Emma Watson?"
    bridge = find_bridge(nlp(nested), loose=True)
    assert bridge.question == "In the 2017 film, which character was portrayed by Emma Watson?"
    assert substitute(nested, bridge, "Belle") == "In the 2017 film, who plays the father of Belle?"
    assert find_bridge(nlp("In the 2017 film, who plays Belle?"), loose=True) is None


def test_a_do_question_whose_verb_spacy_read_as_a_noun_keeps_it_out_of_the_description(nlp):
    # "did" needs a verb; spaCy made "row" and "ride" nouns of the "of" phrase
    for question, description in [
        ("Which team did the captain of the Harwick rowing crew row for in 2019?", "the captain of the Harwick rowing crew"),
        ("Which horse did the winner of the Kessing Cup ride?", "the winner of the Kessing Cup"),
    ]:
        bridge = find_bridge(nlp(question), loose=True)
        assert bridge.description == description, question
    assert find_bridge(nlp("Which prize did the founder of Acme Salvage win?"), loose=True).description == \
        "the founder of Acme Salvage"


def test_the_clause_the_support_may_find_beside_a_link_is_a_clause_not_an_of_phrase():
    # support.linked_support: a clause is a second fact about another entity; "a bottle of X" or
    # "X's grandfather" is X's own attribute, which must stand beside the answer
    assert clause_description("Who chairs the cooperative that will charge the electric drive of the Altmoor-Weyden "
                              "river ferry?") == "the cooperative that will charge the electric drive of the Altmoor-Weyden river ferry"
    assert clause_description("Which company acquired the firm founded by Hanna Ostrowski?") == \
        "the firm founded by Hanna Ostrowski"
    assert clause_description("How much does a bottle of Tanners Pale cost?") == ""
    assert clause_description("What was Cressida Lovering's grandfather called?") == ""
    assert clause_description("Who leads the Lindenfeld Solar Cooperative?") == ""
