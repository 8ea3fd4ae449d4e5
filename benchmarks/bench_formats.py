"""Reading a person's folder: seconds and peak memory per format, a 100,000-row sheet, and whether
plain text files still index as fast as before the new formats.

    .venv/bin/python benchmarks/bench_formats.py read            # each file of the generated office folder
    .venv/bin/python benchmarks/bench_formats.py sheet [--rows 100000] [--index]
    .venv/bin/python benchmarks/bench_formats.py text [--code DIR]   # 40 .txt files, naive profile

``text --code DIR`` imports k2desk from DIR (e.g. a `git worktree` of an earlier commit), so two
versions are timed on the same machine in one session. Each measurement runs in a child process
and reports its own peak RSS (VmHWM). Figures from one run on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MULTIHOP = ROOT.parent / "shared" / "bench" / "multihop-rag-dev" / "corpus.jsonl"


def _peak_mib() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmHWM:"))


def child(code: str, argv: list[str], env: dict | None = None) -> dict:
    """Run ``code`` (Python, printing one JSON line last) in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, **(env or {})})
    if out.returncode != 0:
        raise SystemExit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


READ_ONE = """
import json, sys, time
sys.path.insert(0, sys.argv[2])
from k2desk.config import Settings
from k2desk.engine import shared_ocr
from k2desk.ingest import read_path
from k2desk.ingest.document import ReadContext
settings = Settings.load()
t0 = time.perf_counter()
docs = read_path(sys.argv[1], ctx=ReadContext(ocr=lambda: shared_ocr(settings)))
dt = time.perf_counter() - t0
peak = next(int(l.split()[1]) / 1024 for l in open('/proc/self/status') if l.startswith('VmHWM:'))
print(json.dumps({"seconds": round(dt, 3), "documents": len(docs), "chars": sum(len(d.text) for d in docs), "peak_rss_mib": round(peak)}))
"""


def bench_read(args) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.ingest.office_folder import make_office_folder

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "office"
        make_office_folder(folder)
        print(f"{'file':<28} {'seconds':>8} {'docs':>5} {'chars':>7} {'peak RSS MiB':>13}")
        for path in sorted(folder.iterdir()):
            r = child(READ_ONE, [str(path), str(ROOT)])
            print(f"{path.name:<28} {r['seconds']:>8.3f} {r['documents']:>5} {r['chars']:>7} {r['peak_rss_mib']:>13}")


def write_sheet(path: Path, rows: int) -> None:
    import openpyxl

    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("Orders")
    ws.append(["Order", "Customer", "Wood", "Volume (cubic metres)", "Price (euros)", "Shipped"])
    woods = ["Oak", "Walnut", "Ash", "Cherry", "Maple"]
    for n in range(1, rows + 1):
        ws.append([f"BW-{n:06d}", f"Customer {n % 977}", woods[n % 5], round(0.5 + (n % 40) / 4, 2), 120 + n % 900,
                   "yes" if n % 3 else "no"])
    wb.save(path)


INDEX = """
import json, sys, time
sys.path.insert(0, sys.argv[3])
from k2desk.config import Settings
from k2desk.engine import Engine
settings = Settings.load(home=__import__('pathlib').Path(sys.argv[2]), build_profile='naive', threads=2)
t0 = time.perf_counter()
with Engine(settings) as engine:
    report = engine.index([sys.argv[1]])
dt = time.perf_counter() - t0
peak = next(int(l.split()[1]) / 1024 for l in open('/proc/self/status') if l.startswith('VmHWM:'))
print(json.dumps({"seconds": round(dt, 2), "documents": len(report.added), "chunks": report.chunks,
                  "failed": len(report.failed), "peak_rss_mib": round(peak)}))
"""


def bench_sheet(args) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "orders.xlsx"
        t0 = time.perf_counter()
        write_sheet(path, args.rows)
        print(f"{args.rows:,} rows written in {time.perf_counter() - t0:.1f} s ({path.stat().st_size / 2**20:.1f} MiB)")
        r = child(READ_ONE, [str(path), str(ROOT)])
        print(f"read: {r['seconds']:.1f} s, {r['chars'] / 2**20:.1f} MiB of text, peak RSS {r['peak_rss_mib']} MiB")
        if args.index:
            r = child(INDEX, [str(path), str(Path(tmp) / "home"), str(ROOT)], {"K2DESK_MODELS": str(ROOT / "models")})
            print(f"index (naive): {r['seconds']:.1f} s, {r['chunks']:,} chunks, peak RSS {r['peak_rss_mib']} MiB")


def bench_text(args) -> None:
    code = str(Path(args.code).resolve()) if args.code else str(ROOT)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        for i, line in enumerate(MULTIHOP.read_text(encoding="utf-8").splitlines()[:40]):
            rec = json.loads(line)
            (folder / f"article-{i:02d}.txt").write_text(f"{rec.get('title', '')}\n\n{rec.get('body', '')}", encoding="utf-8")
        runs = []
        for n in range(args.repeat):
            runs.append(child(INDEX, [str(folder), str(Path(tmp) / f"home{n}"), code], {"K2DESK_MODELS": str(ROOT / "models")}))
        secs = sorted(r["seconds"] for r in runs)
        print(f"40 text files, naive profile, code {code}: {secs} s (median {secs[len(secs) // 2]}), "
              f"{runs[0]['chunks']} chunks, peak RSS {max(r['peak_rss_mib'] for r in runs)} MiB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    sub.add_parser("read")
    sheet = sub.add_parser("sheet")
    sheet.add_argument("--rows", type=int, default=100_000)
    sheet.add_argument("--index", action="store_true")
    text = sub.add_parser("text")
    text.add_argument("--code", help="a checkout whose k2desk is timed (default: this one)")
    text.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    {"read": bench_read, "sheet": bench_sheet, "text": bench_text}[args.what](args)


if __name__ == "__main__":
    main()
