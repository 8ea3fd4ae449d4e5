"""How long each download form takes to start (issue 56): to the window, to the first answer.

    .venv/bin/python benchmarks/bench_start.py dist/k2desk/k2desk dist/k2desk-onefile .venv/bin/k2desk

For each program given (the one-dir bundle, the one-file bundle, the install's command), on the
README's sample indexed once beforehand with that program:
  - ``--version``: the process alone;
  - to the window: the app started offscreen with ``K2DESK_GUI_SELFTEST_SHOWN=1``, timed from the
    start to the line it prints once its window is shown;
  - to the first answer: the app asking the README's question (``K2DESK_GUI_SELFTEST``), timed to
    its answer's line; and the command line's ``ask``, timed to its exit.
Each once **cold** (every file of the program evicted from the page cache first, with
posix_fadvise(DONTNEED), as after a reboot: no root needed) and then **warm** (at once again). A
one-file build unpacks itself into a new temporary folder at each start, so its warm start pays
the unpacking too. One run each; figures printed as a Markdown table and kept as JSON (--out).
Nothing is asserted: the figures are the result.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "Who leads the Lindenfeld Solar Cooperative?"  # the README's demo
TIMEOUT = 900


def evict(program: Path) -> int:
    """Drop the program's files from the page cache (its folder for a one-dir build, the file for a
    one-file one, the virtual environment for an install); returns the bytes advised."""
    target = program.resolve()
    root = target.parent if (target.parent / "_internal").is_dir() else target
    if target.parent.name == "bin" and (target.parent.parent / "pyvenv.cfg").is_file():
        root = target.parent.parent
    files = [root] if root.is_file() else [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()]
    if (target.parent.parent / "pyvenv.cfg").is_file():  # the install: its code and models too
        files += [p for p in (ROOT / "k2desk").rglob("*") if p.is_file()]
        files += [p for p in (ROOT / "models").rglob("*") if p.is_file()]
    advised = 0
    for path in files:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            advised += os.fstat(fd).st_size
        finally:
            os.close(fd)
    return advised


def env_for(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("K2DESK_HOME", "K2DESK_MODELS")}
    env.update(QT_QPA_PLATFORM="offscreen", **extra)
    return env


def to_line(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, Optional[dict]]:
    """Seconds from the start to the first JSON line on stdout, and that line."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd, text=True)
    line = None
    assert proc.stdout is not None
    for raw in proc.stdout:
        if raw.startswith("{"):
            line = json.loads(raw)
            break
    seconds = time.perf_counter() - t0
    try:
        proc.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
    return seconds, line


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd, timeout=TIMEOUT)
    return time.perf_counter() - t0, out.stdout.strip()


def measure(program: Path, work: Path) -> dict:
    exe = str(program.resolve())
    home = work / "home"
    env = env_for()
    subprocess.run([exe, "--home", str(home), "index", str(ROOT / "resources" / "sample")], env=env, cwd=work,
                   capture_output=True, check=True, timeout=TIMEOUT)
    row: dict = {"program": str(program), "size_bytes": size_of(program)}
    for state in ("cold", "warm"):
        if state == "cold":
            row["evicted_bytes"] = evict(program)
        row[f"version_{state}"], _ = timed([exe, "--version"], env, work)
        if state == "cold":
            evict(program)
        row[f"window_{state}"], shown = to_line([exe, "--home", str(home)], env_for(K2DESK_GUI_SELFTEST_SHOWN="1"), work)
        assert shown and shown.get("shown"), shown
        if state == "cold":
            evict(program)
        row[f"answer_gui_{state}"], answer = to_line([exe, "--home", str(home)],
                                                     env_for(K2DESK_GUI_SELFTEST=QUESTION,
                                                             K2DESK_GUI_SELFTEST_METHOD="k2rag"), work)
        row[f"answer_gui_{state}_text"] = (answer or {}).get("answer", "")
        if state == "cold":
            evict(program)
        row[f"answer_cli_{state}"], text = timed([exe, "--home", str(home), "ask", QUESTION], env, work)
        row[f"answer_cli_{state}_text"] = text.splitlines()[0] if text else ""
    return row


def size_of(program: Path) -> int:
    target = program.resolve()
    if (target.parent / "_internal").is_dir():  # pyinstaller's links to its own libraries counted once
        return sum(p.stat().st_size for p in target.parent.rglob("*") if p.is_file() and not p.is_symlink())
    if (target.parent.parent / "pyvenv.cfg").is_file():
        return 0  # an install: its virtual environment and models are shared, no download of its own
    return target.stat().st_size


def table(rows: list[dict]) -> str:
    out = ["| form | size | `--version` cold / warm | to the window cold / warm | first answer, app, cold / warm "
           "| first answer, CLI, cold / warm |", "|---|---:|---:|---:|---:|---:|"]
    def pair(r: dict, key: str) -> str:
        return f"{r[key + '_cold']:.1f} / {r[key + '_warm']:.1f} s"

    for r in rows:
        size = f"{r['size_bytes'] / 2**30:.2f} GiB" if r["size_bytes"] else "–"
        out.append(f"| {r['program']} | {size} | {pair(r, 'version')} | {pair(r, 'window')} | "
                   f"{pair(r, 'answer_gui')} | {pair(r, 'answer_cli')} |")
    return "\n".join(out)


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("programs", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, help="write the rows as JSON here")
    args = ap.parse_args(argv)
    rows = []
    for program in args.programs:
        if not program.exists():
            sys.exit(f"bench_start: no program at {program}")
        work = Path(tempfile.mkdtemp(prefix="k2desk-start-"))
        try:
            rows.append(measure(program, work))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        print(json.dumps(rows[-1]), flush=True)
    print(table(rows))
    print("(one run each; cold: the program's files evicted from the page cache first; answers: "
          + "; ".join(f"{Path(r['program']).name}: {r['answer_cli_warm_text']!r}" for r in rows) + ")")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
