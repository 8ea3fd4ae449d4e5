"""The terminal side of the command line: stderr's console and the per-stage progress bars (used by
the commands and by the evaluation harness)."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from k2desk.progress import LineProgress
from k2desk.types import Answer

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


def print_answer(answer: Answer, streamed: list[str]) -> None:
    """An answer on the terminal after it streamed (or not): the answer, its caution or why it was
    declined, what it was understood as, its documents and sources, its cost."""
    if streamed and "".join(streamed).strip() == answer.answer.strip():
        print()
    else:  # not streamed, or the answer is not what streamed (declined, or a second answer)
        print(("\n" if streamed else "") + answer.answer)
    for note in answer.notes(indent="  "):
        print(note)
    if answer.scope:
        print("Asked about: " + ", ".join(Path(k).name or k for k in answer.scope))
    print("\nSources:")
    for i, s in enumerate(answer.sources, 1):
        snippet = " ".join(s.text.split())[:160]
        page = f"{s.where()}, " if s.where() else ""
        print(f"  [{i}] {s.document} ({page}chunk {s.chunk_id}, score {s.score:.3f})\n      {snippet}")
    t = answer.timings.get("total", 0.0)
    print(f"\n{answer.method}: {t:.1f} s, {answer.llm.calls} LLM calls, {answer.llm.prompt_tokens}+{answer.llm.completion_tokens} tokens")
