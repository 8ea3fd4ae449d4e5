"""Screenshot the models a person already has (issue 71): a home where LM Studio, Ollama and GPT4All
keep GGUF files (links to k2desk's own, and a download that stopped), Settings' model list open
with each one's header facts and, for a calibrated one, its result beside its name; then a
calibration running in the background, its progress and Cancel in the status bar.

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/gui_models_screenshot.py \\
        [--record CALIBRATION.json] [--out docs/]

``--record``: a calibration record (``k2desk models calibrate``'s) put in the home, so that its
model's result shows beside its name. Writes screenshot-models.png and screenshot-calibrating.png.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from gui_screenshot import grab, wait_until  # noqa: E402


def _link(src: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dest)
    except OSError:
        shutil.copyfile(src, dest)


def person_home(base: Path) -> Path:
    """LM Studio, Ollama and GPT4All folders as they keep them, around k2desk's own GGUF files."""
    models = ROOT / "models"
    small, tiny = models / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", models / "SmolLM2-135M-Instruct.Q4_1.gguf"
    _link(small, base / ".lmstudio" / "models" / "Qwen" / "Qwen2.5-Coder-0.5B-Instruct-GGUF" / small.name)
    digest = hashlib.sha256(tiny.read_bytes()).hexdigest()
    _link(tiny, base / ".ollama" / "models" / "blobs" / f"sha256-{digest}")
    tag = base / ".ollama" / "models" / "manifests" / "registry.ollama.ai" / "library" / "smollm2" / "135m"
    tag.parent.mkdir(parents=True)
    tag.write_text(json.dumps({"schemaVersion": 2, "layers": [
        {"mediaType": "application/vnd.ollama.image.model", "digest": f"sha256:{digest}", "size": tiny.stat().st_size}]}))
    stopped = base / ".local" / "share" / "nomic.ai" / "GPT4All" / "Meta-Llama-3-8B-Instruct.Q4_0.gguf"
    stopped.parent.mkdir(parents=True)
    stopped.write_bytes(small.read_bytes()[: 8 << 20])  # a download that stopped
    return base


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=ROOT / "docs")
    p.add_argument("--record", type=Path, help="a calibration record to put in the home")
    args = p.parse_args()
    base = Path(tempfile.mkdtemp(prefix="k2desk-models-"))
    os.environ["HOME"] = str(person_home(base / "person"))  # where the apps' folders are looked for
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from k2desk.config import Settings
    from k2desk.engine import Engine
    from k2desk.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv)
    settings = Settings(home=base / "home", models_dir=ROOT / "models", threads=2)
    if args.record:
        (settings.home / "calibrations").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(args.record, settings.home / "calibrations" / args.record.name)
    with Engine(settings, "default") as engine:
        engine.index([ROOT / "resources" / "sample"])
    win = MainWindow(settings)
    win.resize(1380, 860)
    win.show()
    dialog = win.open_settings()
    args.out.mkdir(parents=True, exist_ok=True)
    for i in range(dialog.model.count()):
        print(dialog.model.itemText(i))

    def shoot_list() -> None:
        grab(win, args.out / "screenshot-models.png")
        dialog.model.hidePopup()
        dialog.reject()

    QTimer.singleShot(300, dialog.model.showPopup)
    QTimer.singleShot(1500, shoot_list)
    wait_until(lambda: not dialog.isVisible(), 20_000)
    win.start_calibration("SmolLM2-135M-Instruct.Q4_1.gguf")
    wait_until(lambda: win.calibrating.maximum() == 161 and win.calibrating.value() >= 2, 900_000)
    grab(win, args.out / "screenshot-calibrating.png")
    print(f"status bar: {win.calibration.text()!r}, {win.calibrating.text()!r}")
    win.calibrate_cancel.click()
    wait_until(lambda: win.calibrate_job is None, 60_000)
    print(f"after Cancel: {win.statusBar().currentMessage()!r}")
    win.close()
    app.processEvents()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
