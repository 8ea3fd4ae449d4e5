"""The answer step shared by every method: the paper's generation prompt over packed context."""

from __future__ import annotations

from typing import Callable, Optional, Sequence

from k2desk.methods.base import LLMUsage
from k2desk.progress import CancelToken
from k2desk.prompts import ABSTAIN_HINT, GENERATION_PROMPT
from k2desk.runtime.llm import LLM, Completion

BLOCK_SEPARATOR = "\n\n"


def generation_messages(context: str, question: str, abstain: bool = True) -> list[dict[str, str]]:
    prompt = GENERATION_PROMPT.format(context=context, question=question, abstain=ABSTAIN_HINT if abstain else "")
    return [{"role": "user", "content": prompt}]


def pack_context(llm: LLM, blocks: Sequence[str], budget: int) -> tuple[str, int]:
    """Join ranked ``blocks`` until ``budget`` tokens are used; the block that overflows is cut.
    Returns the context and how many blocks (whole or cut) it holds."""
    parts: list[str] = []
    used = 0
    for block in blocks:
        cost = llm.count_tokens(block) + (2 if parts else 0)
        if used + cost <= budget:
            parts.append(block)
            used += cost
            continue
        room = budget - used - (2 if parts else 0)
        if room > 16:
            parts.append(llm.truncate(block, room))
        break
    return BLOCK_SEPARATOR.join(parts), len(parts)


def answer(llm: LLM, question: str, blocks: Sequence[str], max_tokens: int, usage: Optional[LLMUsage] = None,
           on_token: Optional[Callable[[str], None]] = None, cancel: Optional[CancelToken] = None,
           abstain: bool = True) -> tuple[Completion, str]:
    """Answer ``question`` from ``blocks`` (best first) without ever overflowing the context
    window: the context is cut, never the question. Returns the completion and the context used."""
    budget = llm.budget(generation_messages("", question, abstain), max_tokens)
    context, _ = pack_context(llm, blocks, max(budget, 0))
    completion = llm.chat(generation_messages(context, question, abstain), max_tokens=max_tokens,
                          usage=usage, on_token=on_token, cancel=cancel)
    return completion, context
