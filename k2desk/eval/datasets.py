"""Benchmark folders: the corpus, the questions, the seeded selection (``--limit``) and K folds.

A bench folder holds ``corpus.jsonl`` (MultiHop-RAG article fields) and ``queries.jsonl`` — or
``queries_sample.jsonl`` when there is no full file. Each question line has ``query`` (or
``question``), ``answer``, ``question_type`` (``"unknown"`` when absent), ``id`` (``q-<line>``
when absent) and optionally ``evidence_list``. Multiple-choice lines carry ``options`` (a list of
strings) and ``gold_label``: an int indexes ``options``, a letter ``"A"``/``"B"``… names an
option by position, any other string is the gold text itself.

Selection (``--limit N``): the questions of each ``question_type`` are shuffled with the seed;
the first question of every type comes first (types in name order), then all the others are
interleaved by fractional rank — the i-th (i ≥ 1) of a type's n questions gets the key
(i + 0.5) / n — and the first N in that order are taken. So a small limit still covers every type
(``--limit 10`` takes 3 comparison, 3 inference, 3 temporal and 1 null question of the
60-question sample, and 1 null + 9 in about the file's proportions of the 1,028-question file),
each prefix keeps roughly the file's mix, and a larger limit with the same seed contains every
question of a smaller one (a resumed run stays valid).

Folds (K²RAG Algorithm 3): the selected questions are permuted with the seed and split into K
near-equal consecutive parts (``numpy.array_split``); fold ids run 0..K-1.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from k2desk.errors import UsageError

CORPUS_FILE = "corpus.jsonl"
QUERY_FILES = ("queries.jsonl", "queries_sample.jsonl")
_LETTER = re.compile(r"^\s*\(?([A-Za-z])\)?\s*$")


@dataclass
class Question:
    id: str
    query: str
    answer: str  # gold answer text (for multiple choice: the gold option's text)
    question_type: str = "unknown"
    options: Optional[list[str]] = None
    gold_index: Optional[int] = None  # index of the gold option, when it is one of ``options``
    evidence_list: list[Any] = field(default_factory=list)
    fold: int = 0

    @property
    def is_multiple_choice(self) -> bool:
        return bool(self.options)

    @property
    def prompt(self) -> str:
        """The text sent to a method: the question, plus lettered options for multiple choice."""
        if not self.options:
            return self.query
        lines = [self.query, "Options:"]
        lines += [f"{chr(65 + i)}) {opt}" for i, opt in enumerate(self.options)]
        lines.append("Answer with the text of one option.")
        return "\n".join(lines)


@dataclass
class Bench:
    dir: Path
    name: str
    corpus: Path
    queries_file: Path
    questions: list[Question]  # every question of the file, in file order

    @property
    def collection(self) -> str:
        return collection_name(self.corpus)


def collection_name(corpus: Union[str, Path]) -> str:
    """``bench-`` + the first 12 hex digits of the sha256 of the corpus file's bytes."""
    digest = hashlib.sha256()
    with open(corpus, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return "bench-" + digest.hexdigest()[:12]


def stored_name(name: str, store: str) -> str:
    """A bench collection's name where it lives: a server's collection names take no '-'
    (``Settings.collection_address``), so ``bench_<hash>`` there, ``bench-<hash>`` in a file."""
    return name.replace("-", "_") if store else name


def _gold_option(options: list[str], label: Any) -> tuple[str, Optional[int]]:
    if isinstance(label, bool):  # bool is an int subclass: refuse it explicitly
        raise ValueError(f"gold_label {label!r} is not an index or a label")
    if isinstance(label, int):
        if not 0 <= label < len(options):
            raise ValueError(f"gold_label {label} is outside the {len(options)} options")
        return options[label], label
    text = str(label)
    for i, opt in enumerate(options):
        if opt.strip() == text.strip():
            return opt, i
    m = _LETTER.match(text)
    if m:
        idx = ord(m.group(1).upper()) - 65
        if 0 <= idx < len(options):
            return options[idx], idx
    return text, None


def parse_question(obj: dict[str, Any], line_no: int) -> Question:
    query = obj.get("query", obj.get("question"))
    if not isinstance(query, str) or not query.strip():
        raise ValueError("no 'query' (or 'question') text")
    qid = str(obj.get("id", f"q-{line_no}"))
    qtype = str(obj.get("question_type") or "unknown")
    evidence = obj.get("evidence_list") or []
    options = obj.get("options")
    if options is not None:
        if not isinstance(options, list) or not options or "gold_label" not in obj:
            raise ValueError("multiple choice needs a non-empty 'options' list and a 'gold_label'")
        options = [str(o) for o in options]
        gold, gold_index = _gold_option(options, obj["gold_label"])
        if gold_index is None and isinstance(obj.get("answer"), str):
            gold = obj["answer"]
        return Question(qid, query, gold, qtype, options, gold_index, evidence)
    answer = obj.get("answer")
    if answer is None:
        raise ValueError("no 'answer'")
    return Question(qid, query, str(answer), qtype, None, None, evidence)


def load_questions(path: Union[str, Path]) -> list[Question]:
    path = Path(path)
    questions: list[Question] = []
    seen: set[str] = set()
    with open(path, encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                q = parse_question(json.loads(line), line_no)
            except (ValueError, TypeError, AttributeError) as exc:
                raise UsageError(f"{path}:{line_no}: bad question line: {exc}") from exc
            if q.id in seen:
                raise UsageError(f"{path}:{line_no}: duplicate question id {q.id!r}")
            seen.add(q.id)
            questions.append(q)
    if not questions:
        raise UsageError(f"{path} holds no questions")
    return questions


def find_queries(bench_dir: Path, queries: Optional[str] = None) -> Path:
    if queries:
        cand = Path(queries).expanduser()
        for path in (cand, bench_dir / queries):
            if path.is_file():
                return path
        raise UsageError(f"queries file {queries!r} not found (looked in {bench_dir})")
    for name in QUERY_FILES:
        if (bench_dir / name).is_file():
            return bench_dir / name
    raise UsageError(f"{bench_dir} holds neither {' nor '.join(QUERY_FILES)}")


def load_bench(bench_dir: Union[str, Path], queries: Optional[str] = None) -> Bench:
    bench_dir = Path(bench_dir).expanduser()
    if not bench_dir.is_dir():
        raise UsageError(f"benchmark folder not found: {bench_dir}")
    corpus = bench_dir / CORPUS_FILE
    if not corpus.is_file():
        raise UsageError(f"{bench_dir} has no {CORPUS_FILE}")
    qfile = find_queries(bench_dir, queries)
    name = bench_dir.resolve().name or "bench"
    return Bench(bench_dir, name, corpus, qfile, load_questions(qfile))


def stratified_order(questions: list[Question], seed: int = 0) -> list[Question]:
    """All questions: shuffled per type with ``seed``, one of each type first, then by fractional rank."""
    rng = random.Random(seed)
    by_type: dict[str, list[Question]] = {}
    for q in questions:
        by_type.setdefault(q.question_type, []).append(q)
    keyed: list[tuple[float, str, int, Question]] = []
    for qtype in sorted(by_type):
        group = list(by_type[qtype])
        rng.shuffle(group)
        n = len(group)
        keyed += [((i + 0.5) / n if i else 0.0, qtype, i, q) for i, q in enumerate(group)]
    keyed.sort(key=lambda k: (k[0], k[1], k[2]))
    return [k[3] for k in keyed]


def select(questions: list[Question], limit: Optional[int] = None, seed: int = 0) -> list[Question]:
    if limit is not None and limit < 1:
        raise UsageError(f"--limit must be at least 1, got {limit}")
    ordered = stratified_order(questions, seed)
    return ordered[:limit] if limit is not None else ordered


def assign_folds(questions: list[Question], k: int = 10, seed: int = 0) -> list[Question]:
    """Set ``fold`` on each question (in place) and return them: K²RAG's Algorithm 3."""
    if k < 1:
        raise UsageError(f"--folds must be at least 1, got {k}")
    perm = np.random.default_rng(seed).permutation(len(questions))
    for fold, part in enumerate(np.array_split(perm, k)):
        for idx in part:
            questions[int(idx)].fold = fold
    return questions


def prepare(
    bench_dir: Union[str, Path],
    limit: Optional[int] = None,
    folds: int = 10,
    seed: int = 0,
    queries: Optional[str] = None,
) -> tuple[Bench, list[Question]]:
    """Load a bench and return it with the questions to run (selected, folds assigned)."""
    bench = load_bench(bench_dir, queries)
    chosen = select(bench.questions, limit, seed)
    return bench, assign_folds(chosen, folds, seed)
