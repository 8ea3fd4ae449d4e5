"""The verdict (k2desk/verdict.py): the three outcomes from a short answer's signals and a
model's calibration, the reasons a person reads, and the verdict as data (JSON, history)."""

import pytest

from k2desk.verdict import DEFAULTS, Calibration, Signals, Verdict, against, declined, says_yes, short_answer, short_outcome

FITTED = Calibration(model="a model", sha256="ab" * 32, check=True)  # the 1.5B's values are the defaults' values


def outcome(support, verify=None, cal=FITTED, **kw):
    return short_outcome(Signals(support=support, verify=verify, **kw), cal)


def test_a_lukewarm_answer_or_one_without_the_year_asked_about_is_shown_with_a_caution():
    """An answer not kept is declined only below the line through the check and the support
    (``against``), shown with a caution above it; a kept answer whose sentences lack a number the
    question names ("2023") is cautioned."""
    line = FITTED.against_min - FITTED.against_weight * 0.6  # the check at which support 0.6 stands on the line
    assert line + 0.6 < FITTED.check_min  # the line runs below the keeping score there: a lukewarm band
    assert outcome(0.6, line + 0.05) == "cautioned"
    assert outcome(0.6, line - 0.05) == "declined"
    # the support weighs more than the check: a full support survives a "no" that a half one does not
    assert outcome(1.0, -1.0) == "cautioned"
    assert outcome(0.5, 0.0) == "declined"
    # far from the question's words: not kept whatever the check, shown only with a clear "yes"
    assert outcome(FITTED.support_floor - 0.05, 3.0) == "cautioned"
    assert outcome(FITTED.support_floor - 0.05, 0.5) == "declined"
    assert outcome(0.0, 3.0, found_answer=False) == "declined"  # not in the passages
    # an answer restating the question's words ("7" for season 7's episodes) is left to the check
    assert outcome(0.0, FITTED.check_min, restates=True) == "answered"
    assert outcome(0.0, FITTED.check_min - 0.1, restates=True) == "declined"
    assert outcome(0.8, FITTED.check_min) == "answered"
    assert outcome(0.8, FITTED.check_min, missing=["2023"], missing_values=["2023"]) == "cautioned"
    assert outcome(0.4) == "declined"  # no check: the support alone, no caution
    assert against(0.5, 0.0, FITTED) and not against(1.0, -1.0, FITTED)


def test_another_models_calibration_moves_the_lines():
    """The same signals, another model's thresholds: a stricter keeping score cautions what the
    first kept, a higher decline line declines what the first cautioned."""
    keeps_less, declines_more = FITTED.with_values(check_min=3.0), FITTED.with_values(against_min=6.0)
    assert outcome(0.8, 1.0) == "answered" and outcome(0.8, 1.0, keeps_less) == "cautioned"
    assert outcome(0.6, 0.0) == "cautioned" and outcome(0.6, 0.0, declines_more) == "declined"
    assert says_yes(2.0, FITTED) and not says_yes(2.0, FITTED.with_values(claim_margin=2.5))
    with pytest.raises(ValueError, match="unknown calibration values: check_mn"):
        FITTED.with_values(check_mn=1.0)


def test_the_reasons_a_person_reads():
    sentence = "Site manager Ilse Damaschke said the crew would pump the shaft."
    v = short_answer(Signals(support=1.0, verify=-0.4), FITTED, sentence)
    assert v.outcome == "cautioned" and sentence in v.caution and v.calibration == "a model"
    assert v.reason == "every term of the question stands beside it, the check is unsure"
    v = short_answer(Signals(support=0.9, verify=3.0, missing_values=["2021"]), FITTED, sentence)
    assert v.outcome == "cautioned" and v.reason == "the sentences that hold it do not mention 2021"
    v = short_answer(Signals(support=0.2, verify=-2.0, missing=["mayor", "1983"]), FITTED)
    assert v.declined and v.reason == "the sentences that hold the answer do not mention mayor, 1983" and not v.caution
    v = short_answer(Signals(support=0.6, verify=-5.0), FITTED)
    assert v.declined and v.reason == "the passages do not say that this is the answer"
    v = short_answer(Signals(support=0.0, verify=3.0, found_answer=False), FITTED)
    assert v.declined and v.reason == "the passages do not hold the answer"
    assert short_answer(Signals(support=0.9, verify=2.0), FITTED) == Verdict("answered", signals=Signals(0.9, 2.0),
                                                                              calibration="a model")


def test_without_a_calibration_the_defaults_keep_on_the_words_alone():
    """No record for the model: its check's scale is unknown, so it is not used (``check`` off);
    an answer stands on its words' support, else is declined; the verdict says "defaults"."""
    assert not DEFAULTS.calibrated and not DEFAULTS.check and DEFAULTS.label == "defaults"
    assert short_answer(Signals(support=0.5), DEFAULTS).outcome == "answered"
    v = short_answer(Signals(support=0.45, missing=["treasurer"]), DEFAULTS)
    assert v.declined and v.calibration == "defaults"


def test_a_verdict_goes_to_json_and_back():
    v = Verdict("cautioned", "the check and the words' support are lukewarm", "read the passage",
                Signals(support=0.61234567, verify=0.2, missing=["mayor"]), "qwen2.5-coder-1.5b")
    data = v.to_json()
    assert data["signals"] == {"support": 0.6123, "verify": 0.2, "missing": ["mayor"]}
    back = Verdict.from_json(data)
    assert back.outcome == "cautioned" and back.reason == v.reason and back.caution == v.caution
    assert back.signals.missing == ["mayor"] and back.calibration == "qwen2.5-coder-1.5b"
    assert not back.settled and "settled" not in data
    settled = declined("no document in this collection is from Bloomberg", settled=True)
    assert settled.to_json()["settled"] is True and Verdict.from_json(settled.to_json()) == settled
    for junk in (None, {}, {"outcome": "maybe"}, [1, 2], "declined"):
        assert Verdict.from_json(junk) == Verdict()


def test_a_calibration_record_is_read_strictly():
    record = {"model": {"name": "m", "sha256": "cd" * 32}, "fitted_on": {"questions": "tune half", "date": "2026-11-29"},
              "values": {"check": True, "check_min": 2, "against_min": 3.5, "something_new": 1}}
    cal = Calibration.from_record(record, "/x.json")
    assert cal.calibrated and cal.check is True and cal.check_min == 2.0 and cal.against_min == 3.5
    assert cal.support_floor == DEFAULTS.support_floor and cal.fitted_on == "tune half" and cal.path == "/x.json"
    for bad in ({}, {"values": []}, {"values": {"check_min": "high"}}, {"values": {"check_min": True}},
                {"values": {"check": 1}}):
        with pytest.raises(ValueError):
            Calibration.from_record(bad)
