"""The person-like collection (k2desk's calibration set, k2desk/eval/calibration_set), asked end to end: a folder as a person
keeps one (web pages with their menus and footers, a PDF report with tables, wiki pages, blog
posts, letters, notes, a CSV, an e-mail), every fact invented, and its questions as people ask
them, a third of them near misses the documents do not answer.

The questions were split 50/50 by a seeded shuffle of their ids (seed 44; each question's ``half``) before anyone read
them: decisions are tuned on the "tune" half only, and both halves are reported.

    python benchmarks/bench_person.py ask --work /tmp/person [--half tune|held|all] [--limit N]
    python benchmarks/bench_person.py report --work /tmp/person
    python benchmarks/bench_person.py frontier --work /tmp/person [--answers FILE]
    python benchmarks/bench_person.py fit --work /tmp/person [--answers FILE]

``--set second`` asks the second person-like collection (benchmarks/data/person2, another
invented world written by a helper told not to show its questions): every question of it is
"held" — nothing was ever tuned on it — and it is reported as it comes. ``ask --confidence`` also
records, per question id in WORK/confidence.jsonl, the reader's confidence in its short answer
(the mean log-probability of the answer's tokens, read after generation from the same prompt);
``lines`` compares, on the kept rows, the reader's decline line (reader.against) with the
three-signal line registered on the first set's tune half before its held half was asked
(REGISTERED_*; docs/eval/abstain/, session 6). Probes that record signals the reader does not use
(docs/eval/abstain/, session 7): ``ask --confidence --contrast`` adds the answer's log-probability
with the question left out, cut to its names, and under the abstain hint against "Insufficient
information."; ``ask --asked-back`` has the model write the question each checked answer's
sentence answers with it (WORK/asked-back.jsonl); ``signals`` prints how each recorded signal
separates the checked answers (AUC), per half. ``ask --twice`` indexes a copy of the folder beside
it (the same files at two paths, as a person keeps a copy; its own home, WORK/home-twice, and rows,
WORK/answers-twice.jsonl) and asks as before.

``ask`` writes the folder, indexes it with the default settings and models (once), and asks each
question with the default method; each row is kept by question id in WORK/answers.jsonl (the
outcome, the model's candidate answer before any decline, the signals the reader recorded), so a
run resumes where it stopped. ``report`` judges each row (strict rule) and prints, per half and
per question kind: right answers by outcome (answered / cautioned / declined), answerable
questions declined, unanswerable questions declined. ``frontier`` asks what any threshold could
do with the recorded signals: per half, if every checked answer were declined exactly when one
signal (or an in-sample logistic fit of all of them) falls below a bar, the most near misses
declined while at most 10 % of the answerable questions are, and the fewest answerable questions
declined while at least 80 % of the near misses are — the bars of issue 44, with the bar chosen
on the very half it is scored on (an upper bound, not a result). ``fit`` makes the reader's
decline line (the calibration's against_weight, against_min) from the tune half alone: leave-one-out on that half compares sets
of signals, a logistic fit of the chosen two gives the support's weight against the check's, and
the bar is the lowest that declines 80 % of that half's near misses; both halves are then scored
at that bar.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import k2desk  # noqa: E402,F401  (the privacy switches first)
from k2desk.config import Settings  # noqa: E402
from k2desk.engine import Engine  # noqa: E402
from k2desk.eval.calibrate import logistic  # noqa: E402  (the fit `k2desk models calibrate` makes)
from k2desk.eval.metrics import strict_match  # noqa: E402

COLLECTION = "person"
# check + REGISTERED_SUPPORT × support + REGISTERED_CONFIDENCE × confidence < REGISTERED_BAR: the
# line through the reader's three signals fitted on the first set's tune half (session 6), written
# down before its held half was asked; not the reader's (measured: it moves nothing there).
REGISTERED_SUPPORT = 6.450
REGISTERED_CONFIDENCE = 1.251
REGISTERED_BAR = 3.5898
_ASKING: dict[str, str] = {}  # the question id being asked (``record_confidence``)


def load_questions(work: Path, which: str = "first"):
    """The set's documents folder (read where it lies) and its questions (data files: the first set
    is k2desk's calibration set, k2desk/eval/calibration_set; the second benchmarks/data/person2)."""
    from k2desk.eval.calibrate import SET, load_set

    return load_set(ROOT / "benchmarks" / "data" / "person2" if which == "second" else SET)


def record_confidence(path: Path, contrast: bool = False) -> None:
    """From now on, each short answer the reader writes (OPEN_ANSWER_PROMPT, reader.OPEN_ANSWER_TOKENS)
    is scored by the model that wrote it: the log-probability of each of its tokens after the same
    prompt, one token at a time, appended to ``path`` under the id being asked (``_ASKING``). With
    ``contrast``, also the reply's summed log-probability ("total") against the same with the
    question line emptied ("none") or cut to its names ("names", the words in "names_asked"), and
    with the paper prompt's abstain hint in the instruction, the reply's ("hinted") and that of
    "Insufficient information." ("abstain")."""
    import numpy as np

    from k2desk.methods.reader import OPEN_ANSWER_TOKENS
    from k2desk.prompts import ABSTAIN_ANSWER, ABSTAIN_HINT
    from k2desk.runtime import llm as runtime

    chat = runtime.LLM.chat

    def scored(self, messages, max_tokens=256, *args, **kwargs):
        out = chat(self, messages, max_tokens, *args, **kwargs)
        if (max_tokens != OPEN_ANSWER_TOKENS or not out.text or "Short Answer:" not in messages[-1]["content"]
                or kwargs.get("avoid")):  # the first answer only, not one asked for again
            return out
        reply = self.tokenize(out.text, special=False)

        def logprobs_after(content: str, reply: list[int] = reply) -> list[float]:
            prompt, _ = self.render([*messages[:-1], {**messages[-1], "content": content}])
            tokens = self.tokenize(prompt)
            found = []
            for i, token in enumerate(reply):  # each call evaluates one token more (the prefix is reused)
                logits = self.next_logits(tokens + reply[:i]).astype(float)
                top = logits.max()
                found.append(float(logits[token] - top - np.log(np.exp(logits - top).sum())))
            return found

        content = messages[-1]["content"]
        logprobs = logprobs_after(content)
        row = {"id": _ASKING.get("id"), "reply": out.text, "token_logprobs": [round(v, 5) for v in logprobs],
               "confidence": round(float(np.mean(logprobs)), 5)}
        if contrast:
            # the same reply's log-probability after the same passages and instruction when the
            # question is left out ("none") or cut to its names ("names": the question's words the
            # passages write only capitalized): how much the question's asked attribute raises it
            head, _, tail = content.rpartition("Question: ")
            question, _, rest = tail.partition("\n")
            words = re.findall(r"[\w'-]+", question)
            names = [w for w in words if len(w) > 2 and re.search(r"\b" + re.escape(w[0].upper() + w[1:]) + r"\b", head)
                     and not re.search(r"\b" + re.escape(w.lower()) + r"\b", head)]
            for key, asked in (("none", ""), ("names", " ".join(names))):
                row[key] = round(float(np.sum(logprobs_after(head + "Question: " + asked + "\n" + rest))), 5)
            row["names_asked"] = " ".join(names)
            # the reader's instruction with the paper prompt's abstain hint: the reply's log-probability
            # against that of the hint's answer ("hinted" − "abstain": the model's own lean to answer)
            hinted = head.rstrip("\n") + ABSTAIN_HINT + "\nQuestion: " + tail
            row["hinted"] = round(float(np.sum(logprobs_after(hinted))), 5)
            row["abstain"] = round(float(np.sum(logprobs_after(hinted, self.tokenize(ABSTAIN_ANSWER, special=False)))), 5)
            row["total"] = round(float(np.sum(logprobs)), 5)
        with path.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        return out

    runtime.LLM.chat = scored


ASKED_BACK_PROMPT = ("Sentence: {sentence}\nAnswer: {answer}\n"
                     "Write the question that this sentence answers with this answer.\nQuestion:")
SAME_QUESTION_PROMPT = ("Question 1: {first}\nQuestion 2: {second}\n"
                        "Do both questions ask for the same information? Answer Yes or No.")


def record_asked_back(path: Path) -> None:
    """From now on, each short answer the reader checks is asked back (a probe, not the reader's):
    the model writes the question its sentence answers with it, and scores (logit Yes − No)
    whether that question asks for the same information as the person's; appended to ``path``
    under the id being asked, with the embedder's cosine between the two questions."""
    import numpy as np

    from k2desk.methods.reader import YES_NO, Reader

    check = Reader._check

    def asked_back(self, question, answer, hits, windows, context, llm, usage, cancel):
        checked = check(self, question, answer, hits, windows, context, llm, usage, cancel)
        sentence = self._sentence(answer, hits, context)
        if sentence:
            back = llm.chat([{"role": "user", "content": ASKED_BACK_PROMPT.format(sentence=sentence, answer=answer)}],
                            max_tokens=48, stop=["\n"]).text.strip()
            scores = llm.first_token_logits([{"role": "user", "content": SAME_QUESTION_PROMPT.format(
                first=question, second=back)}], YES_NO)
            row = {"id": _ASKING.get("id"), "candidate": answer, "sentence": sentence, "back": back,
                   "same": round(scores["yes"] - scores["no"], 4)}
            if self.embed is not None:
                v = np.asarray(self.embed([question, back]), dtype=float)
                row["cosine"] = round(float(v[0] @ v[1] / (np.linalg.norm(v[0]) * np.linalg.norm(v[1]))), 4)
            with path.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
        return checked

    Reader._check = asked_back


def record_linked(path: Path) -> None:
    """From now on, each short answer the reader checks is checked without the linked support
    (``settings.linked_support`` off) and scored with it too (support.linked_support, where the
    grammar finds a description), appended to ``path`` under the id being asked with the outcome
    each support gives: one run shows both."""
    from k2desk.hops.find import clause_description
    from k2desk.methods.reader import Checked, Reader
    from k2desk.methods.support import linked_support

    check = Reader._check

    def linked(self, question, answer, hits, windows, context, llm, usage, cancel):
        keep, self.describe = self.describe, None  # the run goes on as without the linked support
        try:
            checked = check(self, question, answer, hits, windows, context, llm, usage, cancel)
        finally:
            self.describe = keep
        description = clause_description(question)
        joined = (linked_support(question, answer, checked.support, hits, self.sparse, description)
                  if description else checked.support)
        row = {"id": _ASKING.get("id"), "question": question, "candidate": answer,
               "support": round(checked.support.score, 4), "linked_support": round(joined.score, 4),
               "links": joined.linked, "description": description,
               "verify": checked.verify, "outcome": checked.outcome(self.calibration),
               "linked_outcome": Checked(joined, checked.verify, checked.meaning, checked.together).outcome(self.calibration)}
        with path.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        return checked

    Reader._check = linked


def settings(work: Path, twice: bool = False) -> Settings:
    """The default settings, the collection in WORK/home (WORK/home-twice: the folder and its copy)."""
    return Settings(home=work / ("home-twice" if twice else "home"), models_dir=ROOT / "models", threads=2)


def cmd_ask(args: argparse.Namespace) -> None:
    work = Path(args.work)
    folder, questions = load_questions(work, args.set)
    half = {q.id: q.half for q in questions}  # split by a seeded shuffle of the ids before anyone read them
    if args.contrast and not args.confidence:
        sys.exit("ask: --contrast adds to --confidence's records; give both")
    if args.confidence:
        record_confidence(work / "confidence.jsonl", args.contrast)
    if args.asked_back:
        record_asked_back(work / "asked-back.jsonl")
    if args.linked:
        record_linked(work / "linked.jsonl")
    out = work / ("answers-twice.jsonl" if args.twice else "answers.jsonl")
    done = {r["id"] for r in map(json.loads, out.read_text().splitlines())} if out.exists() else set()
    chosen = [q for q in questions if (args.half == "all" or half[q.id] == args.half)
              and (not args.ids or q.id in args.ids.split(","))][: args.limit or None]
    with Engine(settings(work, args.twice), COLLECTION) as engine:
        t0 = time.perf_counter()
        folders = [folder]
        if args.twice:  # the same files kept twice, as a person's copy of a folder beside it
            folders.append(shutil.copytree(folder, work / "copy", dirs_exist_ok=True))
        report = engine.index([str(f) for f in folders])
        print(f"index: {len(report.added)} added, {len(report.skipped)} unchanged, {len(report.failed)} failed "
              f"in {time.perf_counter() - t0:.1f} s", flush=True)
        with out.open("a") as fh:
            for q in chosen:
                if q.id in done:
                    continue
                t0 = time.perf_counter()
                _ASKING["id"] = q.id
                a = engine.ask(q.question)
                reader = a.trace.get("reader") or {}  # the record of the reading (the verdict decides)
                row = {"id": q.id, "half": half[q.id], "outcome": a.outcome, "answer": a.answer[:300],
                       "candidate": str(reader.get("candidate") or a.answer)[:300],
                       "form": reader.get("form"), "reader_kind": reader.get("kind"),
                       "coverage": (reader.get("coverage") or {}).get("score"),
                       "support": (reader.get("answer_support") or {}).get("score"),
                       "restates": (reader.get("answer_support") or {}).get("restates"),
                       "found": (reader.get("answer_support") or {}).get("found_answer"),
                       "meaning": reader.get("meaning"), "verify": reader.get("verify"),
                       "first_source": a.sources[0].document if a.sources else None,
                       "second": reader.get("second"), "first": reader.get("first"), "read": reader.get("read", "first"),
                       "together": reader.get("together"), "reason": a.reason,
                       "missing_values": (reader.get("answer_support") or {}).get("missing_values"),
                       "seconds": round(time.perf_counter() - t0, 2)}
                fh.write(json.dumps(row) + "\n")
                fh.flush()
                print(f"{q.id} {half[q.id]} {row['outcome']} {row['seconds']} s", flush=True)


def judge(row: dict, q) -> str:
    """"right", "wrong", "declined" (an answerable question) or "abstained" / "invented" (not)."""
    if not q.answerable:
        return "abstained" if row["outcome"] == "declined" else "invented"
    if row["outcome"] == "declined":
        return "declined"
    return "right" if strict_match(row["answer"], q.gold) else "wrong"


def table(rows: list[dict], qs: dict) -> list[str]:
    lines = ["| half | kind | n | answered right / n | cautioned right / n | declined | unanswerable declined |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for half in ("tune", "held"):
        sel = [r for r in rows if r["half"] == half]
        if not sel:
            continue
        kinds = sorted({qs[r["id"]].kind for r in sel}) + ["all"]
        for kind in kinds:
            ks = [r for r in sel if kind == "all" or qs[r["id"]].kind == kind]
            ans = [r for r in ks if qs[r["id"]].answerable]
            un = [r for r in ks if not qs[r["id"]].answerable]
            by = {o: [r for r in ans if r["outcome"] == o] for o in ("answered", "cautioned", "declined")}
            right = {o: sum(judge(r, qs[r["id"]]) == "right" for r in by[o]) for o in ("answered", "cautioned")}
            lines.append(f"| {half} | {kind} | {len(ks)} | {right['answered']} / {len(by['answered'])} | "
                         f"{right['cautioned']} / {len(by['cautioned'])} | "
                         f"{len(by['declined'])} / {len(ans)} ({len(by['declined']) / len(ans) if ans else 0:.0%}) | "
                         + (f"{sum(r['outcome'] == 'declined' for r in un)} / {len(un)}" if un else "–") + " |")
    return lines


def cmd_report(args: argparse.Namespace) -> None:
    work = Path(args.work)
    _, questions = load_questions(work, args.set)
    qs = {q.id: q for q in questions}
    rows = [json.loads(line) for line in (work / "answers.jsonl").read_text().splitlines() if line.strip()]
    print(f"{len(rows)} of {len(questions)} questions answered; outcomes {dict(Counter(r['outcome'] for r in rows))}")
    print("\n".join(table(rows, qs)))


SIGNALS = {"support": lambda r: r["support"], "verify": lambda r: r["verify"],
           "verify + support": lambda r: r["verify"] + r["support"], "together": lambda r: r["together"],
           "meaning": lambda r: r["meaning"] or 0.0, "coverage": lambda r: r["coverage"]}


def checked(row: dict) -> bool:
    """Whether the reader's one-score check decided ``row`` (a short answer the passages hold)."""
    return row["verify"] is not None and row["support"] is not None and bool(row["found"])


def declined_share(group: list[dict], score: dict[str, float], bar: float) -> float:
    """The share of ``group`` declined when a checked row is declined exactly when its score is
    below ``bar`` (every other row as recorded)."""
    return sum(score[r["id"]] < bar if r["id"] in score else r["outcome"] == "declined" for r in group) / (len(group) or 1)


def bars(rows: list[dict], qs: dict, score: dict[str, float]) -> tuple[float, float]:
    """The bars over ``score`` that give the most near misses declined with ≤ 10 % of answerable
    questions declined, and the fewest answerable questions declined with ≥ 80 % of near misses."""
    ans = [r for r in rows if qs[r["id"]].answerable]
    near = [r for r in rows if not qs[r["id"]].answerable]
    options = [(declined_share(ans, score, b), declined_share(near, score, b), b)
               for b in sorted(set(score.values())) + [float("inf")]]
    low = max((o for o in options if o[0] <= 0.10), key=lambda o: (o[1], -o[0]), default=options[0])
    high = min((o for o in options if o[1] >= 0.80), key=lambda o: (o[0], -o[1]), default=options[-1])
    return low[2], high[2]


def shares(rows: list[dict], qs: dict, score: dict[str, float], bar: float) -> str:
    """"answerable declined / near misses declined" at ``bar`` (``declined_share``)."""
    ans = [r for r in rows if qs[r["id"]].answerable]
    near = [r for r in rows if not qs[r["id"]].answerable]
    return f"{declined_share(ans, score, bar):.0%} / {declined_share(near, score, bar):.0%}"


def standardized(x, mean=None, std=None):
    """``x`` standardized by ``mean`` and ``std`` (its own when None), with a column of ones."""
    import numpy as np

    mean = x.mean(0) if mean is None else mean
    std = np.where(x.std(0) > 0, x.std(0), 1) if std is None else std
    return np.c_[(x - mean) / std, np.ones(len(x))], mean, std


def kept_answers(args: argparse.Namespace) -> tuple[dict, list[dict]]:
    """The questions by id and the kept answer rows (``--answers``, else WORK/answers.jsonl)."""
    work = Path(args.work)
    _, questions = load_questions(work, args.set)
    path = Path(args.answers) if args.answers else work / "answers.jsonl"
    return {q.id: q for q in questions}, [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def cmd_frontier(args: argparse.Namespace) -> None:
    import numpy as np

    qs, rows = kept_answers(args)
    by_half = {half: sel for half in ("tune", "held") if (sel := [r for r in rows if r["half"] == half])}
    print("answerable declined / near misses declined, the bar chosen on the half scored, aiming at "
          "≤ 10 % answerable declined (left) or ≥ 80 % near misses declined (right)")
    print("| half | signal | ≤ 10 % answerable declined | ≥ 80 % near misses declined |")
    print("|---|---|---:|---:|")
    for half, sel in by_half.items():
        for name, signal in SIGNALS.items():
            score = {r["id"]: signal(r) for r in sel if checked(r)}
            low, high = bars(sel, qs, score)
            print(f"| {half} | {name} | {shares(sel, qs, score, low)} | {shares(sel, qs, score, high)} |")
    fitted = [n for n in SIGNALS if n != "verify + support"]  # the sum adds nothing to a linear fit

    def features(sel: list[dict], mean=None, std=None):
        return standardized(np.array([[SIGNALS[n](r) for n in fitted] for r in sel if checked(r)], dtype=float),
                            mean, std)

    models = {}
    for half, sel in by_half.items():
        x, mean, std = features(sel)
        done = [r for r in sel if checked(r)]
        w = logistic(x, np.array([float(qs[r["id"]].answerable) for r in done]))
        score = {r["id"]: float(v) for r, v in zip(done, x @ w)}
        models[half] = (w, mean, std, bars(sel, qs, score))
        low, high = models[half][3]
        weights = ", ".join(f"{n} {v:+.2f}" for n, v in zip(fitted, w))
        print(f"| {half} | all, fitted on this half ({weights}) | {shares(sel, qs, score, low)} | {shares(sel, qs, score, high)} |")
    if len(models) < 2:  # the second set has no tune half
        return
    w, mean, std, (low, high) = models["tune"]
    held = by_half["held"]
    x, _, _ = features(held, mean, std)
    score = {r["id"]: float(v) for r, v in zip([r for r in held if checked(r)], x @ w)}
    print(f"| held | all, the tune half's fit and bars | {shares(held, qs, score, low)} | {shares(held, qs, score, high)} |")


def cmd_fit(args: argparse.Namespace) -> None:
    import numpy as np

    qs, rows = kept_answers(args)
    tune, held = ([r for r in rows if r["half"] == half] for half in ("tune", "held"))
    if not tune:
        sys.exit("fit: no tune half in these rows (the second set is held whole)")
    done = [r for r in tune if checked(r)]
    y = np.array([float(qs[r["id"]].answerable) for r in done])
    print("leave-one-out on the tune half (answerable declined / near misses declined at the bar aiming at "
          "≤ 10 % answerable declined, then at ≥ 80 % near misses declined):")
    for names in (("support", "verify"), ("support", "verify", "together"), ("support", "verify", "meaning"),
                  ("support", "verify", "coverage"), ("support", "verify", "together", "meaning", "coverage")):
        x = np.array([[SIGNALS[n](r) for n in names] for r in done], dtype=float)
        score = {}
        for i, r in enumerate(done):
            rest = np.arange(len(done)) != i
            z, mean, std = standardized(x[rest])
            w = logistic(z, y[rest], steps=5000)
            score[r["id"]] = float(standardized(x[i:i + 1], mean, std)[0][0] @ w)
        low, high = bars(tune, qs, score)
        print(f"  {' + '.join(names)}: {shares(tune, qs, score, low)}, {shares(tune, qs, score, high)}")
    x = np.array([[r["support"], r["verify"]] for r in done], dtype=float)
    z, mean, std = standardized(x)
    w = logistic(z, y)
    weight = (w[0] / std[0]) / (w[1] / std[1])  # the support's weight in units of the check's
    score = {r["id"]: r["verify"] + weight * r["support"] for r in done}
    _, bar = bars(tune, qs, score)
    print(f"line: declined when check + {weight:.2f} × support < {bar:.3f} (the lowest bar declining 80 % of the "
          f"tune half's near misses); answerable / near misses declined: tune {shares(tune, qs, score, bar)}, "
          f"held {shares(held, qs, {r['id']: r['verify'] + weight * r['support'] for r in held if checked(r)}, bar)}")


def auc(positive: list[float], negative: list[float]) -> float:
    """The chance that a random ``positive`` scores above a random ``negative`` (ties count half)."""
    if not positive or not negative:
        return float("nan")
    return sum((p > n) + 0.5 * (p == n) for p in positive for n in negative) / (len(positive) * len(negative))


def cmd_signals(args: argparse.Namespace) -> None:
    """Per half, how each recorded signal separates the checked answers: answerable questions from
    near misses, right answers from near misses' and right from wrong (AUC) — the reader's own
    signals and the probes' (``ask --confidence [--contrast]``, ``ask --asked-back``)."""
    qs, rows = kept_answers(args)
    work = Path(args.work)

    def records(name: str, key) -> dict:
        path = work / name
        return {key(c): c for c in map(json.loads, path.read_text().splitlines())} if path.exists() else {}

    confidence = records("confidence.jsonl", lambda c: c["id"])  # the first answer's: not a second reading's
    back = records("asked-back.jsonl", lambda c: (c["id"], c["candidate"]))
    probes = {"words' support": lambda r: r["support"], "check": lambda r: r["verify"],
              "confidence": lambda r: confidence[r["id"]]["confidence"],
              "question left out": lambda r: confidence[r["id"]]["total"] - confidence[r["id"]]["none"],
              "question cut to its names": lambda r: confidence[r["id"]]["total"] - confidence[r["id"]]["names"],
              "lean to answer": lambda r: confidence[r["id"]]["hinted"] - confidence[r["id"]]["abstain"],
              "asked back, cosine": lambda r: back[(r["id"], r["candidate"])]["cosine"],
              "asked back, the model's": lambda r: back[(r["id"], r["candidate"])]["same"]}
    first_answer_only = ("confidence", "question left out", "question cut to its names", "lean to answer")
    print("| half | signal | checked answers | answerable vs near misses | right vs near misses | right vs wrong |")
    print("|---|---|---:|---:|---:|---:|")
    for half in ("tune", "held"):
        for name, signal in probes.items():
            scored = []
            for r in rows:
                if r["half"] != half or not checked(r) or (r.get("read", "first") != "first" and name in first_answer_only):
                    continue
                try:
                    scored.append((r, float(signal(r))))
                except (KeyError, TypeError):  # not recorded for this answer
                    continue
            if not scored:
                continue
            right = [v for r, v in scored if qs[r["id"]].answerable and strict_match(r["candidate"], qs[r["id"]].gold)]
            wrong = [v for r, v in scored if qs[r["id"]].answerable and not strict_match(r["candidate"], qs[r["id"]].gold)]
            near = [v for r, v in scored if not qs[r["id"]].answerable]
            print(f"| {half} | {name} | {len(scored)} | {auc(right + wrong, near):.3f} | {auc(right, near):.3f} | "
                  f"{auc(right, wrong):.3f} |")


def cmd_lines(args: argparse.Namespace) -> None:
    """Per half: answerable questions declined, near misses declined and wrong answers shown as the
    rows were decided (the reader's line), and as the registered three-signal line would decide the
    checked answers the one score does not keep (every other row as decided)."""
    from k2desk.verdict import DEFAULTS, keeps

    qs, rows = kept_answers(args)
    path = Path(args.confidence) if args.confidence else Path(args.work) / "confidence.jsonl"
    confidence = {c["id"]: c["confidence"] for c in map(json.loads, path.read_text().splitlines()) if c.get("id")}

    def registered(r: dict) -> str:
        if not checked(r) or r["id"] not in confidence or keeps(r["support"], r["verify"], bool(r["restates"]), DEFAULTS):
            return r["outcome"]
        line = r["verify"] + REGISTERED_SUPPORT * r["support"] + REGISTERED_CONFIDENCE * confidence[r["id"]]
        return "declined" if line < REGISTERED_BAR else "cautioned"

    print("| half | line | answerable declined | near misses declined | wrong answers shown | right answers shown |")
    print("|---|---|---:|---:|---:|---:|")
    for half in ("tune", "held"):
        sel = [r for r in rows if r["half"] == half]
        if not sel:
            continue
        for name, decide in (("the reader's (check + support)", lambda r: r["outcome"]), ("registered (+ confidence)", registered)):
            ans = [r for r in sel if qs[r["id"]].answerable]
            near = [r for r in sel if not qs[r["id"]].answerable]
            shown = [r for r in ans if decide(r) != "declined"]
            right = sum(strict_match(r["answer"] if r["outcome"] != "declined" else r["candidate"], qs[r["id"]].gold)
                        for r in shown)
            print(f"| {half} | {name} | {sum(decide(r) == 'declined' for r in ans)} of {len(ans)} | "
                  f"{sum(decide(r) == 'declined' for r in near)} of {len(near)} | {len(shown) - right} | {right} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    ask = sub.add_parser("ask")
    ask.add_argument("--work", required=True)
    ask.add_argument("--half", choices=("tune", "held", "all"), default="all")
    ask.add_argument("--limit", type=int, default=0)
    ask.add_argument("--ids", default="", help="only these question ids (comma-separated)")
    rep = sub.add_parser("report")
    rep.add_argument("--work", required=True)
    front = sub.add_parser("frontier")
    front.add_argument("--work", required=True)
    front.add_argument("--answers", default="", help="a kept answers file (default WORK/answers.jsonl)")
    fit = sub.add_parser("fit")
    fit.add_argument("--work", required=True)
    fit.add_argument("--answers", default="", help="a kept answers file (default WORK/answers.jsonl)")
    ask.add_argument("--confidence", action="store_true", help="record the reader's confidence (WORK/confidence.jsonl)")
    ask.add_argument("--contrast", action="store_true", help="with --confidence: also the answer's log-probability "
                     "with the question left out or cut to its names, and its lean to answer under the abstain hint")
    ask.add_argument("--twice", action="store_true", help="index a copy of the folder beside it too (WORK/copy, "
                     "WORK/home-twice; rows in WORK/answers-twice.jsonl)")
    ask.add_argument("--linked", action="store_true", help="record each checked answer's support with the windows "
                     "linked to its own (WORK/linked.jsonl; a probe)")
    ask.add_argument("--asked-back", action="store_true", help="record each checked answer asked back "
                     "(WORK/asked-back.jsonl; a probe)")
    lines = sub.add_parser("lines")
    lines.add_argument("--work", required=True)
    lines.add_argument("--answers", default="", help="a kept answers file (default WORK/answers.jsonl)")
    lines.add_argument("--confidence", default="", help="a kept confidence file (default WORK/confidence.jsonl)")
    signals = sub.add_parser("signals")
    signals.add_argument("--work", required=True)
    signals.add_argument("--answers", default="", help="a kept answers file (default WORK/answers.jsonl)")
    for parser in (ask, rep, front, fit, lines, signals):
        parser.add_argument("--set", choices=("first", "second"), default="first",
                            help="the person-like collection: k2desk's calibration set (first) or benchmarks/data/person2")
    args = ap.parse_args()
    {"ask": cmd_ask, "report": cmd_report, "frontier": cmd_frontier, "fit": cmd_fit, "lines": cmd_lines,
     "signals": cmd_signals}[args.cmd](args)


if __name__ == "__main__":
    main()
