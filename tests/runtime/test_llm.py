"""The llama-cpp-python runtime on the real tiny GGUF (SmolLM2-135M)."""

import pytest

from k2desk.errors import Cancelled, ModelError
from k2desk.methods.base import LLMUsage
from k2desk.methods.generate import answer, generation_messages
from k2desk.progress import CancelToken
from k2desk.runtime.llm import LLM


@pytest.fixture(scope="module")
def llm(tiny_llm_path):
    model = LLM(tiny_llm_path, n_ctx=1024, threads=2)
    yield model
    model.close()


def test_chat_counts_tokens_and_streams(llm):
    usage = LLMUsage()
    pieces = []
    out = llm.chat([{"role": "user", "content": "Say hello."}], max_tokens=12, usage=usage, on_token=pieces.append)
    assert out.text and out.completion_tokens <= 12
    assert "".join(pieces).strip() == out.text
    prompt, _ = llm.render([{"role": "user", "content": "Say hello."}])
    assert out.prompt_tokens == len(llm.tokenize(prompt)) and "Say hello." in prompt
    assert usage.calls == 1 and usage.prompt_tokens == out.prompt_tokens and usage.completion_tokens == out.completion_tokens


def test_json_schema_bounds_the_output(llm):
    schema = {"type": "object", "properties": {
        "names": {"type": "array", "items": {"type": "string", "maxLength": 20}, "maxItems": 3}},
        "required": ["names"]}
    value = llm.json([{"role": "user", "content": "List people in: Ada met Bob and Cy in Paris. Answer in JSON."}], schema, max_tokens=200)
    assert isinstance(value, dict) and isinstance(value["names"], list)
    assert len(value["names"]) <= 3 and all(len(n) <= 20 for n in value["names"])


def test_context_is_cut_never_the_question(llm):
    question = "What colour is the door? (QUESTION-MARKER)"
    huge = ["The door is green. " * 200] * 10  # far more than 1,024 tokens
    usage = LLMUsage()
    out, context = answer(llm, question, huge, max_tokens=16, usage=usage)
    assert usage.prompt_tokens + 16 <= llm.n_ctx
    assert len(context) < sum(map(len, huge))
    prompt, _ = llm.render(generation_messages(context, question))
    assert "QUESTION-MARKER" in prompt and prompt.rstrip().endswith("Short Answer:") or "Short Answer:" in prompt


def test_truncate_and_budget(llm):
    text = "one two three four five six seven eight nine ten " * 10
    cut = llm.truncate(text, 5)
    assert llm.count_tokens(cut) <= 5 and text.startswith(cut.strip()[:3])
    assert llm.truncate("short", 100) == "short"
    assert llm.budget(generation_messages("", "q?"), 64) < llm.n_ctx - 64


def test_cancel_stops_generation(llm):
    cancel = CancelToken()
    seen = []

    def on_token(t):
        seen.append(t)
        cancel.cancel()

    with pytest.raises(Cancelled):
        llm.chat([{"role": "user", "content": "Count from one to fifty in words."}], max_tokens=200, on_token=on_token, cancel=cancel)
    assert len(seen) == 1


def test_bad_model_files_name_the_file(tmp_path):
    with pytest.raises(ModelError, match="not found: .*nothing.gguf"):
        LLM(tmp_path / "nothing.gguf")
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 64)
    with pytest.raises(ModelError, match="bad.gguf"):
        LLM(bad)


def test_first_token_logits_read_the_next_token_whatever_the_cache(llm):
    messages = [{"role": "user", "content": "Name one colour of the rainbow. Answer with one word."}]
    first = llm.chat(messages, max_tokens=1)  # the greedy first token of the reply
    words = {"greedy": [first.text], "other": ["zebra"]}
    calls = llm.total.calls
    scores = llm.first_token_logits(messages, words)
    assert scores["greedy"] > scores["other"]
    assert llm.total.calls == calls + 1
    # the evaluated prefix is reused or dropped: the scores do not depend on what ran before (up to
    # the float rounding of a different batch split)
    assert llm.first_token_logits(messages, words) == pytest.approx(scores, rel=1e-2)
    llm.chat([{"role": "user", "content": "Something else entirely."}], max_tokens=4)
    assert llm.first_token_logits(messages, words) == pytest.approx(scores, rel=1e-2)
    assert llm.chat(messages, max_tokens=1).text == first.text  # generation after it is unchanged


def test_a_reply_that_avoids_another_begins_otherwise_and_only_the_first_token_is_barred(llm):
    import numpy as np

    from k2desk.runtime.llm import _not_first

    bar = _not_first([3])[0]
    first, later = bar(None, np.zeros(5)), bar(None, np.zeros(5))
    assert first[3] == -np.inf and np.isfinite(np.delete(first, 3)).all() and np.isfinite(later).all()
    messages = [{"role": "user", "content": "Name one colour of the rainbow. Answer with one word."}]
    reply = llm.chat(messages, max_tokens=6)
    again = llm.chat(messages, max_tokens=6, avoid=reply.text)
    assert again.text and llm.tokenize(again.text, special=False)[0] != llm.tokenize(reply.text, special=False)[0]
    # a token barred from the first place stays free after it: " the" (with its space) comes only later
    repeat = [{"role": "user", "content": "Repeat exactly: the cat and the dog and the bird"}]
    plain = llm.chat(repeat, max_tokens=12).text
    the = llm.tokenize(" the", special=False)[0]
    assert the in llm.tokenize(plain, special=False)[1:], plain
    assert llm.chat(repeat, max_tokens=12, avoid=" the").text == plain
    assert llm.chat(messages, max_tokens=6).text == reply.text  # a later call is not barred


def test_a_kept_prompt_state_is_read_back_after_other_prompts_and_changes_no_reply(llm):
    """chat(keep_state=True) keeps the state of its prompt's fixed beginning (every message but
    the last), so a later prompt with the same beginning, asked after another one, starts from
    it (restored from memory: this model has no states folder); the reply is the one it would
    have been, and the beginning counts as reused, not read."""
    system = {"role": "system", "content": "Rewrite the question so it stands alone. " * 8}
    ask = lambda n: [system, {"role": "user", "content": f"And its treasurer number {n}?"}]  # noqa: E731
    other = [{"role": "user", "content": "Name a colour."}]
    plain = [llm.chat(ask(n), max_tokens=8).text for n in (1, 2)]
    recalled = llm.states.recalled
    first = llm.chat(ask(1), max_tokens=8, keep_state=True).text
    llm.chat(other, max_tokens=4)  # the context now holds another prompt
    usage = LLMUsage()
    second = llm.chat(ask(2), max_tokens=8, keep_state=True, usage=usage).text
    assert llm.states.recalled == recalled + 1 and llm.states.folder is None and llm.states.saved == 0
    fixed = len(llm.tokenize(llm.render([system])[0])) - 8
    assert usage.reused_tokens > fixed and usage.read_tokens < usage.prompt_tokens - fixed
    assert [first, second] == plain


def test_a_prompt_read_ahead_is_not_read_again_and_changes_no_reply(llm):
    """preread: the beginning of a prompt to come (a follow-up's rewrite before the follow-up is
    typed), read while the model is idle; the prompt, when it comes, reads only the rest. (Its reply
    may differ from the prompt's read whole where rounding at a batch split differs: 2 of 97 rewrites
    of the 1.5B, docs/speed/.) A cancelled read-ahead reads no further than the fixed part."""
    system = {"role": "system", "content": "Rewrite the question so it stands alone, naming what it means. " * 6}
    conversation = "Question: Who leads the Lindenfeld Solar Cooperative?\nAnswer: Henrike Albers\n\nFollow-up:"
    ask = [system, {"role": "user", "content": conversation + " Where did she study?"}]
    ahead = [system, {"role": "user", "content": conversation}]
    other = [{"role": "user", "content": "Name a colour."}]
    llm.chat(other, max_tokens=4)  # the context holds another prompt, as after an answer
    token = CancelToken()
    token.cancel()
    assert llm.preread(ahead, cancel=token) <= len(llm.tokenize(llm.render([system])[0]))
    llm.chat(other, max_tokens=4)
    read = llm.preread(ahead)
    usage = LLMUsage()
    reply = llm.chat(ask, max_tokens=8, keep_state=True, usage=usage).text
    marker = "\x00"
    prefix = llm.tokenize(llm.render([system, {"role": "user", "content": conversation + marker}])[0].split(marker)[0])
    assert read > 0 and usage.reused_tokens >= len(prefix) - 1  # the conversation was not read twice
    assert usage.read_tokens < len(llm.tokenize(" Where did she study?")) + 12  # the message and the template's end
    assert reply


def test_prompt_tokens_the_context_holds_are_counted_reused(llm):
    system = {"role": "system", "content": "You answer questions about ferries and lighthouses, briefly. " * 4}
    usage = LLMUsage()
    llm.chat([{"role": "user", "content": "Unrelated words to fill the context first."}], max_tokens=2)
    llm.chat([system, {"role": "user", "content": "How far is the lighthouse visible?"}], max_tokens=4, usage=usage)
    first = usage.reused_tokens
    llm.chat([system, {"role": "user", "content": "When does the ferry leave?"}], max_tokens=4, usage=usage)
    shared = type(llm._llm).longest_token_prefix(
        llm.tokenize(llm.render([system, {"role": "user", "content": "How far is the lighthouse visible?"}])[0]),
        llm.tokenize(llm.render([system, {"role": "user", "content": "When does the ferry leave?"}])[0]))
    assert usage.reused_tokens - first == shared > 40  # the system message and the template around it
    assert usage.read_tokens == usage.prompt_tokens - usage.reused_tokens
