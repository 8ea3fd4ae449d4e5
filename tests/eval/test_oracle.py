"""--oracle: the reader answers from the gold evidence facts (the shared answer step, real tiny model)."""

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.eval.datasets import Question
from k2desk.eval.oracle import ORACLE, oracle_answer, oracle_blocks
from k2desk.eval.runner import parse_methods
from k2desk.progress import CancelToken

EVIDENCE = [
    {"title": "Glacier Rail opens the Brennwald Tunnel", "source": "The Meridian Post",
     "published_at": "2023-11-02T09:15:00+00:00", "fact": "The tunnel cost 3.1 billion francs."},
    {"title": "Freight plans", "fact": "Freight trains will start using the tunnel in January."},
    "not a dict",
]


def test_blocks_carry_each_facts_article_header():
    q = Question("q1", "How much did the tunnel cost?", "3.1 billion francs", "inference_query", evidence_list=EVIDENCE)
    assert oracle_blocks(q) == [
        "Glacier Rail opens the Brennwald Tunnel | The Meridian Post | 2023-11-02 (November 2, 2023)\nThe tunnel cost 3.1 billion francs.",
        "Freight plans\nFreight trains will start using the tunnel in January.",
    ]
    assert oracle_blocks(Question("q2", "?", "Insufficient information.", "null_query")) == []
    assert parse_methods(f"hybrid,{ORACLE}") == ["hybrid", ORACLE]


def test_the_reader_sees_only_the_gold_evidence(tmp_path, models_dir, tiny_llm_path):
    q = Question("q1", "How much did the tunnel cost?", "3.1 billion francs", "inference_query", evidence_list=EVIDENCE)
    with Engine(Settings(home=tmp_path, models_dir=models_dir, llm="smollm2-135m", threads=2)) as engine:
        a = oracle_answer(engine, q, CancelToken())
    assert a.method == ORACLE and a.answer and a.llm.calls == 1
    assert a.trace["context"].startswith("Glacier Rail opens the Brennwald Tunnel | The Meridian Post")
    assert "Freight trains" in a.trace["context"] and "generate" in a.timings
