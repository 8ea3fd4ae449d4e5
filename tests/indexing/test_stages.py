"""The indexing stages: a progress label each, what the LLM summarizer spends and how a cancel
stops it in the middle of a reply, and the graph stage's catch-up of triple hypernodes (Chain of
Explorations only reads them)."""

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.graph.hypernodes import Hypernodes
from k2desk.indexing import STAGE_TITLES
from k2desk.methods.coe import CoEMethod
from k2desk.progress import CancelToken
from tests.methods.support import ScriptedLLM, schema_props, scripted_context, write_documents


class CancelMidReply(CancelToken):
    """Cancels itself once a streamed reply has given ``pieces`` pieces (the stream reads
    ``cancelled`` after each piece; nothing else in indexing reads it)."""

    def __init__(self, pieces: int) -> None:
        super().__init__()
        self.left = pieces

    @property
    def cancelled(self) -> bool:
        self.left -= 1
        if self.left <= 0:
            self.cancel()
        return super().cancelled


def test_each_stage_has_its_own_label_in_the_order_it_runs(tmp_path, models_dir):
    engine = Engine(Settings(home=tmp_path, models_dir=models_dir, build_profile="both"), "c")
    labels = [s.label for s in engine.indexer.stages]
    assert labels == ["embed", "summarize", "embed summaries", "graph of summaries", "graph"]  # two graphs, two bars
    assert labels == [label for label in STAGE_TITLES if label in labels]
    engine.close()


def llm_summary_engine(home, models_dir) -> Engine:
    settings = Settings(home=home, models_dir=models_dir, llm="smollm2-135m", threads=2, build_profile="summary",
                        summarizer="llm", graph_extractor="fast")
    return Engine(settings, "c")


def test_the_llm_summaries_are_counted_and_a_cancel_stops_one_mid_reply(tmp_path, models_dir, tiny_llm_path):
    folder = write_documents(tmp_path / "docs")
    engine = llm_summary_engine(tmp_path / "whole", models_dir)
    whole = engine.index([folder])
    engine.close()
    assert whole.failed == [] and len(whole.added) == 2
    summaries = whole.stage_llm["summarize"]
    assert summaries.calls == 2 and summaries.prompt_tokens > 100 and summaries.completion_tokens > 10
    assert whole.llm.calls == 2  # the fast graph calls no LLM
    assert "2 LLM calls" in whole.summary()

    engine = llm_summary_engine(tmp_path / "cut", models_dir)
    token = CancelMidReply(pieces=3)
    cut = engine.index([folder], cancel=token)
    assert cut.cancelled
    spent = cut.stage_llm["summarize"]
    assert spent.calls == 1 and 0 < spent.completion_tokens < summaries.completion_tokens / 2  # stopped within the reply
    docs = engine.documents()
    assert {d.status for d in docs} == {"pending"} and not any(engine.docs.stage_done(d.id, "summary", d.content_hash) for d in docs)
    engine.close()


def test_a_graph_without_hypernodes_is_read_by_coe_and_completed_by_the_next_index_run(tmp_path, models_dir):
    settings = Settings(home=tmp_path, models_dir=models_dir, llm="smollm2-135m", threads=2, build_profile="raw",
                        graph_extractor="fast")
    engine = Engine(settings, "c")
    engine.index([write_documents(tmp_path / "docs")])
    hyper = Hypernodes(engine.db)
    assert hyper.missing("text") == 0
    with engine.db.transaction():  # as a collection built before hypernodes existed
        engine.db.execute("DELETE FROM hypernodes")
        hyper.drop_orphan_vectors()
    relations = hyper.missing("text")
    assert relations > 0

    def reply(prompt, schema):
        if schema is None:
            return "Anneli Korhonen"
        p = schema_props(schema)
        if "start" in p:
            return {"start": "Harwick Point Lighthouse", "steps": [{"kind": "relation", "query": "who keeps it"}]}
        if "selected" in p:
            return {"selected": p["selected"]["items"]["enum"][:1]}
        return {"decision": "respond"}

    changes = engine.db.conn.total_changes()
    answer = CoEMethod(scripted_context(engine, ScriptedLLM(reply))).ask("Who keeps the Harwick Point lighthouse?")
    assert engine.db.conn.total_changes() == changes  # asking wrote nothing
    assert answer.trace["relations_without_hypernode"] == relations and answer.answer

    seen = []
    engine.resume(progress=lambda stage, done, total: seen.append((stage, done, total)))
    assert ("hypernodes", relations, relations) in seen and hyper.missing("text") == 0
    engine.close()
