"""The terminal side of the command line: stderr's console and the per-stage progress bars (used by
the commands and by the evaluation harness)."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from k2desk.progress import LineProgress

err = Console(stderr=True, highlight=False)


@contextmanager
def progress_bars(enabled: bool = True, width: int = 16, eta_window: float = 30.0) -> Iterator:
    """A ``progress(stage, done, total)`` callback drawing one bar per stage on stderr, labels
    ``width`` wide, the ETA from the speed over the last ``eta_window`` seconds; a line every
    30 s per stage when stderr is a log or a pipe; None when not ``enabled``."""
    if not enabled:
        yield None
        return
    if not sys.stderr.isatty():
        yield LineProgress(sys.stderr)
        return
    with Progress(TextColumn(f"{{task.description:>{width}}}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("ETA"), TimeRemainingColumn(), console=err, transient=False,
                  speed_estimate_period=eta_window) as bars:
        tasks: dict[str, int] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bars.add_task(stage, total=total or None, completed=done)
            else:
                bars.update(tasks[stage], completed=done, total=total or None)

        yield update
