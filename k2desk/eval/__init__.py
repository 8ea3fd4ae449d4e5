"""Evaluation harness: ``k2desk eval BENCH_DIR`` — several methods, same questions, one run.

- ``datasets``: bench folders (MultiHop-RAG shape, multiple choice), seeded stratified ``--limit``,
  K folds (K²RAG Algorithm 3).
- ``metrics``: SQuAD-normalized EM/F1, accuracy (word overlap, Yes/No polarity, null questions,
  multiple choice), abstention and hallucination, answer similarity (K²RAG eq. 6), quartiles.
- ``runner``: ``run_eval`` (index once, ask question-major, resumable ``results.jsonl``) and the
  CLI entry ``eval_command(args, settings)`` with ``add_eval_arguments(parser)``.
- ``report``: ``write_report(out_dir)`` → ``report.md`` + similarity/time box plots.
"""

from __future__ import annotations

from typing import Any

__all__ = ["run_eval", "eval_command", "add_eval_arguments", "write_report", "DEFAULT_METHODS"]


def __getattr__(name: str) -> Any:  # lazy: importing k2desk.eval stays cheap for the CLI
    if name in ("run_eval", "eval_command", "add_eval_arguments", "DEFAULT_METHODS"):
        from k2desk.eval import runner

        return getattr(runner, name)
    if name == "write_report":
        from k2desk.eval.report import write_report

        return write_report
    raise AttributeError(name)
