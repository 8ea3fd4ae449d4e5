"""The ONNX embedder (all-MiniLM-L6-v2), run for real."""

import random
import shutil

import numpy as np
import pytest

from k2desk.errors import Cancelled, ModelError
from k2desk.progress import CancelToken
from k2desk.runtime.embedder import Embedder

WORDS = ("the river bank flooded after three days of rain while engineers measured the water level "
         "and the town council argued about a new dam").split()


def test_shape_dtype_and_normalization(embedder):
    assert (embedder.name, embedder.dim, embedder.max_tokens) == ("all-minilm-l6-v2", 384, 256)
    vecs = embedder.embed(["Hello world.", "", "A longer sentence about sailing boats on a lake."])
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, 384)
    assert embedder.embed_one("Hello world.").shape == (384,)


def test_similar_sentences_are_closer(embedder):
    a, b, c = embedder.embed(["A man is playing a guitar.", "Someone plays an acoustic guitar.",
                              "The stock market fell sharply today."])
    assert a @ b > 0.6
    assert a @ b > a @ c + 0.3


def test_batching_does_not_change_embeddings(embedder):
    texts = [" ".join(WORDS[: n % len(WORDS) + 1] * (1 + n // 5)) for n in range(0, 40, 3)]
    texts += ["short", "x" * 3, " ".join(WORDS * 20)]  # mixed lengths, one truncated
    together = embedder.embed(texts, batch_size=4)
    alone = np.stack([embedder.embed_one(t) for t in texts])
    assert np.abs(together - alone).max() < 1e-5
    reversed_ = embedder.embed(texts[::-1], batch_size=7)[::-1]
    assert np.abs(reversed_ - alone).max() < 1e-5


def test_a_batch_never_pads_a_short_text_to_a_long_ones_length(embedder, monkeypatch):
    """A question embedded with its keywords: the keywords run together, the question alone
    (each padded to the batch's longest text), and each vector is what it is alone."""
    question = "Which company, reported on by both TechCrunch and The Verge, faces a trial this autumn?"
    keywords = ["TechCrunch", "The Verge", "trial", "company"]
    alone = np.stack([embedder.embed_one(t) for t in [question, *keywords]])
    batches = []
    run = embedder._run
    monkeypatch.setattr(embedder, "_run", lambda texts: batches.append(sorted(texts)) or run(texts))
    together = embedder.embed([question, *keywords])
    assert batches == [sorted(keywords), [question]]
    assert np.abs(together - alone).max() < 1e-5


def test_progress_and_cancel(embedder):
    seen = []
    embedder.embed(["a", "b", "c", "d", "e"], batch_size=2, progress=lambda s, d, t: seen.append((s, d, t)))
    assert seen == [("embed", 2, 5), ("embed", 4, 5), ("embed", 5, 5)]
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        embedder.embed(["a"], cancel=token)


def test_token_spans_round_trip(embedder):
    from tokenizers import Tokenizer

    text = "Tokenization of UNBELIEVABLE things, e.g. K2RAG's 256-token chunks!"
    spans = embedder.token_spans(text)
    tok = Tokenizer.from_file(str(embedder.model_dir / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()  # the exported tokenizer.json pads to 128
    tokens = tok.encode(text, add_special_tokens=False).tokens
    assert len(spans) == len(tokens) == embedder.count_tokens(text) > 10
    for (s, e), token in zip(spans, tokens):
        assert text[s:e].lower() == token.removeprefix("##")
    assert all(e1 <= s2 for (_, e1), (s2, _) in zip(spans, spans[1:]))
    unicode = "Café Zürich — naïve façade"
    assert all(0 <= s < e <= len(unicode) and unicode[s:e].strip() for s, e in embedder.token_spans(unicode))


def test_long_text_is_truncated_not_rejected(embedder):
    rng = random.Random(0)
    text = " ".join(rng.choice(WORDS) for _ in range(5000))
    spans = embedder.token_spans(text)
    assert len(spans) >= 5000 and embedder.count_tokens(text) == len(spans)  # no truncation when counting
    vec = embedder.embed_one(text)
    assert np.isfinite(vec).all() and abs(np.linalg.norm(vec) - 1) < 1e-5
    head = text[: spans[embedder.max_tokens - 3][1]]  # 254 word pieces + [CLS] + [SEP] = 256
    assert float(vec @ embedder.embed_one(head)) > 0.99999
    shorter = text[: spans[embedder.max_tokens // 2][1]]  # truncating any earlier would change the vector
    assert float(vec @ embedder.embed_one(shorter)) < 0.9999


def test_loading_errors_name_the_fix(tmp_path, embedder):
    with pytest.raises(ModelError, match=r"embedder file not found: .*model\.onnx; run `k2desk models prepare`"):
        Embedder(tmp_path)
    shutil.copy(embedder.model_dir / "tokenizer.json", tmp_path / "tokenizer.json")
    (tmp_path / "model.onnx").write_bytes(b"garbage")
    with pytest.raises(ModelError, match=rf"cannot load the embedder in {tmp_path}.*k2desk models prepare"):
        Embedder(tmp_path)


def test_matches_the_pytorch_reference(embedder, model_store, tmp_path):
    """The ONNX export against the original safetensors run by transformers (build-time deps)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    src = model_store.extract_source(model_store.entry("all-minilm-l6-v2"), tmp_path / "src")
    tok = transformers.AutoTokenizer.from_pretrained(str(src), local_files_only=True)
    model = transformers.AutoModel.from_pretrained(str(src), local_files_only=True).eval()
    texts = ["K²RAG combines a knowledge graph with summarized chunks.", " ".join(WORDS * 30)]
    batch = tok(texts, padding=True, truncation=True, max_length=256, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).float()
    ref = torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=1).numpy()
    ours = embedder.embed(texts)
    assert (ours * ref).sum(axis=1).min() >= 0.9999
