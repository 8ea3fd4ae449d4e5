"""What every retrieval method shares: the ``Method`` protocol, ``MethodBase`` (the set-up and
finish of every ``ask``) and the ``Timer``; the ``Answer`` a method returns is in
``k2desk/types.py``, the table of methods in ``registry.py``."""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Iterator, NamedTuple, Optional, Protocol

from k2desk.progress import CancelToken, Progress, progress_or_noop
from k2desk.types import Answer, LLMUsage, Source  # noqa: F401 (the methods' vocabulary)


class Timer:
    """Collects named step durations (seconds) into a dict: ``with timer("retrieve"): ...``."""

    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self._start = time.perf_counter()

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = self.timings.get(name, 0.0) + time.perf_counter() - t0

    def finish(self) -> dict[str, float]:
        self.timings["total"] = time.perf_counter() - self._start
        return self.timings


class Method(Protocol):
    """A way of answering a question from a collection's index."""

    name: str

    def ask(
        self,
        question: str,
        progress: Optional[Progress] = None,
        cancel: Optional[CancelToken] = None,
    ) -> Answer: ...


class Asking(NamedTuple):
    """One question on its way through a method; unpack it as
    ``question, result, timer, progress, cancel = asking``."""

    question: str
    result: Answer  # filled in by the method
    timer: Timer
    progress: Progress
    cancel: CancelToken


class MethodBase:
    """The set-up and finish every method shares: ``ask`` makes the empty ``Answer``, its
    ``Timer``, the progress callback and the cancel token, the method's ``steps(asking)`` fill
    the answer in (text, sources, trace, LLM usage), and ``ask`` stamps the timings."""

    name: str

    def ask(self, question: str, progress: Optional[Progress] = None, cancel: Optional[CancelToken] = None) -> Answer:
        asking = Asking(question, Answer(question, self.name, ""), Timer(), progress_or_noop(progress), cancel or CancelToken())
        self.steps(asking)
        asking.result.timings = asking.timer.finish()
        return asking.result

    def steps(self, asking: Asking) -> None:
        raise NotImplementedError
