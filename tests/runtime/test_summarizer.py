"""Summarizer backends without a model: extractive behaviour, backend selection, the LLM wrapper.

(The ONNX backend against transformers is in test_export_led.py.)
"""

from __future__ import annotations

import pytest

from k2desk.errors import Cancelled, ModelError, UsageError
from k2desk.progress import CancelToken
from k2desk.runtime.llm import Completion
from k2desk.runtime.summarizer import (
    ExtractiveSummarizer,
    LLMSummarizer,
    Summarizer,
    find_onnx_summarizer,
    make_summarizer,
    split_sentences,
)

# Three sentences about the bridge project share their words; the others are each off on a topic
# of their own, so the bridge sentences are the central ones.
CRAFTED = (
    "The weather in the valley was mild for most of April. "
    "The council approved the new river bridge after a long debate about the bridge budget. "
    "A local bakery won a prize for its rye bread. "
    "Engineers said the river bridge budget covers steel, concrete and two years of work. "
    "Several cats were seen on the roof of the old library. "
    "The bridge will open in 2027 if the council keeps the budget and the engineers finish the river work. "
    "Tickets for the summer concert sold out within an hour."
)
CENTRAL = [1, 3, 5]


def test_split_sentences_keeps_text_and_order():
    sentences = split_sentences(CRAFTED)
    assert len(sentences) == 7
    assert sentences[0].startswith("The weather") and sentences[-1].startswith("Tickets")
    assert split_sentences("Dr. Smith arrived.\n\nNext paragraph without end") == [
        "Dr. Smith arrived.", "Next paragraph without end"]


def test_extractive_picks_central_sentences_in_document_order():
    sentences = split_sentences(CRAFTED)
    budget_words = sum(len(sentences[i].split()) for i in CENTRAL)
    summary = ExtractiveSummarizer().summarize(CRAFTED, max_tokens=int(budget_words * 1.3) + 1)
    assert summary == " ".join(sentences[i] for i in CENTRAL)
    scores = ExtractiveSummarizer().scores(sentences)
    assert set(scores.argsort()[::-1][:3]) == set(CENTRAL)
    centroid = ExtractiveSummarizer(max_graph_sentences=2).scores(sentences)  # the long-text mode
    assert set(centroid.argsort()[::-1][:3]) == set(CENTRAL)


def test_extractive_respects_length():
    s = ExtractiveSummarizer()
    for max_tokens in (10, 30, 60):
        out = s.summarize(CRAFTED, max_tokens=max_tokens)
        assert 0 < len(out.split()) <= max_tokens / 1.3
    # order is kept whatever is chosen
    sentences = split_sentences(CRAFTED)
    picked = [sentences.index(x) for x in split_sentences(s.summarize(CRAFTED, 60))]
    assert picked == sorted(picked)
    # short texts come back whole (whitespace normalized), empty text gives empty summary
    assert s.summarize("One short line.\n  Two.", max_tokens=100) == "One short line. Two."
    assert s.summarize("   ", max_tokens=50) == ""
    # a single sentence over the budget is cut at a word boundary
    assert s.summarize(" ".join(["word"] * 80) + ".", max_tokens=13) == " ".join(["word"] * 10)


def test_extractive_is_deterministic_and_cancellable():
    s = ExtractiveSummarizer()
    assert s.summarize(CRAFTED, 40) == s.summarize(CRAFTED, 40)
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        s.summarize(CRAFTED, cancel=token)


class RecordingLLM:
    """Stand-in for k2desk.runtime.llm.LLM (tested with the real model elsewhere)."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.calls: list[tuple[str, int]] = []

    def chat(self, messages, max_tokens, usage=None, cancel=None):
        (message,) = messages
        self.calls.append((message["content"], max_tokens))
        return Completion(self.reply, 0, 0, 0.0)


def test_llm_summarizer_prompt_and_output():
    llm = RecordingLLM("  The council approved the bridge.\n\n")
    s = LLMSummarizer(llm)
    assert isinstance(s, Summarizer) and s.name == "llm"
    out = s.summarize(CRAFTED, max_tokens=65)
    assert out == "The council approved the bridge."
    (prompt, max_tokens), = llm.calls
    assert CRAFTED in prompt
    assert "50" in prompt  # 65 tokens / 1.3 = 50 words
    assert max_tokens == 65


def test_llm_summarizer_custom_prompt_and_input_cut():
    llm = RecordingLLM("ok")
    s = LLMSummarizer(llm, prompt="<<{text}>> in {max_words} words", max_input_words=3)
    assert s.summarize("one two three four five", max_tokens=13) == "ok"
    assert llm.calls[0][0] == "<<one two three>> in 10 words"


def _fake_export(root, name):
    d = root / "summarizers" / name
    d.mkdir(parents=True)
    (d / "encoder_model.onnx").write_bytes(b"")
    return d


def test_make_summarizer_selection(tmp_path):
    llm = RecordingLLM("x")
    assert isinstance(make_summarizer("extractive", tmp_path), ExtractiveSummarizer)
    assert isinstance(make_summarizer("auto", tmp_path), ExtractiveSummarizer)
    auto = make_summarizer("auto", tmp_path, llm=llm)
    assert isinstance(auto, LLMSummarizer) and auto.llm is llm
    assert isinstance(make_summarizer("llm", tmp_path, llm=llm), LLMSummarizer)
    for s in (make_summarizer("extractive", tmp_path), auto):
        assert isinstance(s, Summarizer)


def test_make_summarizer_errors(tmp_path):
    with pytest.raises(ModelError, match=r"no ONNX summarizer in .*summarizers; run `k2desk models export-summarizer SRC`"):
        make_summarizer("onnx", tmp_path)
    with pytest.raises(ModelError, match="needs an LLM"):
        make_summarizer("llm", tmp_path)
    with pytest.raises(UsageError, match="unknown summarizer backend"):
        make_summarizer("abstractive", tmp_path)


def test_find_onnx_summarizer_first_or_default(tmp_path):
    assert find_onnx_summarizer(tmp_path) is None
    (tmp_path / "summarizers" / "empty-dir").mkdir(parents=True)  # not an export: ignored
    assert find_onnx_summarizer(tmp_path) is None
    b = _fake_export(tmp_path, "b-model")
    a = _fake_export(tmp_path, "a-model")
    assert find_onnx_summarizer(tmp_path) == a
    (tmp_path / "summarizers" / "default").write_text("b-model\n")
    assert find_onnx_summarizer(tmp_path) == b
    (tmp_path / "summarizers" / "default").write_text("gone")
    with pytest.raises(ModelError, match="default summarizer 'gone'"):
        find_onnx_summarizer(tmp_path)


def test_auto_and_onnx_load_an_export_when_present(tmp_path):
    """A present (here: broken) export is chosen by auto/onnx: loading it fails with ModelError."""
    _fake_export(tmp_path, "led")
    for backend in ("auto", "onnx"):
        with pytest.raises(ModelError, match="no tokenizer.json|cannot load"):
            make_summarizer(backend, tmp_path, llm=RecordingLLM("x"))


def test_llm_summaries_lose_the_sentences_of_a_decoding_loop():
    from k2desk.runtime.summarizer import drop_repeated_sentences

    looped = ("The trial began on Tuesday. The trial is run by FTX's lawyers. The trial is run by  FTX's lawyers. "
              "It may last weeks! the trial is run by FTX's lawyers.")
    assert drop_repeated_sentences(looped) == "The trial began on Tuesday. The trial is run by FTX's lawyers. It may last weeks!"
    assert drop_repeated_sentences("No stop at the end") == "No stop at the end"


def test_an_onnx_summarizer_is_loaded_once_per_process(tmp_path, monkeypatch):
    """Its sessions took seconds to load, and indexing made one per document, K²RAG one per question."""
    import k2desk.runtime.summarizer as summarizer

    loads = []

    class Sessions:
        name = "onnx:fake"

        def __init__(self, path, threads=None):
            loads.append((path, threads))

    _fake_export(tmp_path, "led")
    monkeypatch.setattr(summarizer, "OnnxSeq2SeqSummarizer", Sessions)
    monkeypatch.setattr(summarizer, "_onnx_summarizers", {})
    first = make_summarizer("onnx", tmp_path, threads=2)
    assert all(make_summarizer(b, tmp_path, llm=RecordingLLM("x"), threads=2) is first for b in ("onnx", "auto", "onnx"))
    assert len(loads) == 1
    make_summarizer("onnx", tmp_path, threads=1)  # other settings: its own sessions
    assert len(loads) == 2


def test_sentences_split_at_their_ends_only():
    assert split_sentences("The ferry leaves at 5 p.m. in winter. It is late.") == [
        "The ferry leaves at 5 p.m. in winter.", "It is late."]
    assert split_sentences('"Stop!" Then the bell rang.') == ['"Stop!"', "Then the bell rang."]
