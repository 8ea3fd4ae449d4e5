"""Seq2seq ONNX export (build time) against transformers, on tiny random models built here.

LED is the hard case (optimum-onnx 0.1.0 freezes its traced shapes, see k2desk/runtime/export.py):
encoder hidden states and decoder logits must match torch at lengths that are no multiple of the
attention window, for batch 1 and batch 2 (ragged, with attention mask), and greedy/beam
generation through OnnxSeq2SeqSummarizer must give transformers' token ids. BART (split decoders)
and T5 (merged decoder) prove the generic path.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("optimum.exporters.onnx")

from k2desk.errors import Cancelled, ModelError  # noqa: E402
from k2desk.progress import CancelToken  # noqa: E402
from k2desk.runtime.export import MANIFEST, export_seq2seq, sha256_file  # noqa: E402
from k2desk.runtime.seq2seq_onnx import OnnxSeq2SeqSummarizer, Seq2SeqOnnxModel  # noqa: E402
from k2desk.runtime.summarizer import Summarizer, make_summarizer  # noqa: E402

ATOL = 1e-3
WORDS = ("the a of and to in is was for on that with as by at from it an be this are were which has "
         "have had not but or its their his her they he she we you i one two three new city river "
         "summer report council bridge storm museum").split()
# token lengths (with special tokens): none is a multiple of the LED window (16)
BATCHES = [(7,), (40,), (130,), (7, 40), (130, 57)]


def _tokenizer(kind: str):
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    specials = ["<pad>", "</s>", "<unk>"] if kind == "t5" else ["<s>", "<pad>", "</s>", "<unk>"]
    vocab = {tok: i for i, tok in enumerate(specials + WORDS)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    if kind == "t5":
        tok.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
        return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="</s>", pad_token="<pad>",
                                       unk_token="<unk>")
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)])
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>",
                                   pad_token="<pad>", unk_token="<unk>")


def _tiny_model(kind: str, vocab_size: int):
    import transformers as tf

    torch.manual_seed(0)
    small = dict(d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
                 decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64,
                 pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2,
                 init_std=0.3, vocab_size=vocab_size)  # large init: outputs depend on the input
    if kind == "led":
        cfg = tf.LEDConfig(attention_window=[16, 16], max_encoder_position_embeddings=256,
                           max_decoder_position_embeddings=64, **small)
        return tf.LEDForConditionalGeneration(cfg).eval()
    if kind == "bart":
        model = tf.BartForConditionalGeneration(tf.BartConfig(max_position_embeddings=256, **small)).eval()
        with torch.no_grad():  # make EOS likely, so that beams finish early at different lengths
            model.final_logits_bias[0, small["eos_token_id"]] = 3.0
        return model
    cfg = tf.T5Config(d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2, vocab_size=vocab_size,
                      decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    return tf.T5ForConditionalGeneration(cfg).eval()


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    """Tiny models: threads only contend (with onnxruntime and the other jobs on the machine)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _build_and_export(tmp: Path, kind: str, merge: bool) -> SimpleNamespace:
    src, out = tmp / f"{kind}-src", tmp / "models" / "summarizers" / kind
    tokenizer = _tokenizer(kind)
    model = _tiny_model(kind, len(tokenizer))
    model.save_pretrained(src)
    tokenizer.save_pretrained(src)
    stages = []
    t0 = time.perf_counter()
    export_seq2seq(src, out, progress=lambda *a: stages.append(a), merge=merge)
    seconds = time.perf_counter() - t0
    return SimpleNamespace(kind=kind, src=src, out=out, torch=model, onnx=Seq2SeqOnnxModel(out, threads=1),
                           stages=stages, seconds=seconds)


@pytest.fixture(scope="module")
def led(tmp_path_factory):
    return _build_and_export(tmp_path_factory.mktemp("led"), "led", merge=True)


@pytest.fixture(scope="module")
def bart(tmp_path_factory):
    return _build_and_export(tmp_path_factory.mktemp("bart"), "bart", merge=False)


@pytest.fixture(scope="module")
def t5(tmp_path_factory):
    return _build_and_export(tmp_path_factory.mktemp("t5"), "t5", merge=True)


def _ragged_batch(m: SimpleNamespace, lengths: tuple[int, ...], seed: int = 0):
    """Random token ids of exactly these lengths (specials included), right-padded, with mask."""
    rng = np.random.default_rng(seed + sum(lengths))
    cfg = m.torch.config
    first_word = 3 if m.kind == "t5" else 4
    ids = np.full((len(lengths), max(lengths)), cfg.pad_token_id, dtype=np.int64)
    mask = np.zeros_like(ids)
    for i, n in enumerate(lengths):
        ids[i, :n] = rng.integers(first_word, cfg.vocab_size, size=n)
        if m.kind != "t5":
            ids[i, 0] = cfg.bos_token_id
        ids[i, n - 1] = cfg.eos_token_id
        mask[i, :n] = 1
    return ids, mask


def _torch_forward(m, ids, mask, decoder_ids):
    kwargs = {}
    if m.kind == "led":  # the export gives the first token global attention, as LED summarizers use it
        glob = torch.zeros(ids.shape, dtype=torch.long)
        glob[:, 0] = 1
        kwargs["global_attention_mask"] = glob
    with torch.no_grad():
        enc = m.torch.get_encoder()(input_ids=torch.tensor(ids), attention_mask=torch.tensor(mask),
                                    **kwargs).last_hidden_state
        logits = m.torch(encoder_outputs=(enc,), attention_mask=torch.tensor(mask),
                         decoder_input_ids=torch.tensor(decoder_ids)).logits
    return enc.numpy(), logits.numpy()


def _compare(m, lengths) -> dict[str, float]:
    ids, mask = _ragged_batch(m, lengths)
    start = m.torch.config.decoder_start_token_id
    dec = np.array([[start, 5, 9, 7, 11, 6]] * len(lengths), dtype=np.int64)
    ref_hidden, ref_logits = _torch_forward(m, ids, mask, dec)
    hidden = m.onnx.encode(ids, mask)
    logits, past = m.onnx.decode(dec[:, :4], hidden, mask)            # prefix, no cache
    step1, past = m.onnx.decode(dec[:, 4:5], hidden, mask, past)       # then one token at a time
    step2, _ = m.onnx.decode(dec[:, 5:6], hidden, mask, past)
    with_past = np.concatenate([step1, step2], axis=1)
    assert hidden.shape == ref_hidden.shape
    diffs = {"encoder": float(np.abs(hidden - ref_hidden).max()),
             "decoder": float(np.abs(logits - ref_logits[:, :4]).max()),
             "decoder_with_past": float(np.abs(with_past - ref_logits[:, 4:6]).max())}
    print(f"\n{m.kind} batch={len(lengths)} lengths={lengths} max abs diff {diffs}")
    return diffs


def _transformers_generate(m, text: str, **kwargs) -> list[int]:
    ids, mask = m.onnx.tokenize([text])
    extra = {}
    if m.kind == "led":
        glob = np.zeros_like(ids)
        glob[:, 0] = 1
        extra["global_attention_mask"] = torch.tensor(glob)
    with torch.no_grad():
        out = m.torch.generate(input_ids=torch.tensor(ids), attention_mask=torch.tensor(mask),
                               do_sample=False, **kwargs, **extra)
    return out[0].tolist()


def _texts(seed: int, *sizes: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, n)) for n in sizes]


# ---------------------------------------------------------------- LED


def test_led_export_files_and_manifest(led):
    print(f"\nLED export took {led.seconds:.1f} s")
    manifest = json.loads((led.out / MANIFEST).read_text())
    assert manifest["model_type"] == "led" and manifest["name"] == "led"
    assert manifest["source_sha256"]["model.safetensors"] == sha256_file(led.src / "model.safetensors")
    assert manifest["decoder"] == "merged"
    assert manifest["led"]["attention_window"] == 16
    assert manifest["led"]["pad_to_multiple_of"] == 16
    assert manifest["led"]["global_attention"] == "first_token"
    assert manifest["max_input_tokens"] == 256
    for name, digest in manifest["files"].items():
        assert sha256_file(led.out / name) == digest
    assert {"encoder_model.onnx", "decoder_model_merged.onnx", "tokenizer.json"} <= set(manifest["files"])
    assert led.stages[0] == ("export", 0, 5) and led.stages[-1] == ("export", 5, 5)
    # the encoder graph takes any batch and length, and no global_attention_mask
    inputs = {i.name: i.shape for i in led.onnx.encoder.get_inputs()}
    assert set(inputs) == {"input_ids", "attention_mask"}
    assert all(isinstance(d, str) for d in inputs["input_ids"])


@pytest.mark.parametrize("lengths", BATCHES, ids=lambda b: "x".join(map(str, b)))
def test_led_matches_torch_at_any_length_and_batch(led, lengths):
    diffs = _compare(led, lengths)
    assert max(diffs.values()) <= ATOL, diffs


def test_led_runtime_padding_to_the_window(led):
    ids, mask = led.onnx.tokenize(_texts(3, 20, 50))
    assert ids.shape[1] % 16 == 0 and mask[0].sum() == 22 and mask[1].sum() == 52
    glob = np.zeros_like(ids)
    glob[:, 0] = 1
    with torch.no_grad():
        ref = led.torch.get_encoder()(input_ids=torch.tensor(ids), attention_mask=torch.tensor(mask),
                                      global_attention_mask=torch.tensor(glob)).last_hidden_state.numpy()
    assert np.abs(led.onnx.encode(ids, mask) - ref).max() <= ATOL


def test_led_greedy_generation_equals_transformers(led):
    texts = _texts(1, 30, 150)
    results = []
    s = OnnxSeq2SeqSummarizer(led.out, threads=1, no_repeat_ngram_size=0)
    for text in texts:
        got = s.generate(text, max_tokens=20)
        assert got == _transformers_generate(led, text, num_beams=1, max_new_tokens=20)
        results.append(got)
    assert results[0] != results[1]  # the tiny model does look at its input


def test_led_beam_search_with_length_rules_equals_transformers(led):
    s = OnnxSeq2SeqSummarizer(led.out, threads=1, num_beams=3, min_tokens=4, no_repeat_ngram_size=3,
                              length_penalty=0.8)
    for text in _texts(2, 25, 90):
        ref = _transformers_generate(led, text, num_beams=3, max_new_tokens=15, min_new_tokens=4,
                                     no_repeat_ngram_size=3, length_penalty=0.8)
        assert s.generate(text, max_tokens=15) == ref


def test_led_summarize_truncates_long_input_and_bounds_output(led):
    s = make_summarizer("auto", led.out.parent.parent, threads=1)
    assert isinstance(s, OnnxSeq2SeqSummarizer) and isinstance(s, Summarizer) and s.name == "onnx:led"
    long_text = _texts(4, 600)[0]
    ids, _ = led.onnx.tokenize([long_text])
    assert ids.shape[1] == 256  # max_encoder_position_embeddings
    out = s.summarize(long_text, max_tokens=8)
    assert isinstance(out, str) and 0 < len(out.split()) <= 8
    assert len(s.generate(long_text, max_tokens=8)) <= 1 + 8
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        s.summarize(long_text, cancel=token)


# ---------------------------------------------------------------- generic path: BART, T5


@pytest.mark.parametrize("lengths", [(7,), (40,), (7, 40)], ids=lambda b: "x".join(map(str, b)))
def test_bart_split_decoders_match_torch(bart, lengths):
    assert bart.onnx.merged is False
    diffs = _compare(bart, lengths)
    assert max(diffs.values()) <= ATOL, diffs


def test_bart_generation_equals_transformers(bart):
    assert bart.onnx.forced_eos_id == 2  # BART's config forces EOS at the length limit
    lengths = set()
    for beams, penalty in [(1, 1.0), (3, 1.0), (3, 0.5), (4, 2.0)]:
        s = OnnxSeq2SeqSummarizer(bart.out, threads=1, num_beams=beams, length_penalty=penalty)
        for text in _texts(5, 12, 60, 30):
            got = s.generate(text, max_tokens=20)
            assert got == _transformers_generate(bart, text, num_beams=beams, max_new_tokens=20,
                                                 no_repeat_ngram_size=3, length_penalty=penalty)
            lengths.add(len(got))
    assert min(lengths) < 21 and len(lengths) >= 3  # early EOS, at several lengths


def test_t5_merged_decoder_matches_torch_and_generates(t5):
    diffs = _compare(t5, (9, 33))
    assert max(diffs.values()) <= ATOL, diffs
    for text in _texts(6, 10, 45):
        got = OnnxSeq2SeqSummarizer(t5.out, threads=1, no_repeat_ngram_size=0).generate(text, max_tokens=10)
        assert got == _transformers_generate(t5, text, num_beams=1, max_new_tokens=10)


# ---------------------------------------------------------------- errors


def test_export_errors_are_one_line_model_errors(tmp_path):
    with pytest.raises(ModelError, match="no config.json"):
        export_seq2seq(tmp_path / "nowhere", tmp_path / "out")
    src = tmp_path / "bert"
    src.mkdir()
    (src / "config.json").write_text(json.dumps({"model_type": "bert"}))
    with pytest.raises(ModelError, match="cannot export model type 'bert'"):
        export_seq2seq(src, tmp_path / "out")
    with pytest.raises(ModelError, match="no encoder_model.onnx"):
        OnnxSeq2SeqSummarizer(tmp_path / "out")
