"""Greedy decoding under a JSON grammar at the speed of free decoding.

llama-cpp-python 0.3.x builds its sampler chain as penalties → grammar → greedy, so at every
token the grammar checks every candidate of the vocabulary (151,936 for Qwen2.5): ~27 ms a token
on 2 cores, more than the model's own ~18 ms, and ~10× what a token costs on a GPU
(docs/gpu/README.md). llama.cpp's own sampler (common/sampling.cpp) avoids this: it picks the
token first and asks the grammar about that one token; only when the grammar rejects it does
it filter the whole vocabulary. Greedy decoding gives the same tokens either way (the best token
is the best allowed token whenever it is allowed), so nothing but time changes.

``install(llama)`` makes a ``llama_cpp.Llama`` build that chain for greedy calls with a grammar
(every schema-constrained call of k2desk: the LLM graph extractor), and counts in
``LazyGrammarStats`` how many tokens needed the full check. Sampling with a temperature, or a
llama-cpp-python whose internals differ, keeps the library's own chain.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from typing import Any


@dataclass
class LazyGrammarStats:
    tokens: int = 0  # tokens chosen under a grammar
    full_checks: int = 0  # of those, how many the grammar rejected first (the whole vocabulary checked)


def install(llama: Any) -> LazyGrammarStats | None:
    """Wrap ``llama._init_sampler`` (llama-cpp-python 0.3.x) so greedy calls with a grammar check
    the chosen token first; None (nothing changed) when the library lacks what this needs."""
    try:
        import llama_cpp as C
        from llama_cpp import _internals
    except ImportError:  # pragma: no cover - installation problem, reported where the model loads
        return None
    needed = (getattr(_internals.LlamaSampler, name, None) for name in ("add_custom", "add_grammar", "add_greedy"))
    if not all(needed) or not hasattr(C, "llama_sampler_chain_get") or not hasattr(llama, "_init_sampler"):
        return None
    original = llama._init_sampler
    stats = LazyGrammarStats()

    def init_sampler(*args: Any, **kwargs: Any):
        grammar = kwargs.get("grammar")
        plain = (kwargs.get("temp", 0.8) == 0.0 and kwargs.get("logits_processor") is None and not args
                 and kwargs.get("repeat_penalty", 1.0) == 1.0 and not kwargs.get("frequency_penalty")
                 and not kwargs.get("presence_penalty"))
        if grammar is None or not plain:
            return original(*args, **kwargs)
        return _chain(C, _internals, llama._model, grammar, stats)  # noqa: SLF001

    llama._init_sampler = init_sampler
    return stats


def _chain(C: Any, _internals: Any, model: Any, grammar: Any, stats: LazyGrammarStats):
    """first-token check → grammar → greedy. The first step leaves only the best token when the
    grammar allows it, so the grammar step then looks at one candidate, not the vocabulary."""
    import numpy as np

    sampler = _internals.LlamaSampler()
    probe = (C.llama_token_data * 1)()
    one = C.llama_token_data_array(data=ctypes.cast(probe, C.llama_token_data_p), size=1, selected=-1, sorted=False)
    grammar_step: list[Any] = []

    def first_token(cur_p: Any) -> None:
        cur = cur_p.contents
        if cur.size <= 1 or not grammar_step:
            return
        view = np.ctypeslib.as_array(cur.data, shape=(cur.size,))
        best = int(view["logit"].argmax())
        probe[0].id, probe[0].logit, probe[0].p = int(view["id"][best]), float(view["logit"][best]), 0.0
        one.size, one.selected, one.sorted = 1, -1, False
        C.llama_sampler_apply(grammar_step[0], ctypes.byref(one))
        stats.tokens += 1
        if math.isinf(probe[0].logit) and probe[0].logit < 0:  # rejected: the grammar filters them all
            stats.full_checks += 1
            return
        cur.data[0] = cur.data[best]
        cur.size, cur.selected, cur.sorted = 1, -1, False

    sampler.add_custom(first_token)
    sampler.add_grammar(model, grammar)
    grammar_step.append(C.llama_sampler_chain_get(sampler.sampler, C.llama_sampler_chain_n(sampler.sampler) - 1))
    sampler.add_greedy()
    return sampler
