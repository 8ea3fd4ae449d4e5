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
