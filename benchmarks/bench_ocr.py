"""OCR engines on generated scans: character accuracy and pages per second on this machine.

Pages of real prose (the test fixtures' documents) are rendered as a scanner would make them and
read back by each engine:

- clean 300 dpi, clean 150 dpi;
- 150 dpi turned by 1.5° and blurred (a page fed crookedly into a worn scanner);
- a photo-like page: uneven light, a 2.5° tilt, blur, sensor noise, JPEG.

Engines: k2desk's (PP-OCRv6 through rapidocr on onnxruntime, the models of the manifest) and
Tesseract (its command-line program, when installed: `apt-get install tesseract-ocr`).
Character accuracy = 1 - edit distance / characters of the page's text (runs of whitespace
counted as one space); also without any whitespace, which separates missed spaces from misread
letters.

    .venv/bin/python benchmarks/bench_ocr.py [--pages 4] [--threads 2] [--json out.json]
    .venv/bin/python benchmarks/bench_ocr.py --scanned-pdf 40   # a 40-page scan through `k2desk index`: pages/s
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from k2desk.config import Settings  # noqa: E402
from k2desk.ingest.ocr import OcrEngine  # noqa: E402
from k2desk.runtime.models import ModelStore  # noqa: E402
from tests.ingest.office_folder import render_page  # noqa: E402

SOURCES = [ROOT / "tests/fixtures/mixed/lighthouse.txt", ROOT / "resources/sample"]


def prose_pages(n: int, chars: int = 1800) -> list[str]:
    """``n`` pages of real sentences, ~``chars`` characters each (the sources' paragraphs in turn,
    taken again from the start when they run out)."""
    texts = []
    for src in SOURCES:
        files = sorted(src.glob("*.md")) + sorted(src.glob("*.txt")) if src.is_dir() else [src]
        for f in files:
            body = re.sub(r"[#*_`>\[\]]", "", f.read_text(encoding="utf-8"))
            texts += [" ".join(p.split()) for p in body.split("\n\n") if len(p.split()) > 8]
    pages, page, i = [], "", 0
    while len(pages) < n:
        para = texts[i % len(texts)]
        i += 1
        if len(page) + len(para) > chars and page:
            pages.append(page.strip())
            page = ""
        page += para + "\n\n"
    return pages


def photo_lines(text: str) -> list[str]:
    """What the photo-like page shows: the page's first 36 words, six to a line."""
    words = text.split()[:36]
    return [" ".join(words[i:i + 6]) for i in range(0, len(words), 6)]


def conditions(text: str):
    from PIL import Image, ImageFilter

    from tests.ingest.office_folder import whiteboard_photo

    yield "clean 300 dpi", render_page(text, 300)
    yield "clean 150 dpi", render_page(text, 150)
    crooked = render_page(text, 150).rotate(1.5, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255)
    yield "150 dpi, 1.5° and blurred", crooked.filter(ImageFilter.GaussianBlur(0.8))
    yield "photo-like", Image.open(io.BytesIO(whiteboard_photo(photo_lines(text))))


def flat(text: str) -> str:
    return " ".join(text.split())


def accuracy(got: str, gold: str, spaces: bool = True) -> float:
    from rapidfuzz.distance import Levenshtein

    a, b = (flat(got), flat(gold)) if spaces else ("".join(got.split()), "".join(gold.split()))
    return max(0.0, 1 - Levenshtein.distance(a, b) / max(1, len(b)))


def tesseract(image) -> str:
    with tempfile.NamedTemporaryFile(suffix=".png") as f:
        image.save(f.name)
        out = subprocess.run(["tesseract", f.name, "-", "--psm", "3"], capture_output=True, text=True, check=True)
    return out.stdout


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def bundle_sizes(settings: Settings) -> dict[str, str]:
    import cv2
    import rapidocr

    site = Path(rapidocr.__file__).parent
    models = ModelStore(settings.models_dir).resolve_ocr()
    code = dir_size(site) - dir_size(site / "models") + dir_size(Path(cv2.__file__).parent)
    sizes = {"rapidocr (PP-OCRv6)": f"{code / 2**20:.0f} MiB code + OpenCV, "
             f"{sum(p.stat().st_size for p in models.values()) / 2**20:.0f} MiB models"}
    if shutil.which("dpkg-query"):
        out = subprocess.run(["dpkg-query", "-W", "-f=${Installed-Size}\n", "tesseract-ocr", "tesseract-ocr-eng", "libtesseract5",
                              "liblept5"], capture_output=True, text=True)
        kib = sum(int(x) for x in out.stdout.split() if x.isdigit())
        if kib:
            sizes["tesseract"] = f"{kib / 1024:.0f} MiB (Debian packages: program, English data, libtesseract, leptonica)"
    return sizes


def bench_engines(args) -> dict:
    settings = Settings.load()
    engine = OcrEngine(ModelStore(settings.models_dir).resolve_ocr(), threads=args.threads)
    engines = {"rapidocr (PP-OCRv6)": lambda im: engine.read(im).text}
    if shutil.which("tesseract"):
        engines["tesseract"] = tesseract
    else:
        print("tesseract is not installed: only k2desk's engine is measured", file=sys.stderr)
    engine.read(render_page("warm up", 150))  # the first call builds onnxruntime's kernels
    rows: dict[str, dict[str, list]] = {}
    for text in prose_pages(args.pages):
        for cond, image in conditions(text):
            gold = text if cond != "photo-like" else "\n".join(photo_lines(text))
            for name, read in engines.items():
                t0 = time.perf_counter()
                got = read(image)
                dt = time.perf_counter() - t0
                r = rows.setdefault(name, {}).setdefault(cond, [])
                r.append((accuracy(got, gold), accuracy(got, gold, spaces=False), dt))
    table = {}
    print(f"{'engine':<22} {'scan':<28} {'char acc.':>9} {'no spaces':>9} {'pages/s':>8}")
    for name, by_cond in rows.items():
        for cond, r in by_cond.items():
            acc = sum(x[0] for x in r) / len(r)
            acc_ns = sum(x[1] for x in r) / len(r)
            pps = len(r) / sum(x[2] for x in r)
            table.setdefault(name, {})[cond] = {"char_accuracy": round(acc, 4), "no_space_accuracy": round(acc_ns, 4),
                                                "pages_per_s": round(pps, 3), "pages": len(r)}
            print(f"{name:<22} {cond:<28} {acc:>9.4f} {acc_ns:>9.4f} {pps:>8.2f}")
    sizes = bundle_sizes(settings)
    for k, v in sizes.items():
        print(f"size, {k}: {v}")
    return {"engines": table, "sizes": sizes, "threads": args.threads, "cpus": os.cpu_count()}


def bench_scanned_pdf(args) -> dict:
    """A many-page scanned PDF indexed by `k2desk index` (naive profile): seconds, pages/s, peak RSS."""
    from tests.ingest.office_folder import scanned_pdf

    pages = prose_pages(args.scanned_pdf)
    work = Path(tempfile.mkdtemp(prefix="k2desk-ocr-"))
    try:
        (work / "docs").mkdir()
        (work / "docs" / "scan.pdf").write_bytes(scanned_pdf(pages[: args.scanned_pdf], 150))
        home = work / "home"
        home.mkdir()
        (home / "settings.json").write_text(json.dumps({"build_profile": "naive", "threads": args.threads}))
        env = {**os.environ, "K2DESK_HOME": str(home)}
        t0 = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-m", "k2desk", "index", str(work / "docs"), "--json"],
                              env=env, capture_output=True, text=True)
        dt = time.perf_counter() - t0
        peak = int(proc.stderr.strip().splitlines()[-1]) / 1024 if proc.returncode == 0 else 0
        out = {"pages": args.scanned_pdf, "seconds": round(dt, 1), "pages_per_s": round(args.scanned_pdf / dt, 3),
               "peak_rss_mib": round(peak), "rc": proc.returncode}
        print(json.dumps(out))
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=4, help="pages of prose per condition")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--scanned-pdf", type=int, default=0, help="index a scanned PDF of this many pages instead")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    result = bench_scanned_pdf(args) if args.scanned_pdf else bench_engines(args)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
