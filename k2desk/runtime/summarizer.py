"""Summarizers: one interface, three backends.

- ``OnnxSeq2SeqSummarizer`` (seq2seq_onnx.py): an exported LED/BART/T5 model, onnxruntime only —
  the paper's choice (a Longformer/LED summarizer).
- ``LLMSummarizer``: asks the quantized LLM (``complete(prompt, max_tokens)``) with
  ``prompts.SUMMARIZE_PROMPT``.
- ``ExtractiveSummarizer``: no model — TextRank over TF-IDF sentence vectors; fastest.

``make_summarizer`` picks one: ``auto`` = an exported ONNX summarizer if the models folder has
one, else the LLM when given, else extractive.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from pathlib import Path
from typing import Optional, Protocol, runtime_checkable

import numpy as np

from k2desk.errors import ModelError, UsageError
from k2desk.progress import NEVER, CancelToken
from k2desk.runtime.seq2seq_onnx import OnnxSeq2SeqSummarizer
from k2desk.types import LLMUsage

__all__ = [
    "Summarizer", "OnnxSeq2SeqSummarizer", "ExtractiveSummarizer", "LLMSummarizer",
    "make_summarizer", "find_onnx_summarizer", "BACKENDS",
]

BACKENDS = ("auto", "onnx", "llm", "extractive")
TOKENS_PER_WORD = 1.3


@runtime_checkable
class Summarizer(Protocol):
    name: str

    def summarize(self, text: str, max_tokens: int = 200, cancel: Optional[CancelToken] = None,
                  usage: Optional[LLMUsage] = None) -> str:
        """At most ``max_tokens`` of summary; ``cancel`` is checked while it is written (an LLM's
        between tokens) and an LLM's calls and tokens are added to ``usage``."""
        ...


def words_for_tokens(max_tokens: int) -> int:
    return max(1, int(max_tokens / TOKENS_PER_WORD))


# ---------------------------------------------------------------- extractive

_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+(?=[\"'(\[]?[A-Z0-9])")
_PARAGRAPH = re.compile(r"\n\s*\n")
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just me more most
my myself no nor not now of off on once only or other our ours ourselves out over own same she should
so some such than that the their theirs them themselves then there these they this those through to
too under until up very was we were what when where which while who whom why will with would you
your yours yourself yourselves also said says one two
""".split())


_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof st jr sr vs etc e.g i.e inc ltd co corp no fig gen gov sen rep u.s approx dept".split())


def split_sentences(text: str) -> list[str]:
    """Sentences (ending in . ! ? before a capital or digit; a blank line always ends one),
    whitespace normalized; a split after an abbreviation or an initial ("Dr.", "J.") is undone."""
    sentences: list[str] = []
    for paragraph in _PARAGRAPH.split(text):
        start = len(sentences)
        for raw in _SENTENCE_END.split(paragraph):
            part = re.sub(r"\s+", " ", raw).strip()
            if not part:
                continue
            last = sentences[-1].rsplit(" ", 1)[-1] if len(sentences) > start else ""
            if last.endswith(".") and (last[:-1].lower() in _ABBREVIATIONS or re.fullmatch(r"[A-Z]\.", last)):
                sentences[-1] = f"{sentences[-1]} {part}"
            else:
                sentences.append(part)
    return sentences


class ExtractiveSummarizer:
    """TextRank over TF-IDF sentence vectors; keeps the chosen sentences in document order.

    The summary stays within ``max_tokens`` (estimated as words * 1.3); a single sentence longer
    than the budget is cut at a word boundary."""

    name = "extractive"

    def __init__(self, damping: float = 0.85, iterations: int = 50, max_graph_sentences: int = 1500) -> None:
        self.damping = damping
        self.iterations = iterations
        self.max_graph_sentences = max_graph_sentences

    def summarize(self, text: str, max_tokens: int = 200, cancel: Optional[CancelToken] = None,
                  usage: Optional[LLMUsage] = None) -> str:
        (cancel or NEVER).check()
        budget = words_for_tokens(max_tokens)
        sentences = split_sentences(text)
        if not sentences:
            return ""
        lengths = [len(s.split()) for s in sentences]
        if sum(lengths) <= budget:
            return " ".join(sentences)
        ranking = np.argsort(-self.scores(sentences), kind="stable")
        chosen, used = [], 0
        for i in ranking:
            if used + lengths[i] <= budget:
                chosen.append(int(i))
                used += lengths[i]
            if used >= budget:
                break
        if not chosen:  # even the best sentence is too long: cut it
            return " ".join(sentences[int(ranking[0])].split()[:budget])
        return " ".join(sentences[i] for i in sorted(chosen))

    def scores(self, sentences: list[str]) -> np.ndarray:
        """Centrality of each sentence (higher = more central): TextRank over the cosine graph of
        TF-IDF vectors; above ``max_graph_sentences`` the (linear) similarity to the centroid."""
        n = len(sentences)
        tokens = [Counter(w for w in _WORD.findall(s.lower()) if w not in STOPWORDS) for s in sentences]
        df = Counter(w for t in tokens for w in t)
        if n == 1 or not df:
            return np.linspace(1.0, 0.0, n) if n > 1 else np.ones(1)
        idf = {w: math.log((1 + n) / (1 + c)) + 1.0 for w, c in df.items()}
        vectors = []
        for t in tokens:
            v = {w: math.log1p(c) * idf[w] for w, c in t.items()}
            norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
            vectors.append({w: x / norm for w, x in v.items()})
        if n > self.max_graph_sentences:
            centroid: Counter = Counter()
            for v in vectors:
                centroid.update(v)
            return np.array([sum(x * (centroid[w] - x) for w, x in v.items()) for v in vectors])
        # only words in two or more sentences link sentences: the matrix needs no other column
        shared = {w: j for j, w in enumerate(sorted(w for w, c in df.items() if c > 1))}
        dense = np.zeros((n, max(1, len(shared))), dtype=np.float64)
        for i, v in enumerate(vectors):
            for w, x in v.items():
                if w in shared:
                    dense[i, shared[w]] = x
        sim = dense @ dense.T
        np.fill_diagonal(sim, 0.0)
        rows = sim.sum(axis=1, keepdims=True)
        # a sentence sharing no word with any other links uniformly (no dangling mass)
        trans = np.where(rows > 0, sim / np.where(rows > 0, rows, 1.0), 1.0 / n)
        rank = np.full(n, 1.0 / n)
        for _ in range(self.iterations):
            new = (1 - self.damping) / n + self.damping * (trans.T @ rank)
            done = np.abs(new - rank).sum() < 1e-9
            rank = new
            if done:
                break
        return rank


# ---------------------------------------------------------------- LLM


class LLMSummarizer:
    """Summaries written by the LLM: one ``llm.chat`` turn with SUMMARIZE_PROMPT, cancellable
    between tokens and counted in the caller's usage.

    ``max_input_words`` (optional) cuts long inputs so the prompt fits the LLM's context."""

    name = "llm"

    def __init__(self, llm, prompt: Optional[str] = None, max_input_words: Optional[int] = None) -> None:
        if prompt is None:
            from k2desk.prompts import SUMMARIZE_PROMPT

            prompt = SUMMARIZE_PROMPT
        self.llm = llm
        self.prompt = prompt
        self.max_input_words = max_input_words

    def summarize(self, text: str, max_tokens: int = 200, cancel: Optional[CancelToken] = None,
                  usage: Optional[LLMUsage] = None) -> str:
        (cancel or NEVER).check()
        text = text.strip()
        if self.max_input_words:
            words = text.split()
            if len(words) > self.max_input_words:
                text = " ".join(words[: self.max_input_words])
        prompt = self.prompt.format(text=text, max_words=words_for_tokens(max_tokens))
        out = self.llm.chat([{"role": "user", "content": prompt}], max_tokens=max_tokens, usage=usage, cancel=cancel)
        return drop_repeated_sentences(out.text.strip())


_ANY_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")  # generated text: any stop ends a sentence


def drop_repeated_sentences(text: str) -> str:
    """``text`` without the sentences that repeat an earlier one (case and spacing aside): the
    trace of a greedy decoding loop, which small models fall into on long inputs."""
    seen: set[str] = set()
    kept = []
    for sentence in _ANY_SENTENCE_END.split(text):
        key = " ".join(sentence.casefold().split())
        if key and key not in seen:
            seen.add(key)
            kept.append(sentence.strip())
    return " ".join(kept)


# ---------------------------------------------------------------- selection


def _is_export(path: Path) -> bool:
    return path.is_dir() and (path / "encoder_model.onnx").is_file()


def find_onnx_summarizer(models_dir: Path) -> Optional[Path]:
    """The exported summarizer in ``models_dir/summarizers/``: the one named in its ``default``
    file, else the first (by name); None when there is none."""
    root = Path(models_dir) / "summarizers"
    if not root.is_dir():
        return None
    default = root / "default"
    if default.is_file():
        name = default.read_text(encoding="utf-8").strip()
        if name:
            if not _is_export(root / name):
                raise ModelError(
                    f"default summarizer {name!r} (named in {default}) is not an exported model in {root}")
            return root / name
    found = sorted(p for p in root.iterdir() if _is_export(p))
    return found[0] if found else None


_onnx_lock = threading.Lock()
_onnx_summarizers: dict[tuple[str, Optional[int]], "OnnxSeq2SeqSummarizer"] = {}


def make_summarizer(backend: str, models_dir: Path, llm=None, threads: Optional[int] = None) -> Summarizer:
    """``auto`` | ``onnx`` | ``llm`` | ``extractive`` (see the module docstring)."""
    backend = (backend or "auto").lower()
    if backend not in BACKENDS:
        raise UsageError(f"unknown summarizer backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend == "extractive":
        return ExtractiveSummarizer()
    if backend == "llm":
        if llm is None:
            raise ModelError("the llm summarizer needs an LLM (none is loaded)")
        return LLMSummarizer(llm)
    found = find_onnx_summarizer(Path(models_dir))
    if found is not None:  # loading its sessions takes seconds: once per process, not per document or question
        key = (str(found), threads)
        with _onnx_lock:
            if key not in _onnx_summarizers:
                _onnx_summarizers[key] = OnnxSeq2SeqSummarizer(found, threads=threads)
            return _onnx_summarizers[key]
    if backend == "onnx":
        raise ModelError(
            f"no ONNX summarizer in {Path(models_dir) / 'summarizers'}; run `k2desk models export-summarizer SRC`")
    return LLMSummarizer(llm) if llm is not None else ExtractiveSummarizer()
