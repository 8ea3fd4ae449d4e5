"""One normal form for values (text/values.py): number words, currency signs, digit groups."""

from k2desk.text.values import normal_values, numbers


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
