"""A folder of 200+ hostile files (tests/ingest/hostile.py) indexed by a real `k2desk index`:
no crash, every file reported with a reason, the good ones indexed, memory bounded, the
collection consistent. Run without root's power to read anything (CAP_DAC_OVERRIDE dropped)
so that an unreadable file is unreadable in CI too."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from k2desk.config import Settings
from k2desk.engine import Engine
from tests.ingest.hostile import make_corpus
from tests.store.invariants import problems

MAX_RSS_MB = 1536


def _peak_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            return next((int(line.split()[1]) / 1024 for line in f if line.startswith("VmHWM:")), 0.0)
    except OSError:  # it just ended
        return 0.0


def _without_read_override(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.fail("setpriv (util-linux) is needed to drop root's read override", pytrace=False)
    caps = "-dac_override,-dac_read_search"
    return [setpriv, f"--inh-caps={caps}", f"--bounding-set={caps}", *argv]


def test_a_hostile_folder_indexes_what_is_good_and_reports_the_rest(tmp_path, models_dir, embedder):
    folder = tmp_path / "hostile"
    made = make_corpus(folder)
    assert len(made) >= 200
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"build_profile": "naive", "threads": 2}))
    env = {**os.environ, "K2DESK_HOME": str(home), "K2DESK_MODELS": str(models_dir)}
    argv = _without_read_override([sys.executable, "-m", "k2desk", "index", str(folder), "--json"])
    with open(tmp_path / "out.json", "w") as out, open(tmp_path / "err.txt", "w") as err:
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=err)
        rss_mb = 0.0
        while proc.poll() is None:  # VmHWM: the peak of the program's own memory (getrusage would
            rss_mb = max(rss_mb, _peak_mb(proc.pid))  # count the test process it was forked from)
            time.sleep(0.05)
    assert proc.returncode == 0, (tmp_path / "err.txt").read_text()[-2000:]
    assert 0 < rss_mb < MAX_RSS_MB
    report = json.loads((tmp_path / "out.json").read_text())

    reasons: dict[str, list[str]] = {}
    for key in report["added"]:
        reasons.setdefault(key.split("#")[0], []).append("indexed")
    for key, reason in report["failed"] + report["unsupported"]:
        assert reason, key
        path = key.split("#")[0]
        if path.endswith(tuple(f":{n}" for n in range(1, 100))) and not os.path.exists(path):
            path = path.rsplit(":", 1)[0]  # a corpus line
        reasons.setdefault(path, []).append(reason)
    unreported = [m.case + ": " + m.path.name for m in made if str(m.path) not in reasons]
    assert unreported == []
    not_indexed = [m.path.name for m in made if m.good and "indexed" not in reasons[str(m.path)]]
    assert not_indexed == []
    by_case = {m.case: reasons[str(m.path)] for m in made}
    assert "password" in by_case["encrypted PDF (user password)"][0]
    assert "zip bomb" in by_case["DOCX zip bomb"][0] and "zip bomb" in by_case["EPUB zip bomb"][0]
    assert "too large" in by_case["a 200 MB text file"][0]
    assert "Permission denied" in by_case["unreadable file"][0]
    assert by_case["symlink loop"] == ["symbolic link loop"]
    assert problems(home / "collections" / "default.k2db") == []
    print(json.dumps({"files": len(made), "indexed": len(report["added"]), "failed": len(report["failed"]),
                      "not documents": len(report["unsupported"]), "peak_rss_mb": rss_mb}))


def test_a_file_that_vanishes_between_scan_and_read_is_reported(tmp_path, models_dir, embedder, monkeypatch):
    import k2desk.indexing.pipeline as indexing

    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("stays.txt", "goes.txt"):
        (folder / name).write_text(f"{name} holds a note about the harbour office.", encoding="utf-8")
    real_scan = indexing.scan

    def scan_then_delete(paths):
        items = real_scan(paths)
        (folder / "goes.txt").unlink()
        return items

    monkeypatch.setattr(indexing, "scan", scan_then_delete)
    with Engine(Settings(home=tmp_path / "home", models_dir=models_dir, threads=2, build_profile="naive")) as engine:
        report = engine.index([folder])
    assert [k.rsplit("/", 1)[1] for k in report.added] == ["stays.txt"]
    assert [(k.rsplit("/", 1)[1], r) for k, r in report.failed] == [("goes.txt", "goes.txt: no such file")]
