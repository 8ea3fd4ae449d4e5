"""Progress callbacks and cancellation: part of every long call's interface.

A long call takes ``progress(stage, done, total)`` and a ``CancelToken``; the CLI progress bar,
the GUI worker and the tests all use the same hooks.
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Optional, TextIO

from k2desk.errors import Cancelled

Progress = Callable[[str, int, int], None]


def no_progress(stage: str, done: int, total: int) -> None:  # noqa: ARG001
    return None


class CancelToken:
    """Thread-safe cancellation flag; long loops call ``check()`` between units of work."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        if self._event.is_set():
            raise Cancelled("cancelled by the user")

    def wait(self, timeout: float) -> bool:
        """Block until cancelled or ``timeout`` seconds passed; True when cancelled."""
        return self._event.wait(timeout)


NEVER = CancelToken()


def progress_or_noop(progress: Optional[Progress]) -> Progress:
    return progress or no_progress


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class LineProgress:
    """A ``Progress`` for a log or a pipe (no terminal to draw bars on): one line per stage at
    most every ``interval`` seconds, plus its first and last, with elapsed time and an ETA."""

    def __init__(self, stream: TextIO, interval: float = 30.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream, self.interval, self.clock = stream, interval, clock
        self._started: dict[str, tuple[float, int]] = {}  # stage -> (time, done) when first seen
        self._last: dict[str, float] = {}  # stage -> time of its last line
        self._finished: set[str] = set()  # stages whose last line is out

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = self.clock()
        t0, done0 = self._started.setdefault(stage, (now, done))
        finished = total > 0 and done >= total
        if stage in self._finished or (stage in self._last and not finished and now - self._last[stage] < self.interval):
            return
        self._last[stage] = now
        if finished:
            self._finished.add(stage)
        line = f"{stage}: {done}/{total}" if total > 0 else f"{stage}: {done}"
        line += f" ({100 * done / total:.0f} %)" if total > 0 else ""
        line += f", {_clock(now - t0)} elapsed"
        if total > 0 and not finished and done > done0:
            line += f", ETA {_clock((now - t0) / (done - done0) * (total - done))}"
        print(line, file=self.stream, flush=True)
