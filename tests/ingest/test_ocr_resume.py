"""kill -9 during OCR: a real `k2desk index` of a six-page scan is killed once some pages are
read; the re-run reads by OCR only the pages the cache did not hold (at most the page in flight
is read twice), and a third run reads nothing at all (the file is unchanged)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from tests.ingest.office_folder import scanned_pdf

PAGES = 6


def _index(env, folder):
    done = subprocess.run([sys.executable, "-m", "k2desk", "index", str(folder), "--json"], env=env, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_kill_during_ocr_costs_at_most_the_page_in_flight(tmp_path, models_dir, ocr_engine):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "minutes.pdf").write_bytes(scanned_pdf([f"Minutes, page {n}. Item {n}: the board agreed to motion {n * 7}."
                                                      for n in range(1, PAGES + 1)]))
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"build_profile": "naive", "threads": 2}))
    env = {**os.environ, "K2DESK_HOME": str(home), "K2DESK_MODELS": str(models_dir)}
    cache = home / "cache" / "ocr"
    proc = subprocess.Popen([sys.executable, "-m", "k2desk", "index", str(folder)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 600
    lines = 0
    while proc.poll() is None and time.monotonic() < deadline:
        files = list(cache.glob("*.jsonl"))
        lines = files[0].read_text(encoding="utf-8").count("\n") if files else 0
        if lines >= 2:
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.02)
    proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL, "the run ended before two pages were read"
    held = (next(cache.glob("*.jsonl")).read_text(encoding="utf-8")).count("\n")
    assert 2 <= held < PAGES

    report = _index(env, folder)
    assert [k.rsplit("/", 1)[1] for k in report["added"]] == ["minutes.pdf"]
    (doc,) = json.loads(subprocess.run([sys.executable, "-m", "k2desk", "docs", "list", "--json"], env=env,
                                       capture_output=True, text=True, check=True).stdout)
    assert doc["ocr_pages"] == PAGES and doc["ocr_pages_read"] == PAGES - held  # only what the cache lacked
    assert _index(env, folder)["skipped"] == [str(folder / "minutes.pdf")]  # unchanged: not read at all
