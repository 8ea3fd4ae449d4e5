"""Calibration (k2desk/eval/calibrate.py): the set as data, the fit on recorded signals (no
model), the report, and the asking that resumes by question id and stops when told."""

import json
import random

import pytest

from k2desk.config import Settings
from k2desk.errors import Cancelled
from k2desk.eval import calibrate as C
from k2desk.progress import CancelToken
from k2desk.verdict import DEFAULTS


def test_the_calibration_set_is_data_split_before_anyone_read_it():
    documents, questions = C.load_set()
    assert len(questions) == 161 and len({q.id for q in questions}) == 161
    assert sum(q.half == "tune" for q in questions) == 80 and {q.half for q in questions} == {"tune", "held"}
    assert sum(not q.answerable for q in questions) == 43
    assert all((documents / q.file).is_file() for q in questions)  # every question's document is there
    assert all(q.gold == "Insufficient information." for q in questions if not q.answerable)


def rows_of(n=60, seed=3):
    """Checked short answers as a run records them: right answers with a confident check and good
    support, wrong ones and near misses lower, with overlap."""
    rng = random.Random(seed)
    rows, golds = [], {}
    for i in range(n):
        kind = ("right", "wrong", "near")[i % 3]
        verify = {"right": 2.0, "wrong": 0.3, "near": -1.0}[kind] + rng.uniform(-1.2, 1.2)
        support = {"right": 0.85, "wrong": 0.6, "near": 0.4}[kind] + rng.uniform(-0.2, 0.15)
        qid = f"q{i}"
        golds[qid] = "Insufficient information." if kind == "near" else "Ada Lovelace"
        rows.append({"id": qid, "half": "tune" if i % 2 else "held", "answerable": kind != "near",
                     "answer": "Ada Lovelace" if kind == "right" else "Charles Babbage",
                     "candidate": "Ada Lovelace" if kind == "right" else "Charles Babbage", "outcome": "answered",
                     "signals": {"support": round(support, 4), "verify": round(verify, 4)}, "seconds": 2.0})
    rows.append({"id": "yn", "half": "tune", "answerable": True, "answer": "Yes.", "candidate": "Yes.",
                 "outcome": "answered", "signals": {"claim_support": 2.2}, "seconds": 1.0})
    golds["yn"] = "Yes"
    return rows, golds


def test_the_fit_separates_right_answers_and_declines_most_near_misses():
    rows, golds = rows_of()
    tune = [r for r in rows if r["half"] == "tune"]
    cal = C.fit(tune, golds)
    assert cal.check and {k: v for k, v in cal.values().items() if k not in C.FITTED} == \
        {k: v for k, v in DEFAULTS.values().items() if k not in C.FITTED}  # the rest carried
    near = [r for r in tune if not r["answerable"]]
    declined = sum(C.decided(r, cal) == "declined" for r in near)
    assert declined >= 0.8 * len(near)
    t = C.tally(tune, golds, cal)
    assert t["right_plain"] > t["wrong_plain"] and t["answerable"] + t["unanswerable"] == len(tune)
    assert t["right_plain"] + t["right_cautioned"] + t["wrong_plain"] + t["wrong_cautioned"] + t["answerable_declined"] \
        == t["answerable"]
    assert C.decided(rows[-1], cal) == "answered"  # a yes/no answer is not a checked short answer: as it was
    strict = C.tally([r for r in tune if C.checked(r)], golds, cal.with_values(check_min=99.0))  # nothing kept plainly
    assert strict["right_plain"] == strict["wrong_plain"] == 0
    with pytest.raises(ValueError, match="too few checked answers"):
        C.fit(tune[:5], golds)


def test_the_report_reads_as_a_table_and_a_line():
    rows, golds = rows_of()
    cal = C.fit([r for r in rows if r["half"] == "tune"], golds)
    report = {"held": {"fitted": C.tally([r for r in rows if r["half"] == "held"], golds, cal),
                       "before": C.tally([r for r in rows if r["half"] == "held"], golds, DEFAULTS)}}
    lines = C.report_lines(report, "defaults")
    assert lines[0].startswith("| half | thresholds |") and lines[2].startswith("| held | defaults |")
    assert lines[3].startswith("| held | fitted |")
    assert "answerable right" in C.summary(report) and "s per answer" in C.summary(report)


def test_asking_the_set_resumes_by_id_and_stops_when_told(tmp_path, models_dir):
    documents, questions = C.load_set()
    settings = Settings(home=tmp_path / "home", models_dir=models_dir, summarizer="extractive", graph_extractor="fast")
    few = questions[:3]
    token = CancelToken()
    seen = []

    def progress(stage, done, total):
        if stage == "calibrate":
            seen.append((done, total))
            if done == 1:
                token.cancel()  # stopped after the first answer

    with pytest.raises(Cancelled):
        C.ask_set(settings, "smollm2-135m", tmp_path / "work", few, documents, progress, token)
    first = C.read_rows(tmp_path / "work" / C.ROWS)
    assert [r["id"] for r in first] == [few[0].id] and (0, 3) in seen
    rows = C.ask_set(settings, "smollm2-135m", tmp_path / "work", few, documents)
    assert [r["id"] for r in rows] == [q.id for q in few]  # the first kept, only the rest asked
    kept = [json.loads(line) for line in (tmp_path / "work" / C.ROWS).read_text().splitlines()]
    assert len(kept) == 3 and all(r["outcome"] in ("answered", "cautioned", "declined") for r in kept)
    assert all(isinstance(r["signals"], dict) and r["seconds"] > 0 for r in kept)


def test_a_check_that_tells_nothing_is_not_asked_and_the_words_support_decides():
    """A model whose "yes" does not follow its right answers (here: it says yes to its wrong ones)
    gets no check: an answer is kept on its words' support (support_min fitted) or declined."""
    rows, golds = rows_of()
    for r in rows:
        if "verify" in r["signals"]:
            r["signals"]["verify"] = {True: -1.0, False: 1.5}[r["candidate"] == "Ada Lovelace"] + random.Random(r["id"]).uniform(-.3, .3)
    tune = [r for r in rows if r["half"] == "tune"]
    cal = C.fit(tune, golds)
    assert not cal.check and cal.support_min != DEFAULTS.support_min and cal.check_min == DEFAULTS.check_min
    done = [r for r in tune if C.checked(r)]
    assert {C.decided(r, cal) for r in done} <= {"answered", "declined"}  # no caution without a check
    kept = [r for r in done if C.decided(r, cal) == "answered"]
    assert all(r["signals"]["support"] >= cal.support_min for r in kept)
    assert sum(C.right(r, golds[r["id"]]) for r in kept) > len(kept) / 2
