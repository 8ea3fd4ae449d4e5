"""Screenshot the app serving its collection (issue 57): the README's sample indexed with the
default settings and models, File → "Serve this collection on this computer" switched on, one chat
completion asked from outside through the official client, the File menu open over the window and
the status bar naming the address and the request served.

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/gui_serve_screenshot.py [--out docs/]

Writes screenshot-serve.png.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from gui_screenshot import grab, wait_until  # noqa: E402

QUESTION = "Who leads the Lindenfeld Solar Cooperative?"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=ROOT / "docs")
    args = p.parse_args()
    from openai import OpenAI
    from PySide6.QtCore import QPoint, QTimer
    from PySide6.QtWidgets import QApplication

    from k2desk.config import Settings
    from k2desk.engine import Engine
    from k2desk.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv)
    home = Path(tempfile.mkdtemp(prefix="k2desk-serve-")) / "home"
    settings = Settings(home=home, models_dir=ROOT / "models", threads=2)
    with Engine(settings, "default") as engine:
        engine.index([ROOT / "resources" / "sample"])
    win = MainWindow(settings)
    win.resize(1380, 860)
    win.show()
    switch = win.serve_switch
    switch.action.setChecked(True)
    wait_until(lambda: switch.server is not None and switch.server.started, 30_000)
    replies: list = []
    client = OpenAI(base_url=switch.server.options.base_url, api_key="none", max_retries=0)
    threading.Thread(target=lambda: replies.append(client.chat.completions.create(
        model="default", messages=[{"role": "user", "content": QUESTION}])), daemon=True).start()
    wait_until(lambda: bool(replies) and "1 request served" in switch.label.text(), 600_000)
    print(f"{QUESTION!r} -> {replies[0].choices[0].message.content!r}")
    print(f"status bar: {switch.label.text()!r}")
    menu = win.menuBar().actions()[0].menu()
    args.out.mkdir(parents=True, exist_ok=True)

    def shoot() -> None:  # while the menu is open
        grab(win, args.out / "screenshot-serve.png")
        menu.close()

    QTimer.singleShot(800, shoot)
    menu.exec(win.mapToGlobal(QPoint(8, win.menuBar().height())))
    win.close()
    app.processEvents()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
