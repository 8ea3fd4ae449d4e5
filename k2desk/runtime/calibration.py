"""Calibration records: the thresholds of one reading model (k2desk.verdict.Calibration) as a
small JSON file naming the model by name and sha256, the questions they were fitted on and when.

Records ship with k2desk (``calibrations/`` beside this module: the models it carries) and are
written by ``k2desk models calibrate`` into the home folder's ``calibrations/``; a record there
wins over a shipped one for the same model. A model is matched by its sha256 (the manifest's for
a model k2desk prepared; a person's own GGUF is hashed only when a record of its size exists, and
the hash is remembered by size and mtime). No record: the conservative defaults, and the caller
says so.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Optional

from k2desk.runtime.models import ModelStore, file_sha256
from k2desk.verdict import DEFAULTS, Calibration

SHIPPED = Path(__file__).resolve().parent / "calibrations"
VERSION = 1


def user_dir(home: Path) -> Path:
    """Where ``k2desk models calibrate`` writes the records it fits."""
    return Path(home) / "calibrations"


def stamp(home: Path) -> int:
    """Changes when a record is written to or removed from the home folder's calibrations."""
    try:
        return user_dir(home).stat().st_mtime_ns
    except OSError:
        return 0


def _records(folder: Path) -> list[tuple[dict[str, Any], Path]]:
    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a damaged record is no record: the defaults, said where they are used
        if isinstance(record, dict) and isinstance(record.get("model"), dict):
            out.append((record, path))
    return out


def read(path: Path) -> Calibration:
    """One record; ValueError with the reason when the file is not one."""
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the calibration {path}: {exc}") from exc
    return Calibration.from_record(record, str(path))


def find(model: Path, home: Optional[Path] = None, store: Optional[ModelStore] = None) -> Calibration:
    """The record fitted for the GGUF at ``model`` (the home folder's first, then the shipped
    ones); ``DEFAULTS`` when there is none."""
    candidates = (_records(user_dir(home)) if home is not None else []) + _records(SHIPPED)
    if not candidates:
        return DEFAULTS
    try:
        size = Path(model).stat().st_size
    except OSError:
        return DEFAULTS
    sized = [(r, p) for r, p in candidates if r["model"].get("size") in (None, size)]
    if not sized:
        return DEFAULTS
    sha = _known_sha256(Path(model), store) or file_sha256(Path(model))
    for record, path in sized:
        if record["model"].get("sha256") == sha:
            try:
                return Calibration.from_record(record, str(path))
            except ValueError:
                continue
    return DEFAULTS


def _known_sha256(model: Path, store: Optional[ModelStore]) -> str:
    """The manifest's sha256 of a model k2desk prepared ("" for another file)."""
    if store is None:
        return ""
    for entry in store.entries:
        if entry.role == "llm" and entry.sha256 and store.path_of(entry).resolve() == model.resolve():
            return entry.sha256
    return ""


def record(cal: Calibration, model_name: str, sha256: str, size: int, questions: str, report: dict[str, Any]) -> dict[str, Any]:
    """A record's JSON: the values, the model, the questions and the date, and what the fit
    reported on the half it did not fit on."""
    return {"version": VERSION,
            "model": {"name": model_name, "sha256": sha256, "size": size},
            "fitted_on": {"questions": questions, "date": time.strftime("%Y-%m-%d")},
            "values": cal.values(), "report": report}


def save(data: dict[str, Any], home: Path) -> Path:
    """Write a record into the home folder's calibrations (atomically), named by its model."""
    folder = user_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    name = "".join(c if c.isalnum() or c in "._-" else "-" for c in data["model"]["name"])[:80] or "model"
    path = folder / f"{name}-{data['model']['sha256'][:12]}.json"
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path
