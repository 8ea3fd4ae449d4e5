"""Crash safety: a real `k2desk index PATH` killed with SIGKILL at random points, re-run each time,
on a collection file and on a collection of a PostgreSQL server (the tests' server, backends.py).

Every kill must leave a consistent collection (integrity_check, no duplicate or orphan row in any
table, no partial stage), the re-run of the same command must keep every stage finished before
the kill (only the one stage in flight is redone), and the final state must equal an
uninterrupted run's. The profile is the default one (text index, summaries, their index and
their graph) with the extractive summarizer and the tests' tiny LLM, so every table is written.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from k2desk.errors import StoreError
from tests.store.invariants import dump, problems, stages

KILLS = 5
STAGES = ("text", "summary", "summary_index", "graph_summary")
TOPICS = [
    ("Harwick Point lighthouse", "Mara Quist", "keeper", "the lamp was converted to LED in 2019 and reaches 22 nautical miles"),
    ("Lindenfeld Solar Cooperative", "Henrike Albers", "chair", "the cooperative runs 340 rooftop arrays and sells power to 2,100 homes"),
    ("Oskarsborg chess club", "Tomas Lindqvist", "president", "the club has 86 members and meets on Thursday evenings"),
    ("Verdant Hollow Botanical Garden", "Ines Moreau", "director", "the glasshouse holds 1,200 orchid species"),
    ("Calder Valley rail line", "Priya Natarajan", "chief engineer", "the line reopened in March 2021 after a 14 month closure"),
    ("Brennan Street bakery", "Ottavio Russo", "owner", "the bakery sells 900 loaves of rye bread a day"),
]


def _write_corpus(folder: Path) -> None:
    folder.mkdir()
    for i, (place, person, role, fact) in enumerate(TOPICS):
        body = (f"{place}\n\n{person} is the {role} of the {place}. According to the annual report, {fact}. "
                f"{person} said the next year would bring new projects and more visitors. "
                f"The {place} was founded in {1890 + 7 * i} by a group of local residents. "
                f"Its board meets every {['Monday', 'Tuesday', 'Friday'][i % 3]} and publishes its accounts online.")
        (folder / f"doc{i}.txt").write_text(body, encoding="utf-8")


def _home(tmp_path: Path, name: str, server: str = "") -> Path:
    home = tmp_path / name
    home.mkdir()
    # the LLM graph extractor: stages long enough for the kills to land inside them (the fast one
    # finishes the whole corpus before most of the planned kills)
    (home / "settings.json").write_text(json.dumps({"build_profile": "default", "summarizer": "extractive", "graph_extractor": "llm",
                                                    "llm": "smollm2-135m", "threads": 2, "store": server}))
    return home


def _command(home: Path, folder: Path, models_dir: Path, collection: str):
    env = {**os.environ, "K2DESK_HOME": str(home), "K2DESK_MODELS": str(models_dir)}
    return [sys.executable, "-m", "k2desk", "index", str(folder), "--collection", collection, "--json"], env


def _stages(address) -> dict:
    """``stages``, empty before the first run made the collection."""
    if isinstance(address, Path) and not address.exists():
        return {}
    try:
        return stages(address)
    except StoreError as exc:
        if str(exc).startswith("no collection"):
            return {}
        raise


def _stage_count(address) -> int:
    try:
        return len(_stages(address))
    except Exception:  # noqa: BLE001 - the collection is being created or migrated
        return 0


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request):
    """(the server's address or "" for files, the collection name of a test name): on the server
    the names carry the test's ``prefix``, whose collections are dropped after it (conftest)."""
    if request.param == "sqlite":
        return "", lambda name: name
    prefix = request.getfixturevalue("prefix")
    return request.getfixturevalue("postgres_server"), lambda name: f"{prefix}_{name}"


def _address(home: Path, server: str, collection: str):
    """Where ``collection`` lives: its file under ``home``, or its address on ``server``."""
    from tests.store.backends import with_collection

    return with_collection(server, collection) if server else home / "collections" / f"{collection}.k2db"


def test_sigkill_at_random_points_then_rerun_resumes_without_redoing(tmp_path, models_dir, tiny_llm_path, store):
    server, name_of = store
    folder = tmp_path / "docs"
    _write_corpus(folder)
    total = len(TOPICS) * len(STAGES)

    # the reference: one uninterrupted run
    ref_home = _home(tmp_path, "ref", server)
    ref_db = _address(ref_home, server, name_of("ref"))
    argv, env = _command(ref_home, folder, models_dir, name_of("ref"))
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert len(stages(ref_db)) == total and problems(ref_db) == []
    reference = dump(ref_db, str(folder))
    assert reference["entities"] and reference["relation_mentions"], "the graph stage wrote nothing to compare"

    # the same command, killed at random points of its work, re-run after each kill
    home = _home(tmp_path, "killed", server)
    db = _address(home, server, name_of("killed"))
    argv, env = _command(home, folder, models_dir, name_of("killed"))
    seed = int(os.environ.get("K2DESK_KILL_SEED", "0")) or random.randrange(1 << 30)
    rng = random.Random(seed)
    plan = sorted(rng.sample(range(1, total), KILLS))  # kill once this many stages are recorded
    figures = []
    kills = 0
    while True:
        before = _stages(db)
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        target = max(plan[kills], len(before) + 1) if kills < KILLS and len(before) < total else None
        killed = False
        while proc.poll() is None:
            if target is not None and _stage_count(db) >= target:
                time.sleep(rng.uniform(0.0, 0.6))  # land inside the next stage's work, not on a commit
                proc.send_signal(signal.SIGKILL)
                killed = True
                break
            time.sleep(0.02)
        out, err = proc.communicate(timeout=900)
        after = stages(db)
        # what was finished before this run is still there, built at the same moment: not redone
        redone = [k for k, t in before.items() if after.get(k) != t]
        assert redone == [], f"finished stages were rebuilt after a kill: {redone}"
        assert problems(db) == [], f"inconsistent after {'kill' if killed else 'run'} {kills + 1}: {problems(db)}"
        if not killed:
            assert proc.returncode == 0, err
            assert len(json.loads(out)["resumed"]) + len(json.loads(out)["skipped"]) >= 1
            break
        kills += 1
        figures.append({"kill": kills, "stages_before": len(before), "stages_at_kill": len(after),
                        "stages_redone": len(redone), "in_flight": 1 if len(after) < total else 0})
    print(json.dumps({"backend": "postgresql" if server else "sqlite", "seed": seed, "kills": figures}))
    assert kills >= KILLS
    assert dump(db, str(folder)) == reference
