"""Screenshot the desktop app after it indexed a folder (by a simulated drop) and answered a question.

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/gui_screenshot.py [--llm NAME] [--out docs/]

Writes screenshot.png (the Ask tab after answering), screenshot-documents.png (the Documents
tab) and, when the answer names entities, screenshot-graph.png into --out. Under Xvfb the picture is grabbed from the X screen; elsewhere from the widget.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def wait_until(predicate, timeout_ms: int) -> bool:
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    poll = QTimer()
    poll.timeout.connect(lambda: predicate() and loop.quit())
    poll.start(50)
    QTimer.singleShot(timeout_ms, loop.quit)
    loop.exec()
    poll.stop()
    return bool(predicate())


def grab(window, path: Path) -> None:
    from PySide6.QtGui import QGuiApplication

    window.raise_()
    wait_until(lambda: False, 400)  # let the window paint
    screen = QGuiApplication.primaryScreen()
    geo = window.frameGeometry()
    pixmap = screen.grabWindow(0, geo.x(), geo.y(), geo.width(), geo.height()) if screen else None
    if pixmap is None or pixmap.isNull() or pixmap.toImage().pixelColor(geo.width() // 2, geo.height() // 2).value() < 10:
        pixmap = window.grab()  # offscreen platforms: render the widget itself
    pixmap.save(str(path))
    print(f"wrote {path} ({pixmap.width()}x{pixmap.height()})")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--llm", default="qwen2.5-coder-0.5b")
    p.add_argument("--folder", type=Path, default=ROOT / "tests" / "fixtures" / "mixed")
    p.add_argument("--question", default="How far is the Harwick Point lighthouse visible, and who keeps it?")
    p.add_argument("--method", default="k2rag")
    p.add_argument("--profile", default="default", help="index build profile (default: K²RAG's stores too)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", type=Path, default=ROOT / "docs")
    args = p.parse_args()

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from k2desk.config import Settings
    from k2desk.gui.main_window import MainWindow

    app = QApplication(sys.argv[:1])
    app.setApplicationName("k2desk")
    with tempfile.TemporaryDirectory(prefix="k2desk-shot-") as tmp:
        folder = Path(tmp) / "My documents"
        shutil.copytree(args.folder, folder)
        settings = Settings(home=Path(tmp) / "home", models_dir=ROOT / "models", llm=args.llm, threads=args.threads,
                            build_profile=args.profile)
        window = MainWindow(settings)
        window.move(0, 0)
        window.resize(1360, 860)
        window.show()
        window.collections.create("Harbour notes")
        window.index_paths([str(folder)])
        beat = QTimer()
        beat.timeout.connect(lambda: print("progress", window.index_panel.progress.percents(), flush=True))
        beat.start(30_000)
        if not wait_until(lambda: window.index_job is None, 3_600_000):
            print("indexing did not finish", file=sys.stderr)
            window.close()  # cancels and joins the worker
            return 1
        beat.stop()
        args.out.mkdir(parents=True, exist_ok=True)
        grab(window, args.out / "screenshot-documents.png")
        window.ask_panel.method.setCurrentIndex(window.ask_panel.method.findData(args.method))
        window.ask(args.question, args.method)
        if not wait_until(lambda: window.ask_job is None, 1_800_000) or window.last_answer is None:
            print(f"no answer: {window.ask_panel.answer.toPlainText()}", file=sys.stderr)
            window.close()
            return 1
        print(f"answer: {window.last_answer.answer!r}")
        trace = window.ask_panel.trace.tree
        for i in range(trace.topLevelItemCount()):  # show the first K²RAG step in the detail pane
            if trace.topLevelItem(i).text(0) != "Time taken":
                trace.setCurrentItem(trace.topLevelItem(i))
                break
        grab(window, args.out / "screenshot.png")
        if window.graph_view.graph.number_of_nodes():
            window.tabs.setCurrentWidget(window.graph_view)
            grab(window, args.out / "screenshot-graph.png")
        window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
