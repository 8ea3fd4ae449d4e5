"""What a person asks first, on the README's sample documents with the default settings and the
default model (issue 31): summaries on request, "not in your documents" for what the documents
do not hold, a temporal question read as one claim, a question about one chosen document. The
README demo's question is asked in the same run and must still name the cooperative's chair."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from k2desk.text.values import normal_values

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "resources" / "sample"


@pytest.fixture(scope="module")
def sample_home(tmp_path_factory, models_dir, model_store):
    model_store.resolve_llm("qwen2.5-coder-0.5b")  # prepared by setup
    home = tmp_path_factory.mktemp("asking") / "home"
    env = {**os.environ, "K2DESK_HOME": str(home), "K2DESK_MODELS": str(models_dir)}
    done = subprocess.run([sys.executable, "-m", "k2desk", "index", str(SAMPLE)], env=env, capture_output=True, text=True,
                          timeout=1800)
    assert done.returncode == 0, done.stderr
    return env


def ask(env, question, *extra):
    out = subprocess.run([sys.executable, "-m", "k2desk", "ask", question, "--json", *extra], env=env, capture_output=True,
                         text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("question, year, document", [
    ("Can you summarize the solar cooperative document?", "2014", "solar-cooperative.md"),
    ("Summarize the observatory page.", "1959", "observatory.html"),
])
def test_a_summary_request_gets_the_documents_summary(sample_home, question, year, document):
    answer = ask(sample_home, question)
    assert answer["trace"]["reader"]["form"] == "summary", answer["answer"]
    assert len(re.findall(r"\w+", answer["answer"])) >= 20 and year in answer["answer"], answer["answer"]
    assert Path(answer["sources"][0]["document"]).name == document
    assert answer["llm"]["calls"] == 0  # read from the corpus summaries, no model asked


@pytest.mark.slow
@pytest.mark.parametrize("question", ["Who is the mayor of Altmoor?", "How much did the Margarethe II cost to build?"])
def test_what_the_documents_do_not_hold_is_not_answered(sample_home, question):
    answer = ask(sample_home, question)
    assert answer["answer"].startswith("Not in your documents"), answer["answer"]
    assert answer["sources"], "the closest passages are shown"


@pytest.mark.slow
def test_a_temporal_question_is_one_claim(sample_home):
    answer = ask(sample_home, "Did the ferry start running while the observatory was being built?")
    claims = answer["trace"]["reader"]["claims"]
    assert len(claims) == 1 and "while the observatory was being built" in claims[0]["claim"]
    assert answer["answer"] in ("Yes.", "No.")


@pytest.mark.slow
def test_a_question_about_one_document(sample_home):
    answer = ask(sample_home, "When did it open?", "--doc", str(SAMPLE / "observatory.html"))
    assert "1959" in answer["answer"], answer["answer"]
    assert {Path(s["document"]).name for s in answer["sources"]} == {"observatory.html"}
    assert [Path(k).name for k in answer["trace"]["scope"]["documents"]] == ["observatory.html"]


@pytest.mark.slow
def test_the_demo_still_names_the_chair(sample_home):
    answer = ask(sample_home, "Who leads the Lindenfeld Solar Cooperative?")
    assert "Henrike Albers" in answer["answer"], answer["answer"]


@pytest.mark.slow
def test_a_comparison_rests_on_each_sides_fact_whatever_word_compares(sample_home):
    """The ferry runs since 1891, the observatory opened in 1959; the documents never say "older",
    "service" or "earlier": each side's fact answers, and the wording does not change the outcome."""
    answers = [ask(sample_home, q) for q in ("Which is older, the ferry service or the observatory?",
                                             "Which came first, the ferry service or the observatory?",
                                             "Which was founded earlier, the ferry service or the observatory?")]
    for answer in answers:
        assert re.search(r"\bferry\b", answer["answer"], re.I) and "observatory" not in answer["answer"].lower(), answer["answer"]
        assert answer["trace"]["reader"]["sides"], answer["trace"]["reader"]
    assert {a["outcome"] for a in answers} == {"answered"}, [a["answer"] for a in answers]


@pytest.mark.slow
def test_the_officers_are_both_listed(sample_home):
    answer = ask(sample_home, "Please list the cooperative's officers.")
    assert answer["outcome"] != "declined", answer["answer"]
    assert "Henrike Albers" in answer["answer"] and "Jonas Petrowski" in answer["answer"], answer["answer"]


@pytest.mark.slow
def test_seven_minutes_holds_the_documents_seven(sample_home):
    answer = ask(sample_home, "How long does the crossing take?")
    assert answer["outcome"] != "declined", answer["answer"]
    assert "7 minutes" in normal_values(answer["answer"]), answer["answer"]
