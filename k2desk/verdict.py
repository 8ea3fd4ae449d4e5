"""Whether an answer is given, given with a caution or declined: one ``Verdict`` per answer,
decided here and nowhere else, from the reader's signals and the reading model's ``Calibration``.

The reader (methods/reader.py) measures; this module decides. The signals of a short answer are
the share of the question's terms that stand in the sentences holding it (``support``, 0–1), the
model's own check of it (``verify``: logit "Yes" − logit "No" to "does the evidence say this is
the answer?"), and whether the passages hold it at all. The thresholds those signals meet were
fitted on one model's replies; another model's check speaks on another scale, so they are data,
one record per model (runtime/calibration.py reads them, ``k2desk models calibrate`` fits them):

- **Before the model is asked** the question's terms must occur in the passages (``coverage_min``,
  an idf-weighted share), or the question must be close in meaning to one of their sentence
  windows (``coverage_meaning_min``, the embedder's cosine), a comparison's side to one of the
  phrases they name (``side_meaning_min``). These read the embedder and the words, not the LLM.
- **A short answer is kept** when its words' support with the check reaches ``check_min`` and the
  support is at least ``support_floor`` (unless the answer has no words of its own: "7" for "how
  many episodes in season 7"); without the check, when the support reaches ``support_min``.
- **Not kept, it is declined** only when the signals are clearly against it:
  ``verify + against_weight * support < against_min`` (a logistic line fitted between answerable
  questions and near misses), or the passages do not hold it, or nothing checked it; between
  that line and ``check_min`` it is shown with a caution and the sentence that holds it.
- **A yes/no question** is "Yes" when the evidence moves the checker toward "Yes", averaged over
  the question's claims, by more than ``claim_margin`` (logits against each claim's prior).

A model with no record of its own is read with the defaults (``Calibration()``): its check is
not used (its scale is unknown), so an answer is kept on its words' support alone and declined
otherwise: fewer answers, none kept on an unmeasured "yes".
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Optional

from k2desk.prompts import CAUTION

OUTCOMES = ("declined", "cautioned", "answered")  # worst first: an outcome's rank
ALL_TERMS = 0.99  # support with every term of the question beside the answer (a caution's reason)


@dataclass(frozen=True)
class Calibration:
    """The thresholds one reading model's signals meet (the module's docstring says what each
    decides), with what they were fitted for: ``model`` and ``sha256`` name the GGUF, ``fitted_on``
    the questions, ``date`` when; ``check`` whether the model checks its short answers at all."""

    model: str = ""  # "" for the defaults
    sha256: str = ""
    fitted_on: str = ""
    date: str = ""
    check: bool = False
    support_min: float = 0.5
    check_min: float = 1.4
    support_floor: float = 0.35
    against_weight: float = 4.85
    against_min: float = 2.86
    claim_margin: float = 1.75
    coverage_min: float = 0.5
    coverage_meaning_min: float = 0.55
    side_meaning_min: float = 0.76
    path: str = ""  # the file it was read from ("" built in)

    VALUES = ("check", "support_min", "check_min", "support_floor", "against_weight", "against_min", "claim_margin",
              "coverage_min", "coverage_meaning_min", "side_meaning_min")

    @property
    def calibrated(self) -> bool:
        """Whether the record was fitted for a model (else: the conservative defaults)."""
        return bool(self.sha256)

    @property
    def label(self) -> str:
        """How an answer's verdict names it: the model's name, or "defaults"."""
        return self.model if self.calibrated else "defaults"

    def values(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.VALUES}

    def with_values(self, **values: Any) -> "Calibration":
        """A copy with some thresholds changed (a fit's candidates); unknown names are an error."""
        unknown = set(values) - set(self.VALUES)
        if unknown:
            raise ValueError(f"unknown calibration values: {', '.join(sorted(unknown))}")
        return replace(self, **values)

    @classmethod
    def from_record(cls, record: dict[str, Any], path: str = "") -> "Calibration":
        """From a calibration file's JSON (runtime/calibration.py writes it); ValueError when it
        is not one."""
        if not isinstance(record, dict) or not isinstance(record.get("values"), dict):
            raise ValueError("not a calibration record (no 'values')")
        model = record.get("model") if isinstance(record.get("model"), dict) else {}
        kinds = {f.name: f.type for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in record["values"].items():
            if key not in cls.VALUES:
                continue
            flag = kinds[key] == "bool"
            if isinstance(value, bool) != flag or not isinstance(value, (int, float)):
                raise ValueError(f"calibration value {key!r} is not a {'boolean' if flag else 'number'}")
            values[key] = value if flag else float(value)
        fitted = record.get("fitted_on") if isinstance(record.get("fitted_on"), dict) else {}
        return cls(model=str(model.get("name") or ""), sha256=str(model.get("sha256") or ""),
                   fitted_on=str(fitted.get("questions") or ""), date=str(fitted.get("date") or ""), path=path, **values)


DEFAULTS = Calibration()


@dataclass
class Signals:
    """What the reader measured on one answer (None: not measured)."""

    support: Optional[float] = None  # the share of the question's terms beside a short answer
    verify: Optional[float] = None  # the model's check of it (logit Yes − No)
    meaning: Optional[float] = None  # the embedder's closeness of the question to its sentences
    together: Optional[float] = None  # the best sentence window's share of the question's terms
    found_answer: bool = True  # the passages hold the answer
    restates: bool = False  # the answer has no words beyond the question's
    missing: list[str] = field(default_factory=list)  # question terms not beside the answer
    direct_missing: Optional[list[str]] = None  # ... beside the answer itself, where a linked sentence holds others
    missing_values: list[str] = field(default_factory=list)  # numbers the question names that they lack
    coverage: Optional[float] = None  # the question's terms' share in the passages, before the model
    claim_support: Optional[float] = None  # a yes/no question's evidence margin

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in asdict(self).items():
            if value is None or value == [] or (key == "found_answer" and value) or (key == "restates" and not value):
                continue
            out[key] = round(value, 4) if isinstance(value, float) else value
        return out

    @classmethod
    def from_json(cls, data: Any) -> "Signals":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known}) if isinstance(data, dict) else cls()


@dataclass
class Verdict:
    """An answer's outcome: "answered", "cautioned" (shown with ``caution``) or "declined" ("not in
    your documents"); ``reason`` says why in a few words ("the sentences that hold the answer do
    not mention mayor"; "" for an answer given plainly), ``signals`` what it was decided from,
    ``calibration`` whose thresholds decided it (a model's name, "defaults", or "" where none were
    needed); ``settled``: decided by the question and the collection, not by what was read (the
    question names publishers the collection does not hold), so no other reading of the question
    (hop by hop: hops.chain) can change it."""

    outcome: str = "answered"
    reason: str = ""
    caution: str = ""
    signals: Signals = field(default_factory=Signals)
    calibration: str = ""
    settled: bool = False

    @property
    def declined(self) -> bool:
        return self.outcome == "declined"

    def rank(self) -> int:
        return OUTCOMES.index(self.outcome)

    def to_json(self) -> dict[str, Any]:
        return {"outcome": self.outcome, **({"reason": self.reason} if self.reason else {}),
                **({"caution": self.caution} if self.caution else {}), "signals": self.signals.to_json(),
                **({"calibration": self.calibration} if self.calibration else {}),
                **({"settled": True} if self.settled else {})}

    @classmethod
    def from_json(cls, data: Any) -> "Verdict":
        """From ``to_json``'s dict (a history row); an answer given plainly from anything else."""
        if not isinstance(data, dict) or data.get("outcome") not in OUTCOMES:
            return cls()
        return cls(str(data["outcome"]), str(data.get("reason") or ""), str(data.get("caution") or ""),
                   Signals.from_json(data.get("signals")), str(data.get("calibration") or ""), data.get("settled") is True)


def answered(signals: Optional[Signals] = None, calibration: str = "") -> Verdict:
    return Verdict("answered", signals=signals or Signals(), calibration=calibration)


def declined(reason: str, signals: Optional[Signals] = None, calibration: str = "", settled: bool = False) -> Verdict:
    return Verdict("declined", reason, signals=signals or Signals(), calibration=calibration, settled=settled)


# -- the decisions --------------------------------------------------------------------------
def covered(coverage: float, cal: Calibration) -> bool:
    """Whether the passages hold enough of the question's terms to ask the model."""
    return coverage >= cal.coverage_min


def close_in_meaning(closeness: float, cal: Calibration, side: bool = False) -> bool:
    """Whether the question (``side``: a comparison's side) is close enough in meaning to the
    passages to ask the model although its words are not there."""
    return closeness >= (cal.side_meaning_min if side else cal.coverage_meaning_min)


def keeps(support: float, verify: Optional[float], restates: bool, cal: Calibration) -> bool:
    """Whether a short answer stands on its signals (the module's docstring)."""
    if verify is None:
        return support >= cal.support_min
    return verify + support >= cal.check_min and (support >= cal.support_floor or restates)


def against(support: float, verify: float, cal: Calibration) -> bool:
    """Whether the model's check and the words' support are clearly against a short answer."""
    return verify + cal.against_weight * support < cal.against_min


def short_outcome(s: Signals, cal: Calibration) -> str:
    """A short answer's outcome: "answered" when ``keeps`` it and its sentences hold every number
    the question names (else "cautioned"); not kept, "declined" when the passages do not hold it,
    the signals are ``against`` it, it restates the question or nothing checked it; else
    "cautioned"."""
    support = s.support or 0.0
    if keeps(support, s.verify, s.restates, cal):
        return "cautioned" if s.missing_values else "answered"
    if s.verify is None or s.restates or not s.found_answer or against(support, s.verify, cal):
        return "declined"
    return "cautioned"


def short_answer(s: Signals, cal: Calibration, sentence: str = "") -> Verdict:
    """The verdict on a short answer from its signals, with the reason a person reads and, for a
    cautioned one, the caution with ``sentence`` (the one that holds the answer)."""
    outcome = short_outcome(s, cal)
    if outcome == "answered":
        return answered(s, cal.label)
    if outcome == "cautioned":
        reason = ("the sentences that hold it do not mention " + ", ".join(s.missing_values) if s.missing_values else
                  "every term of the question stands beside it, the check is unsure" if (s.support or 0.0) >= ALL_TERMS
                  else "the check and the words' support are lukewarm")
        return Verdict("cautioned", reason, CAUTION.format(sentence=sentence), s, cal.label)
    reason = ("the passages do not hold the answer" if not s.found_answer else
              "the passages do not say that this is the answer" if (s.support or 0.0) >= cal.support_min else
              "the sentences that hold the answer do not mention " + ", ".join(s.missing))
    return declined(reason, s, cal.label)


def says_yes(claim_support: float, cal: Calibration) -> bool:
    """Whether a yes/no question's averaged evidence margin says "Yes"."""
    return claim_support > cal.claim_margin
