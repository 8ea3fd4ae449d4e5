"""One normal form for values (text/values.py): number words, currency signs, digit groups."""

from k2desk.text.values import bare_number, completable, normal_values, numbers, with_unit


def test_numbers_in_words_are_their_digits():
    assert normal_values("The crossing takes seven minutes.") == "The crossing takes 7 minutes."
    assert normal_values("four thousand two hundred euros") == "4200 euros"
    assert normal_values("twenty-five percent") == "25 percent"
    assert numbers("Season Two has twelve episodes") == {"2", "12"}


def test_a_currency_sign_becomes_its_name_and_digit_groups_close():
    assert normal_values("It costs €1,180 per cubic metre") == "It costs 1180 euros per cubic metre"
    assert normal_values("a fee of £35") == "a fee of 35 pounds"
    assert numbers("12,500 people in 2021 and 3.5 MW") == {"12500", "2021", "3.5"}
    assert numbers("1, 2, 3") == {"1", "2", "3"}  # a list of numbers is not a digit group
    assert normal_values("It cost $40.") == "It cost 40 dollars."  # the full stop stays after the name
    # a short scale after a signed amount is its scale ("16 dollarsk" before); alone "16 m" is metres
    assert normal_values("a $16k grant, a £2.5m hall and a $3bn deal") == \
        "a 16000 dollars grant, a 2500000 pounds hall and a 3000000000 dollars deal"
    assert normal_values("$5 more") == "5 dollars more"
    assert normal_values("$16k") == normal_values("sixteen thousand dollars") == normal_values("$16,000")


def test_a_number_in_tex_math_is_no_amount_of_dollars():
    # papers set numbers as inline math: "a macro-F1 of $0.565$" gave the answer "0.565 dollars"
    assert normal_values("the highest macro-F1 value of $0.565$.") == "the highest macro-F1 value of 0.565."
    assert normal_values("a gain of $3.2\\%$ here") == "a gain of 3.2% here"
    assert with_unit("11.2", "ATD incorrectly predicts $11.2$ words for every 100 words") == "11.2 words"
    assert normal_values("costs $5 and $6") == "costs 5 dollars and 6 dollars"  # two amounts, no math


def test_text_without_values_is_unchanged():
    text = "The cooperative is led by its chair, Henrike Albers."
    assert normal_values(text) == text and normal_values("") == ""


def test_a_bare_amount_gets_the_unit_its_sentence_gives_it():
    from k2desk.text.values import with_unit

    function_words = frozenset({"and", "the", "in", "of"})
    assert with_unit("386,000", "a contract worth 386,000 euros with the firm", function_words) == "386,000 euros"
    assert with_unit("7", "The crossing takes seven minutes.", function_words) == "7 minutes"
    assert with_unit("25", "about 25% of the members", function_words) == "25%"
    assert with_unit("38", "38 and more came", function_words) == "38"  # no unit after it
    assert with_unit("1983", "in 1983 lanterns were lit", function_words) == "1983"  # a year
    assert with_unit("14", "on 14 March", function_words) == "14"  # a name after it, no unit
    assert with_unit("380 euros", "quotes 380 euros", function_words) == "380 euros"  # not bare
    assert with_unit("Halloran & Pike", "Halloran & Pike won", function_words) == "Halloran & Pike"


def test_a_year_or_a_month_is_the_whole_date_its_sentence_gives():
    from k2desk.text.values import with_full_date

    assert with_full_date("2009", "Kingsmill Bridge reopened on 12 September 2009.") == "12 September 2009"
    assert with_full_date("January 2026", "From 1 January 2026 the fee rises.") == "1 January 2026"
    assert with_full_date("2018", "Season 2 premiered on April 25, 2018.") == "April 25, 2018"
    assert with_full_date("1891", "The ferry service began in 1891.") == "1891"  # no whole date there
    assert with_full_date("2024", "held on 7 September 2024 and 8 September 2024") == "2024"  # two: neither
    assert with_full_date("March 2025", "talks on 13 March 2025 and 20 March 2025") == "March 2025"
    assert with_full_date("Henrike Albers", "on 12 May 2021 Henrike Albers") == "Henrike Albers"  # not a date


def test_only_a_bare_amount_or_a_partial_date_is_worth_completing():
    from k2desk.text.values import completable

    assert completable("386,000") and completable("2009", dates=True) and completable("January 2026", dates=True)
    assert not completable("2009 euros") and not completable("Henrike Albers", dates=True)
    assert not completable("January 2026")  # a date only when the question asks when


def test_a_bare_number_is_a_number_and_nothing_else():
    assert bare_number("1978") and bare_number(" 18,600 ") and bare_number("4.86")
    assert not bare_number("18,600 euros") and not bare_number("about 40") and not bare_number("")


def test_an_amount_with_its_scale_word_is_one_number_and_keeps_its_scale():
    # alpha2digit alone reads "million" after digits as a number of its own ("35 1000000")
    assert normal_values("paid $35 million") == "paid 35000000 dollars"
    assert normal_values("thirty-five million dollars") == normal_values("$35 million") == "35000000 dollars"
    assert normal_values("2.5 billion") == "2500000000" and normal_values("1,200 thousand") == "1200000"
    # a bare amount read from such a sentence gets its scale and sign as written, not "35 dollars"
    assert with_unit("35", "Steph Curry was paid $35 million to lend FTX legitimacy") == "$35 million"
    assert with_unit("18", "Of that, 18 billion euros went to Apple.") == "18 billion euros"
    assert with_unit("35", "In 35 years the town grew.") == "35 years"
    # an amount with its scale word and no sign takes the sign its sentence writes, the same scale only
    assert with_unit("13 billion", "Microsoft had poured $13 billion into OpenAI.") == "$13 billion"
    assert with_unit("13 billion", "Microsoft had poured $13 million into OpenAI.") == "13 billion"
    assert with_unit("13 billion", "The model has 13 billion parameters.") == "13 billion"
    assert completable("13 billion") and not completable("13 billion dollars")


def test_a_unit_after_a_number_is_spelled_one_way():
    # the passage writes "31 metres", the model "31 meters": the support check and the judge read both alike
    assert normal_values("Its tower is 31 metres tall") == normal_values("Its tower is 31 meters tall") == \
        "Its tower is 31 meters tall"
    assert normal_values("a 60-centimetre telescope holds 5 litres") == "a 60-centimeter telescope holds 5 liters"
    assert normal_values("the theatre in the town centre") == "the theatre in the town centre"  # no number: as written
