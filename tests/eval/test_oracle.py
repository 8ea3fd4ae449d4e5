"""--oracle: the default method's reader answers from the gold evidence facts (real tiny model)."""

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
    assert a.trace["reader"]["form"] == "open"


def test_a_yes_no_claim_reads_its_own_outlets_facts(tmp_path, models_dir):
    evidence = EVIDENCE[:1] + [{"title": "Freight plans", "source": "Rail Weekly", "fact": "Freight starts in January."}]
    q = Question("q2", "Does The Meridian Post say the tunnel cost 3.1 billion francs, while Rail Weekly reports "
                 "that freight starts in January?", "Yes", "comparison_query", evidence_list=evidence)
    with Engine(Settings(home=tmp_path, models_dir=models_dir, llm="smollm2-135m", threads=2)) as engine:
        a = oracle_answer(engine, q, CancelToken())
        null = oracle_answer(engine, Question("q3", "Who?", "Insufficient information.", "null_query"), CancelToken())
    checks = a.trace["reader"]["claims"]
    assert a.answer in ("Yes.", "No.") and [c["outlets"] for c in checks] == [["The Meridian Post"], ["Rail Weekly"]]
    assert a.llm.calls == 4 and a.llm.completion_tokens == 0
    assert "3.1 billion francs" in a.trace["context"] and "Freight starts in January." in a.trace["context"]
    assert null.answer == "Insufficient information." and null.llm.calls == 0
