"""Progress callbacks and cancellation: part of every long call's interface.

A long call takes ``progress(stage, done, total)`` and a ``CancelToken``; the CLI progress bar,
the GUI worker and the tests all use the same hooks.
"""

from __future__ import annotations

import threading
from typing import Callable, Optional

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


NEVER = CancelToken()


def progress_or_noop(progress: Optional[Progress]) -> Progress:
    return progress or no_progress
