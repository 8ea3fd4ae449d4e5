"""The method table: every name makes its method on a real collection, the engine's checks come
from the table, and a new method is one class and one line."""

import pytest

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.errors import UsageError
from k2desk.methods import registry
from k2desk.methods.base import MethodBase
from k2desk.methods.registry import METHOD_NAMES, METHODS, TEXT, MethodSpec, method_spec


@pytest.fixture
def engine(tmp_path, models_dir, folder):
    # "both": the summaries' and the raw text's graph, built without an LLM (spaCy) on a CPU
    settings = Settings(home=tmp_path / "home", models_dir=models_dir, llm="smollm2-135m", threads=2,
                        build_profile="both", graph_extractor="fast", summarizer="extractive")
    with Engine(settings, "methods") as e:
        e.index([folder])
        yield e


def test_every_name_in_the_table_makes_its_method(engine):
    assert METHOD_NAMES[0] == "k2rag" and len(set(METHOD_NAMES)) == len(METHOD_NAMES) == 16
    for name in METHOD_NAMES:
        method = engine.method(name)
        assert method.name == name, (name, type(method).__name__)
        assert METHODS[name].description
    assert {n for n in METHOD_NAMES if METHODS[n].needs_graph} == {
        "kg", "lightrag-local", "lightrag-global", "lightrag-hybrid", "coe", "mindmap"}
    assert engine.coverage("kg") == {"graph_text": (6, 6)} and engine.coverage("semantic") == {"text": (6, 6)}
    with pytest.raises(UsageError, match="unknown method 'nope'; choose one of k2rag, k2rag-paper"):
        method_spec("nope")


class Echo(MethodBase):
    """A method in a few lines: the best keyword passage, returned as the answer."""

    name = "echo"

    def __init__(self, ctx):
        self.ctx = ctx

    def steps(self, asking):
        question, result, timer, progress, cancel = asking
        with timer("retrieve"):
            hits = self.ctx.retriever().search(question, k=1, lam=0.0)
        result.answer, result.sources = hits[0].chunk.text[:60], [h.source() for h in hits]


def test_a_new_method_is_one_class_and_one_line(engine, monkeypatch):
    monkeypatch.setitem(registry.METHODS, "echo", MethodSpec("echo", Echo, (TEXT,), "the best passage, verbatim"))
    answer = engine.ask("Which lens does the lighthouse museum display?", method="echo", remember=True)
    assert answer.method == "echo" and answer.sources[0].document.endswith("lighthouse.txt")
    assert set(answer.timings) == {"retrieve", "total"}  # MethodBase.ask stamped what the steps timed
    assert engine.history.list()[0].method == "echo"


def test_a_raw_text_method_on_a_summary_only_collection_says_so(tmp_path, models_dir, folder):
    settings = Settings(home=tmp_path / "home", models_dir=models_dir, llm="smollm2-135m", threads=2,
                        build_profile="summary", graph_extractor="fast", summarizer="extractive")
    with Engine(settings, "summaries") as engine:
        engine.index([folder])
        for name in ("semantic", "keyword", "hybrid", "evidence", "hybrid-paper"):  # they answered from an empty context
            with pytest.raises(UsageError, match="reads the raw-text index, which collection 'summaries' does not have"):
                engine.ask("Who keeps the Harwick Point lighthouse?", method=name)
        assert engine.method("k2rag-paper").name == "k2rag-paper"
