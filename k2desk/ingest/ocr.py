"""OCR of scans and pictures, offline: PP-OCR's text detection and recognition (ONNX models carried
by the ``rapidocr`` package's wheel, prepared into the models folder and sha256-checked like every
model of the manifest) on the onnxruntime k2desk already ships. The engine was chosen by
measurement against Tesseract (benchmarks/bench_ocr.py, docs/ingest).

``OcrEngine.read(image)`` gives a page's text (lines in reading order, paragraphs where the
vertical gap is wide) and the mean recognition confidence. ``OcrCache`` keeps each page's result
on disk as soon as it is read (keyed by the file's sha256), so a cancelled or killed run redoes at
most the page that was in flight, and an unchanged file is never read by OCR twice.
``ocr_pages`` reads a document's pages that way, with progress per page and cancel between pages.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from k2desk.config import prepare_hint
from k2desk.errors import IngestError
from k2desk.ingest.document import ReadContext

MAX_PIXELS = 60_000_000  # larger images are refused (a decompression bomb); a letter page at 600 dpi is 33.7 Mpx
RENDER_DPI = 200  # a PDF page without a text layer is rendered at this resolution for OCR
DETECT_SIDE = 1600  # text is found on the page scaled to this longest side (read at full resolution):
# on letter pages at 200 dpi 0.63 s a page against 0.84 s at 2,000, the same characters (docs/ingest)
MAX_RENDER_PIXELS = 16_000_000  # ... at most this many pixels (a poster-sized page is rendered smaller)
OCR_MODEL_FILES = ("det", "rec")  # the engine's two models: text detection, text recognition


@dataclass
class OcrPage:
    text: str
    confidence: float  # mean recognition score of its characters, 0..1 (0 for a page with no text)


class OcrEngine:
    """PP-OCR detection and recognition ONNX models, loaded once, read one image at a time.

    PP-OCR's line-direction classifier is not used: on upright scans it turned good lines upside
    down (character accuracy 0.921 with it, 0.999 without, on clean 150-dpi pages: docs/ingest)."""

    def __init__(self, models: dict[str, Path], threads: int = 0) -> None:
        missing = [role for role in OCR_MODEL_FILES if role not in models or not Path(models[role]).is_file()]
        if missing:  # never let the library look for (and download) a model itself
            raise IngestError(f"the OCR model ({missing[0]}) is missing: {prepare_hint(missing[0])}")
        logging.getLogger("RapidOCR").setLevel(logging.ERROR)
        from rapidocr import RapidOCR

        n = int(threads) if threads and threads > 0 else -1
        engine = {"EngineConfig.onnxruntime.intra_op_num_threads": n, "EngineConfig.onnxruntime.inter_op_num_threads": 1}
        self._ocr = RapidOCR(params={
            "Global.log_level": "error", "Global.use_cls": False, "Global.max_side_len": DETECT_SIDE,
            "Det.model_path": str(models["det"]),
            "Rec.model_path": str(models["rec"]), **engine})
        logging.getLogger("RapidOCR").setLevel(logging.ERROR)
        self._lock = threading.Lock()  # one image at a time: the sessions use every thread they are given

    def read(self, image: Any) -> OcrPage:
        """A PIL image -> its text and confidence."""
        import numpy as np

        rgb = np.asarray(image.convert("RGB"))
        with self._lock:
            result = self._ocr(rgb)
        boxes, txts, scores = getattr(result, "boxes", None), getattr(result, "txts", None), getattr(result, "scores", None)
        if boxes is None or not txts:
            return OcrPage("", 0.0)
        return OcrPage(layout(boxes, txts), _mean_confidence(txts, scores))


def _mean_confidence(txts, scores) -> float:
    weights = [max(1, len(t.strip())) for t in txts]
    return round(float(sum(w * float(s) for w, s in zip(weights, scores)) / sum(weights)), 4)


def layout(boxes, txts) -> str:
    """Recognized boxes -> text: boxes whose vertical centres lie within half a line's height of a
    line's join it (left to right); a gap wider than a line's height between lines starts a new paragraph."""
    items = []
    for box, txt in zip(boxes, txts):
        txt = " ".join(str(txt).split())
        if not txt:
            continue
        ys, xs = [float(p[1]) for p in box], [float(p[0]) for p in box]
        items.append((min(ys), max(ys), min(xs), txt))
    items.sort(key=lambda it: ((it[0] + it[1]) / 2, it[2]))
    lines: list[list] = []  # [top, bottom, [(x, text), ...]]
    for top, bottom, x, txt in items:
        centre, height = (top + bottom) / 2, max(1.0, bottom - top)
        if lines:
            line = lines[-1]
            line_centre, line_height = (line[0] + line[1]) / 2, max(1.0, line[1] - line[0])
            if abs(centre - line_centre) <= 0.5 * max(height, line_height):
                line[0], line[1] = min(line[0], top), max(line[1], bottom)
                line[2].append((x, txt))
                continue
        lines.append([top, bottom, [(x, txt)]])
    heights = sorted(max(1.0, b - t) for t, b, _ in lines)
    typical = heights[len(heights) // 2] if heights else 1.0
    out, previous_bottom = [], None
    for top, bottom, words in lines:
        if previous_bottom is not None:
            out.append("\n\n" if top - previous_bottom > 0.5 * typical else "\n")
        out.append(" ".join(t for _, t in sorted(words)))
        previous_bottom = bottom
    return "".join(out)


class OcrCache:
    """Each OCR'd page of a file, by the file's sha256: one JSON line per page, written and synced
    as soon as the page is read (a torn last line, from a kill, is ignored)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    def _path(self, content_hash: str) -> Path:
        return self.folder / f"{content_hash}.jsonl"

    def pages(self, content_hash: str) -> dict[int, OcrPage]:
        found: dict[int, OcrPage] = {}
        try:
            with open(self._path(content_hash), encoding="utf-8") as f:
                for line in f:
                    try:
                        rec = json.loads(line)
                        found[int(rec["page"])] = OcrPage(str(rec["text"]), float(rec["confidence"]))
                    except (ValueError, KeyError, TypeError):
                        continue
        except OSError:
            pass
        return found

    def add(self, content_hash: str, page: int, result: OcrPage) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with open(self._path(content_hash), "a", encoding="utf-8") as f:
                f.write(json.dumps({"page": page, "text": result.text, "confidence": result.confidence}, ensure_ascii=False) + "\n")
                f.flush()
                os.fsync(f.fileno())
        except OSError:  # a cache that cannot be written costs time on a re-run, nothing else
            pass

    def forget(self, content_hash: str) -> None:
        self._path(content_hash).unlink(missing_ok=True)


@dataclass
class OcrRead:
    pages: dict[int, OcrPage]  # page index (0-based) -> its text
    fresh: int  # pages read by OCR in this run (the others came from the cache)

    def meta(self, text_layer: bool) -> dict:
        """How the document was read: "OCR" or "text layer + OCR", pages OCR'd, mean confidence."""
        weights = {i: max(1, len(p.text)) for i, p in self.pages.items()}
        mean = sum(weights[i] * p.confidence for i, p in self.pages.items()) / max(1, sum(weights.values()))
        return {"reading": "text layer + OCR" if text_layer else "OCR", "ocr_pages": len(self.pages),
                "ocr_pages_read": self.fresh, "ocr_confidence": round(mean, 3), "ocr_engine": engine_name()}


def ocr_pages(indices: list[int], render, name: str, ctx: ReadContext) -> OcrRead:
    """OCR the pages ``indices`` (``render(i)`` gives page i's picture), each page's result kept in
    the cache as soon as it is read; pages the cache holds are not read again. Progress per page,
    cancel between pages."""
    cached = ctx.cache.pages(ctx.content_hash) if ctx.cache is not None and ctx.content_hash else {}
    engine, fresh, out = None, 0, {}
    for n, i in enumerate(indices):
        ctx.progress("ocr", n, len(indices))
        ctx.cancel.check()
        if i in cached:
            out[i] = cached[i]
            continue
        if engine is None:
            if ctx.ocr is None:
                    raise IngestError(f"{name}: a scan or picture, and no OCR engine here ({prepare_hint('the OCR models')})")
            engine = ctx.ocr()
        out[i] = engine.read(render(i))
        fresh += 1
        if ctx.cache is not None and ctx.content_hash:
            ctx.cache.add(ctx.content_hash, i, out[i])
    ctx.progress("ocr", len(indices), len(indices))
    return OcrRead(out, fresh)


def open_image(data: bytes, name: str) -> Any:
    """The image in ``data`` (PIL, lazily decoded), refused with one line beyond MAX_PIXELS."""
    import io

    from PIL import Image

    Image.MAX_IMAGE_PIXELS = None  # our own limit below, with a reason a person can read
    try:
        image = Image.open(io.BytesIO(data))
    except Exception as exc:  # noqa: BLE001 - PIL raises many kinds for a bad file
        raise IngestError(f"{name}: cannot read image ({type(exc).__name__}: not a picture PIL can decode)") from None
    width, height = image.size
    if width * height > MAX_PIXELS:
        raise IngestError(f"{name}: image too large to read by OCR ({width:,} × {height:,} pixels; "
                          f"the limit is {MAX_PIXELS // 1_000_000} million: a decompression bomb?)")
    return image


def image_frames(image: Any) -> int:
    return max(1, int(getattr(image, "n_frames", 1) or 1))


def frame(image: Any, index: int, name: str) -> Any:
    """Frame ``index`` (a page of a multi-page TIFF), upright (EXIF orientation), decoded."""
    from PIL import ImageOps

    try:
        image.seek(index)
        w, h = image.size
        if w * h > MAX_PIXELS:
            raise IngestError(f"{name}: page {index + 1} is too large to read by OCR ({w:,} × {h:,} pixels)")
        return ImageOps.exif_transpose(image.copy())
    except IngestError:
        raise
    except Exception as exc:  # noqa: BLE001 - truncated or damaged image data
        raise IngestError(f"{name}: cannot read image ({type(exc).__name__}: damaged or truncated)") from None


def render_pdf_page(page: Any) -> Any:
    """A pypdfium2 page -> a PIL image at RENDER_DPI (smaller for a huge page)."""
    width, height = page.get_size()  # points
    scale = RENDER_DPI / 72
    if width * height * scale * scale > MAX_RENDER_PIXELS:
        scale = (MAX_RENDER_PIXELS / max(1.0, width * height)) ** 0.5
    return page.render(scale=scale, grayscale=True).to_pil()


def engine_name() -> Optional[str]:
    """The OCR engine's name and version, for a document's record of how it was read."""
    try:
        from importlib.metadata import version

        return f"rapidocr {version('rapidocr')}"
    except Exception:  # noqa: BLE001
        return None
