"""One normal form for the values an answer gives: numbers in words or digits, currencies, digit
groups. The reader's support check, the caution's evidence sentence and the judge all read text
through it, so "seven minutes" in a passage holds the answer "7 minutes", "€1,180" is "1180 euros",
and a gold "two thousand" is the answer "2000".

Number words become digits by text2num's ``alpha2digit`` (English, every number: an isolated
"one" or "first" too, so question, passage and answer agree on "1" and "1st"); a currency sign
before an amount becomes the currency's name after it, with its short scale ("$16k" is "16000
dollars"; not the "$" of TeX math around a number, "$0.565$"); a digit group separator goes
("1,180", "1 180" → "1180"; a decimal point stays); a unit after a number spelled the British way
is spelled the American way, as the model often writes it ("31 metres" is "31 meters").

``with_full_date(answer, sentence)``: a year or a month and year ("2009", "January 2026") read
from a sentence that gives the whole date it belongs to ("reopened on 12 September 2009") is
that date — the one date of the sentence that holds it, else the answer as it was.

``with_unit(answer, sentence)``: a bare amount ("386,000") read from a sentence that names its
unit right after it ("a contract worth 386,000 euros", "seven minutes") gets that unit, and its
scale as written ("35" from "paid $35 million" is "$35 million", and so is "35 million"); a year or
a number followed by a name or a function word is left alone. An amount with a scale word is one number in the normal
form ("$35 million" and "thirty-five million dollars" are both "35000000 dollars").
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache

# A currency sign is written before its amount, its name after: "€380" / "380 euros".
CURRENCIES = {"€": "euros", "$": "dollars", "£": "pounds", "¥": "yen", "₹": "rupees", "₩": "won"}
_SIGNED = re.compile(r"([€$£¥₹₩])\s?(\d[\d,]*(?:\.\d+)?)(?:\s?(k|m|bn)\b)?", re.I)
# a signed amount's short scale ("$16k", "£2m", "$3bn"): after a currency sign only ("16 m" alone is metres)
SHORT_SCALES = {"k": 3, "m": 6, "bn": 9}
# a number set as inline TeX math ("a macro-F1 of $0.565$", common in papers): the number alone,
# not an amount of dollars
_MATH = re.compile(r"\$\s?(\d[\d,]*(?:\.\d+)?(?:\\?%)?)\s?\$")
_GROUPED = re.compile(r"(?<![\d.,])\d{1,3}(?:[,\u202f\u00a0 ]\d{3})+(?![\d])")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# an amount in digits with its scale word ("35 million", "$2.5 billion"): one number, since
# alpha2digit reads the lone scale word as a number of its own ("35 1000000")
SCALES = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12}
_SCALE_WORDS = "|".join(SCALES)
_SCALED = re.compile(rf"(?<![\d.,])(\d[\d,]*(?:\.\d+)?)\s+({_SCALE_WORDS})\b", re.I)
# the same amount as a sentence writes it, with its sign or currency name: "$35 million"
_AS_WRITTEN = (rf"(?<![\w.,])(?:[{''.join(CURRENCIES)}]\s?)?{{number}}\s+(?:{_SCALE_WORDS})\b"
               rf"(?:\s+(?:{'|'.join(CURRENCIES.values())})\b)?")


def _unscaled(m: re.Match) -> str:
    return _amount(m.group(1), SCALES[m.group(2).lower()])


def _amount(number: str, exponent: int) -> str:
    value = Decimal(number.replace(",", "")).scaleb(exponent)
    return format(value.quantize(Decimal(1)) if value == value.to_integral() else value.normalize(), "f")


def _signed(m: re.Match) -> str:
    """"$40" -> "40 dollars", "$16k" -> "16000 dollars"."""
    number = m.group(2) if not m.group(3) else _amount(m.group(2), SHORT_SCALES[m.group(3).lower()])
    return f"{number} {CURRENCIES[m.group(1)]}"


def _unmath(m: re.Match) -> str:
    return m.group(1).replace("\\%", "%")


# a unit after a number spelled the British way ("31 metres", "a 60-centimetre telescope", "5
# litres"): spelled the American way, as the model often writes it ("31 meters")
_TRE_UNIT = re.compile(r"(\d(?:\s|-)?[a-z]*)tre(s?)\b", re.I)


@lru_cache(maxsize=4096)
def normal_values(text: str) -> str:
    """``text`` with its values in the normal form (module docstring)."""
    if not text:
        return text
    from text_to_num import alpha2digit

    text = _SCALED.sub(_unscaled, text)
    try:
        text = alpha2digit(text, "en", threshold=0)
    except Exception:  # noqa: BLE001 - a text the parser cannot read keeps its words
        pass
    text = _SIGNED.sub(_signed, _MATH.sub(_unmath, text))
    text = _TRE_UNIT.sub(r"\1ter\2", text)
    return _GROUPED.sub(lambda m: re.sub(r"\D", "", m.group(0)), text)


_BARE = re.compile(r"^\s*\d[\d,.\u202f\u00a0 ]*\s*$")
_UNIT_AFTER = r"(?<![\d.]){number}(?:\s*(%)|\s+([a-z][a-z\-]*))"


def bare_number(answer: str) -> bool:
    """Whether ``answer`` is a number and nothing else ("1978", "18,600"; not "18,600 euros")."""
    return bool(_BARE.match(answer))


_SCALED_ANSWER = re.compile(rf"^\s*(\d[\d,]*(?:\.\d+)?)\s+({_SCALE_WORDS})\s*$", re.I)


def with_unit(answer: str, sentence: str, function_words: frozenset[str] = frozenset()) -> str:
    """``answer`` with the unit that follows it in ``sentence`` when it is a bare amount (module
    docstring); ``function_words``: words that are no unit ("and", "the", "in"). A bare amount
    with its scale word ("13 billion") takes its sign or currency as the sentence writes it
    ("$13 billion")."""
    if not sentence:
        return answer
    scaled_answer = _SCALED_ANSWER.match(answer)
    if scaled_answer:
        number, scale = scaled_answer.group(1), scaled_answer.group(2).lower()
        written = re.search(_AS_WRITTEN.format(number=re.escape(number)), sentence, re.I)
        return written.group(0) if written and re.search(rf"\b{scale}\b", written.group(0), re.I) else answer
    if not bare_number(answer):
        return answer
    wanted = numbers(answer)
    if len(wanted) != 1:
        return answer
    number = wanted.pop()
    if len(number) == 4 and number.isdigit() and 1000 <= int(number) <= 2199:  # a year
        return answer
    scaled = re.search(_AS_WRITTEN.format(number=re.escape(number)), sentence, re.I)
    if scaled:  # "$35 million": the amount as the sentence writes it, not "35 dollars"
        return scaled.group(0)
    m = re.search(_UNIT_AFTER.format(number=re.escape(number)), normal_values(sentence))
    if not m or m.group(2) in function_words:
        return answer
    return f"{answer.strip()}%" if m.group(1) else f"{answer.strip()} {m.group(2)}"


_CARDINAL = re.compile(r"\d+(?:\.\d+)?(?!\d|st\b|nd\b|rd\b|th\b)")


def cardinals(text: str) -> set[str]:
    """The numbers ``text`` names that are no ordinal ("2023", "seven"; not "first" / "3rd")."""
    return set(_CARDINAL.findall(normal_values(text)))


_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?"
          r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)")
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_FULL_DATE = re.compile(rf"\b(?:{_DAY}\s+(?:of\s+)?{_MONTH}\.?,?\s+\d{{4}}|{_MONTH}\.?\s+{_DAY},?\s+\d{{4}})\b")
_PART_DATE = re.compile(rf"^\s*(?:in\s+)?(?:({_MONTH})\.?\s+)?(\d{{4}})\.?\s*$", re.I)


def completable(answer: str, dates: bool = False) -> bool:
    """Whether ``with_unit`` (a bare amount) or, with ``dates``, ``with_full_date`` (a year or a
    month and year) may change ``answer``: only then is its sentence worth finding."""
    return bare_number(answer) or bool(_SCALED_ANSWER.match(answer)) or bool(dates and _PART_DATE.match(answer))


def with_full_date(answer: str, sentence: str) -> str:
    """``answer`` as the whole date its ``sentence`` gives (module docstring)."""
    m = _PART_DATE.match(answer)
    if not m or not sentence:
        return answer
    month, year = m.group(1), m.group(2)
    dates = [d for d in _FULL_DATE.findall(sentence)
             if d.endswith(year) and (month is None or d.lower().find(month[:3].lower()) >= 0)]
    return dates[0] if len(set(dates)) == 1 else answer


def numbers(text: str) -> set[str]:
    """The numbers ``text`` names, in the normal form ("seven" → "7", "1,180" → "1180")."""
    return set(_NUMBER.findall(normal_values(text)))
