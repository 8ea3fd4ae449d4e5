"""Greedy decoding under a grammar, the chosen token checked first (runtime/grammar_sampling.py),
on the real tiny GGUF: the same tokens as the library's own chain, far fewer full checks."""

import pytest

from k2desk.graph.extract import EXTRACTION_SCHEMA, extraction_messages
from k2desk.runtime.llm import LLM

TEXT = ("The Lindenfeld Solar Cooperative was founded in 2014 by residents of the valley. Its chair, "
        "Henrike Albers, signed a contract with the Altmoor ferry company in 2019.")


@pytest.fixture(scope="module")
def llm(tiny_llm_path):
    model = LLM(tiny_llm_path, n_ctx=1024, threads=2)
    yield model
    model.close()


def _extract(llm, lazy: bool) -> str:
    if not lazy:  # the library's own method (grammar over the whole vocabulary at every token)
        llm._llm.__dict__.pop("_init_sampler", None)
    llm._llm.reset()
    return llm.chat(extraction_messages(TEXT), max_tokens=160, schema=EXTRACTION_SCHEMA).text


def test_same_tokens_as_the_full_check_with_few_full_checks(tiny_llm_path):
    model = LLM(tiny_llm_path, n_ctx=1024, threads=2)
    try:
        stats = model.grammar_stats
        assert stats is not None, "llama-cpp-python's sampler internals changed: grammar_sampling.install did nothing"
        lazy = _extract(model, lazy=True)
        assert stats.tokens >= 20 and stats.full_checks < stats.tokens / 2
        checked = (stats.tokens, stats.full_checks)
        full = _extract(model, lazy=False)
        assert (stats.tokens, stats.full_checks) == checked  # the library's chain ran this time
        assert lazy == full and lazy.startswith("{")
    finally:
        model.close()


def test_sampling_with_a_temperature_keeps_the_library_chain(llm):
    before = (llm.grammar_stats.tokens, llm.grammar_stats.full_checks)
    out = llm.chat(extraction_messages(TEXT), max_tokens=40, schema=EXTRACTION_SCHEMA, temperature=0.7)
    assert out.text.startswith("{")
    assert (llm.grammar_stats.tokens, llm.grammar_stats.full_checks) == before


def test_plain_greedy_calls_do_not_touch_the_grammar_path(llm):
    before = llm.grammar_stats.tokens
    llm.chat([{"role": "user", "content": "Say hello."}], max_tokens=8)
    assert llm.grammar_stats.tokens == before
