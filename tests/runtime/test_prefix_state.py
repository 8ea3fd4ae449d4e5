"""A prompt's fixed beginning read once per model and kept on disk (issue 72), on the real tiny
GGUF: the beginnings are the same bytes across questions and turns; a state saved by one model
object is restored by the next (a new process's), read by no one else, and the reply is the one
it would have been; a state made for another model or another prompt, or one that does not read
back, is never used (a corrupt one is removed with one line) and the answer still comes."""

import pytest

from k2desk import prompts
from k2desk.conversation import Turn
from k2desk.conversation.understand import _messages
from k2desk.methods.base import LLMUsage
from k2desk.runtime.llm import LLM
from k2desk.runtime.prefix_state import PrefixStates

SYSTEM = {"role": "system", "content": "Rewrite the follow-up so that it stands alone, naming what it refers to. " * 6}


def asking(n: int) -> list[dict[str, str]]:
    return [SYSTEM, {"role": "user", "content": "Who chairs the Elmbrook council?"}, {"role": "assistant", "content": "Ruth Okafor"},
            {"role": "user", "content": f"And its treasurer, number {n}?"}]


def beginning(llm: LLM, messages) -> str:
    marker = "\x00END\x00"
    return llm.render([*messages[:-1], {"role": messages[-1]["role"], "content": marker}])[0].split(marker)[0]


@pytest.fixture
def model(tiny_llm_path, tmp_path):
    """A factory of model objects over one states folder (each a fresh context, as a new process has)."""
    made = []

    def make(folder=tmp_path / "states"):
        made.append(LLM(tiny_llm_path, n_ctx=1024, threads=2, state_dir=folder))
        return made[-1]

    yield make
    for llm in made:
        llm.close()


def test_the_rewrite_prompt_begins_with_the_same_bytes_for_every_follow_up_and_turn(tiny_llm_path):
    llm = LLM(tiny_llm_path, n_ctx=1024, threads=2)
    try:
        one = _messages("Where did she study?", [Turn("Who painted the mural?", "Who painted the mural?", "Ilse Marquardt")])
        two = _messages("And its secretary?", [Turn("Who chairs the council?", "Who chairs the council?", "Ruth Okafor"),
                                               Turn("When was it founded?", "When was the council founded?", "1911")])
        assert one[:-1] == two[:-1] and beginning(llm, one) == beginning(llm, two)
        assert llm.render(one)[0].startswith(beginning(llm, one)) and llm.render(two)[0].startswith(beginning(llm, two))
        assert len(llm.tokenize(beginning(llm, one))) > 200  # the instructions and their five examples
        # the reader's answer and its check share every byte up to the end of the evidence
        context = "Ruth Okafor chairs the Elmbrook parish council."
        answer = prompts.OPEN_ANSWER_PROMPT.format(context=context, question="Who chairs it?", answer="the name")
        check = prompts.VERIFY_PROMPT.format(context=context, question="Who chairs it?", answer="Ruth Okafor")
        shared = len(prompts.OPEN_ANSWER_PROMPT.split("{context}")[0]) + len(context)
        assert answer[:shared] == check[:shared]
    finally:
        llm.close()


def test_a_saved_beginning_is_restored_by_the_next_model_object_and_changes_no_reply(model, tiny_llm_path):
    plain = LLM(tiny_llm_path, n_ctx=1024, threads=2)  # no states anywhere: the reference replies
    try:
        expected = [plain.chat(asking(n), max_tokens=8).text for n in (1, 2)]
    finally:
        plain.close()
    first = model()
    assert first.chat(asking(1), max_tokens=8, keep_state=True).text == expected[0]
    assert first.states.saved == 1 and first.states.restored == 0
    fixed = len(first.tokenize(beginning(first, asking(1))))
    second = model()  # a new process: its context holds nothing
    usage = LLMUsage()
    assert second.chat(asking(2), max_tokens=8, keep_state=True, usage=usage).text == expected[1]
    assert second.states.restored == 1 and second.states.saved == 0
    assert usage.reused_tokens >= fixed - 2 and usage.read_tokens < usage.prompt_tokens - fixed + 4
    assert len(list(first.states.folder.glob("*.state"))) == 1


def test_a_state_is_never_used_for_another_model_or_another_prompt(model, tmp_path, capfd):
    llm = model()
    llm.chat(asking(1), max_tokens=4, keep_state=True)
    text = beginning(llm, asking(1))
    tokens = llm.tokenize(text)
    saved = llm.states.path(text)
    assert saved.is_file()
    other_model = PrefixStates(llm.states.folder, lambda: "f" * 64, llm.states.build)
    assert other_model.path(text) != saved and not other_model.load(text, tokens, lambda state: None)
    other_build = PrefixStates(llm.states.folder, lambda: llm.states.model_sha256, "0.0.0")
    assert other_build.path(text) != saved
    assert llm.states.path(text + " ") != saved  # another prompt version: another file
    # a file of another model's put in this one's place: its header says so, it is removed
    saved.rename(other_model.path(text))
    assert not other_model.load(text, tokens, lambda state: pytest.fail("restored"))
    assert "could not be read" in capfd.readouterr().err and not other_model.path(text).exists()
    # another prompt's tokens under this prompt's name: refused the same way
    llm.chat(asking(1), max_tokens=4, keep_state=True)
    assert not llm.states.load(text, tokens[:-1], lambda state: pytest.fail("restored"))


@pytest.mark.parametrize("damage", ["cut", "garbage", "empty", "header"])
def test_a_corrupt_state_is_discarded_with_one_line_and_the_answer_still_comes(model, tiny_llm_path, damage, capfd):
    plain = LLM(tiny_llm_path, n_ctx=1024, threads=2)
    try:
        expected = plain.chat(asking(2), max_tokens=8).text
    finally:
        plain.close()
    model().chat(asking(1), max_tokens=4, keep_state=True)
    llm = model()
    saved = llm.states.path(beginning(llm, asking(2)))
    data = saved.read_bytes()
    saved.write_bytes({"cut": data[: len(data) // 2], "garbage": data[:200] + b"\x07" * (len(data) - 200), "empty": b"",
                       "header": data.replace(b'"tokens":', b'"tokenz":', 1)}[damage])
    capfd.readouterr()
    reply = llm.chat(asking(2), max_tokens=8, keep_state=True).text
    err = capfd.readouterr().err
    assert reply == expected
    assert err.count("k2desk: a saved prompt state could not be read") == 1, err
    assert llm.states.restored == 0 and llm.states.saved == 1  # read again, and saved whole again
    assert saved.read_bytes() != b"" and model().chat(asking(1), max_tokens=4, keep_state=True).text
