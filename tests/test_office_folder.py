"""Every file a person keeps (issue 43): the generated office folder (a 150-dpi scan, a photo of
a whiteboard, slides with notes, a two-sheet workbook, a CSV, odt, rtf, an e-mail with an
attachment, an mbox, md, html) indexed by a real `k2desk index` with the default models, every
file indexed with the reading it records; then its 13 questions asked with the default method and
model: each cites the right file and page, slide, sheet or message first; at least 80 % are right
by the strict rule, the issue's bar (11 of 13 measured: "380 euros" with its unit now; "Which
supplier provides the ash?" and "Which carrier delivers to Ostby?" are still declined, the
sheet's row saying Supplier and Delivery day)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from k2desk.eval.metrics import strict_match


@pytest.fixture(scope="module")
def office_home(tmp_path_factory, office_folder, models_dir, model_store):
    model_store.resolve_llm("qwen2.5-coder-0.5b")  # prepared by setup
    folder, questions = office_folder
    home = tmp_path_factory.mktemp("office-home") / "home"
    env = {**os.environ, "K2DESK_HOME": str(home), "K2DESK_MODELS": str(models_dir)}
    done = subprocess.run([sys.executable, "-m", "k2desk", "index", str(folder), "--json"], env=env, capture_output=True,
                          text=True, timeout=1800)
    assert done.returncode == 0, done.stderr
    return env, json.loads(done.stdout), folder, questions


def _run(env, *args) -> str:
    out = subprocess.run([sys.executable, "-m", "k2desk", *args], env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.slow
def test_every_file_of_the_folder_is_indexed_with_how_it_was_read(office_home):
    env, report, folder, _ = office_home
    assert report["failed"] == [] and report["unsupported"] == []
    indexed = {Path(k.split("#")[0]).name for k in report["added"]}
    assert indexed == {p.name for p in folder.iterdir()}
    docs = {Path(d["key"]).name: d for d in json.loads(_run(env, "docs", "list", "--json"))}
    assert docs["supply-agreement-scan.pdf"]["reading"] == "OCR" and docs["supply-agreement-scan.pdf"]["ocr_pages"] == 2
    assert docs["supply-agreement-scan.pdf"]["ocr_confidence"] > 0.9
    assert docs["whiteboard.jpg"]["reading"] == "OCR"
    assert docs["q2-board.pptx"].get("reading") is None
    listing = _run(env, "docs", "list")
    assert "[OCR, 2 pages, confidence 0." in listing


@pytest.fixture(scope="module")
def answers(office_home):
    """Each question asked once with the default method and model: (question, ask --json)."""
    env, _, _, questions = office_home
    return [(q, json.loads(_run(env, "ask", q.question, "--json"))) for q in questions]


def _row(q, answer) -> str:
    first = answer["sources"][0] if answer["sources"] else {}
    where = f"{first.get('document', '')[-45:]} {first.get('location', '')}"
    return f"{q.question} -> {answer['answer'][:60]!r} [{answer['outcome']}] from {where}"


@pytest.mark.slow
def test_every_question_cites_its_file_and_place_first(answers):
    wrong = []
    for q, answer in answers:
        first = answer["sources"][0] if answer["sources"] else {}
        if not (Path(first.get("document", "").split("#")[0]).name == q.file and
                (q.where in first.get("location", "") or first.get("document", "").endswith(q.where))):
            wrong.append(_row(q, answer))
    assert wrong == []


@pytest.mark.slow
def test_four_of_five_questions_are_answered_right_by_the_strict_rule(answers):
    shown = [(q, a) for q, a in answers if a["outcome"] in ("answered", "cautioned")]
    right = [q for q, a in shown if strict_match(a["answer"], q.gold)]
    print("\n".join(_row(q, a) for q, a in answers))
    assert len(right) >= 0.8 * len(answers), [_row(q, a) for q, a in answers]
