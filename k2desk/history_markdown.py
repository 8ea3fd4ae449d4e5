"""A collection's questions and answers as one Markdown document, with the sources they came from."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Sequence

from k2desk.store.history import HistoryEntry
from k2desk.types import page_range

PASSAGE_CHARS = 400


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return "> " + (flat[:PASSAGE_CHARS] + (" …" if len(flat) > PASSAGE_CHARS else ""))


def entry_markdown(e: HistoryEntry, heading: str = "##") -> str:
    calls = int(e.llm.get("calls", 0))
    lines = [f"{heading} {' '.join(e.asked.split())}", ""]
    if e.message:  # a follow-up: the standalone question it was answered as
        lines += [f"*Understood as: {' '.join(e.question.split())}*", ""]
    lines += [f"*{_when(e.asked_at)} · {e.method} · {e.seconds:.1f} s · {calls} LLM call{'s' if calls != 1 else ''}*", "",
              e.answer.strip() or "(no answer)", ""]
    if e.verdict.outcome != "answered" and e.verdict.reason:  # why it was declined or shown with a caution
        lines += [f"*{e.verdict.outcome.capitalize()}: {e.verdict.reason}.*", ""]
    if e.scope:
        lines += ["*Asked about: " + ", ".join(f"`{Path(k).name or k}`" for k in e.scope) + "*", ""]
    if e.note:
        lines += [f"*{e.note}*", ""]
    if e.sources:
        lines += ["**Sources**", ""]
        for i, s in enumerate(e.sources, 1):
            name = Path(str(s.get("document", ""))).name or str(s.get("document", ""))
            pages = page_range(int(s.get("page") or 0), int(s.get("last_page") or 0), long=True) or str(s.get("location") or "")
            page = f", {pages}" if pages else ""
            lines += [f"{i}. `{name}`{page} (score {float(s.get('score', 0.0)):.3f}) — {s.get('document', '')}",
                      "", "   " + _quote(str(s.get("text", ""))), ""]
    return "\n".join(lines)


def history_markdown(entries: Sequence[HistoryEntry], collection: str) -> str:
    """Oldest question first, each with its answer, method, time and numbered sources."""
    n = len(entries)
    head = [f"# Questions about “{collection}”", "",
            f"Exported by k2desk on {_when(time.time())} · {n} question{'s' if n != 1 else ''}", ""]
    body = [entry_markdown(e) for e in sorted(entries, key=lambda e: (e.asked_at, e.id))]
    return "\n".join(head + body).rstrip() + "\n"


def thread_markdown(title: str, turns: Sequence[HistoryEntry], collection: str) -> str:
    """One conversation, its turns in order, each follow-up with what it was understood as."""
    n = len(turns)
    head = [f"# {title}", "", f"A conversation with “{collection}”, exported by k2desk on {_when(time.time())} · "
            f"{n} turn{'s' if n != 1 else ''}", ""]
    return "\n".join(head + [entry_markdown(e) for e in turns]).rstrip() + "\n"
