"""Screenshot the desktop app after it indexed a folder (by a simulated drop) and answered a question.

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/gui_screenshot.py [--llm NAME] [--out docs/]

Writes into --out: screenshot-documents.png (a watched folder indexed), screenshot.png (the Ask
tab after answering), screenshot-citation.png and screenshot-page.png (a PDF passage cited with its
page, and that page opened in the app), screenshot-compare.png (three methods side by side),
screenshot-history.png, screenshot-graph.png, and, asked about two selected documents alone,
screenshot-scope.png (a summary of them, with its sources) and screenshot-not-in-documents.png (a
question they do not answer: its closest passages). ``--only scope`` makes these two alone (no LLM
call: a summary is read from the corpus summaries, and that question is declined before the model).
Under Xvfb the picture is grabbed from the X screen; elsewhere from the widget.
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


def indexed_window(folder: Path, prefix: str, threads: int = 2):
    """(app, settings, window): ``folder`` indexed with the default settings and models into a new
    data folder, then the app's window shown on its Ask tab."""
    from PySide6.QtWidgets import QApplication

    from k2desk.config import Settings
    from k2desk.engine import Engine
    from k2desk.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv)
    home = Path(tempfile.mkdtemp(prefix=prefix)) / "home"
    settings = Settings(home=home, models_dir=ROOT / "models", threads=threads)
    with Engine(settings, "default") as engine:
        engine.index([folder])
    win = MainWindow(settings)
    win.resize(1380, 860)
    win.show()
    win.tabs.setCurrentWidget(win.ask_panel)
    return app, settings, win


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
    p.add_argument("--entity", default="Mirela Varga",
                   help="the entity whose neighbourhood (2 hops) the Graph screenshot shows")
    p.add_argument("--profile", default="default", help="index build profile (default: K²RAG's stores too)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", type=Path, default=ROOT / "docs")
    p.add_argument("--only", choices=("all", "scope"), default="all",
                   help="scope: only the two screenshots of questions asked about selected documents")
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
        for doc in (ROOT / "resources" / "sample").iterdir():
            shutil.copy(doc, folder / doc.name)
        (folder / "harbour-authority-report.pdf").write_bytes(harbour_report())
        (folder / "harwick-chronicle.md").write_text(CHRONICLE, encoding="utf-8")
        settings = Settings(home=Path(tmp) / "home", models_dir=ROOT / "models", llm=args.llm, threads=args.threads,
                            build_profile=args.profile)
        window = MainWindow(settings)
        window.move(0, 0)
        window.resize(1360, 860)
        window.show()
        window.collections.create("Harbour notes")
        window.watch_folder(str(folder))  # indexes it now, and again whenever a file changes
        beat = QTimer()
        beat.timeout.connect(lambda: print("progress", window.index_panel.progress.percents(), flush=True))
        beat.start(30_000)
        if not wait_until(lambda: window.index_job is None and not window.queue, 3_600_000):
            print("indexing did not finish", file=sys.stderr)
            window.close()  # cancels and joins the worker
            return 1
        beat.stop()
        args.out.mkdir(parents=True, exist_ok=True)

        def ask(question: str, method: str) -> bool:
            window.ask_panel.method.setCurrentIndex(window.ask_panel.method.findData(method))
            window.ask(question, method)
            if not wait_until(lambda: window.ask_job is None, 1_800_000) or window.last_answer is None:
                print(f"no answer: {window.ask_panel.answer.toPlainText()}", file=sys.stderr)
                return False
            print(f"{method}: {window.last_answer.answer!r}", flush=True)
            return True

        if args.only == "scope":
            ok = scope_shots(window, ask, args.method, args.out)
            window.close()
            return 0 if ok else 1
        grab(window, args.out / "screenshot-documents.png")
        if not ask(args.question, args.method):
            window.close()
            return 1
        trace = window.ask_panel.trace.tree
        for i in range(trace.topLevelItemCount()):  # show the first K²RAG step in the detail pane
            if trace.topLevelItem(i).text(0) != "Time taken":
                trace.setCurrentItem(trace.topLevelItem(i))
                break
        grab(window, args.out / "screenshot.png")
        entities = list(window.graph_view.graph.nodes)

        if ask(PAGE_QUESTION, args.method):  # a PDF passage: cited with its page, opened there
            sources = window.ask_panel.sources
            pages = [i for i, s in enumerate(sources.sources) if s.page]
            if pages:
                sources.list.setCurrentItem(sources.list.topLevelItem(pages[0]))
                grab(window, args.out / "screenshot-citation.png")
                sources.open_current()
                view = sources.page_view
                view.move(120, 0)
                view.resize(900, 860)
                grab(view, args.out / "screenshot-page.png")
                view.close()

        compare = window.compare_panel
        window.compare(COMPARE_QUESTION, compare.chosen())
        wait_until(lambda: window.ask_job is None, 1_800_000)
        print("compare:", compare.state.text(), flush=True)
        grab(window, args.out / "screenshot-compare.png")

        window.tabs.setCurrentWidget(window.history_panel)
        grab(window, args.out / "screenshot-history.png")

        graph = window.graph_view
        window.tabs.setCurrentWidget(graph)
        wait_until(lambda: False, 200)
        graph.refresh_sources()
        graph.source_box.setCurrentText("text")
        graph.search.setText(args.entity)
        graph.show_entities([args.entity], hops=2)
        if graph.graph.number_of_nodes() < 8 and entities:  # too few: the first answer's entities instead
            graph.show_entities(entities)
        grab(window, args.out / "screenshot-graph.png")
        ok = scope_shots(window, ask, args.method, args.out)
        window.close()
    return 0 if ok else 1


def scope_shots(window, ask, method: str, out: Path) -> bool:
    """Two documents selected in the list, "Ask about the selected documents", then a summary of
    them and a question they do not answer (screenshot-scope.png, screenshot-not-in-documents.png)."""
    window.tabs.setCurrentWidget(window.index_panel)
    table = window.index_panel.documents
    keys = {name: key for name, _label, _detail, key in table.rows()}
    table.select_keys([keys[name] for name in SCOPE_DOCUMENTS])
    window.index_panel.ask_about_button.click()  # -> the Ask tab, asking about those two alone
    print("scope:", window.ask_panel.scope_bar.label.text(), flush=True)
    if not ask(SCOPE_QUESTION, method):
        return False
    grab(window, out / "screenshot-scope.png")
    if not ask(NOT_IN_DOCUMENTS_QUESTION, method):
        return False
    window.ask_panel.sources.list.setCurrentItem(window.ask_panel.sources.list.topLevelItem(0))
    grab(window, out / "screenshot-not-in-documents.png")
    window.ask_panel.set_scope([])
    return True


CHRONICLE = """# Harwick chronicle: people of the harbour

Mirela Varga took over the Harwick Point Lighthouse from her uncle Tobiás Varga in 1998.
Petra Lindqvist, chair of the Harwick Harbour Authority, hired Aino Virtanen to repaint the lantern room.
Aino Virtanen learned her trade in Rookhaven from the painter Lars Holm.
The blacksmith Jonas Ekdahl forged the lighthouse's new railing in his workshop in Altmoor.
Keller Marine dredged Saltmere Bay for the Harwick Harbour Authority.
Mirela Varga plays on Thursdays at the Rookhaven Chess Club, whose captain is Desmond Achterberg.
Desmond Achterberg also skippers the Kessing River Ferry between Altmoor and Weyden.
Ruth Okonkwo, who owns the Kessing River Ferry, bought the Margarethe II from the Brenner shipyard.
Petra Lindqvist and Ruth Okonkwo agreed on a joint timetable for the ferry and the harbour buses in Weyden.
Tobiás Varga founded the Saltmere Bay Rowing Club with Lars Holm in 1971.
Brand & Sons of Rookhaven replaced the cracked panes of the Harwick Point Lighthouse.
Anneli Korhonen of Quillfeather Robotics showed the Kestrel-7 robot to the Harwick Harbour Authority.
"""
SCOPE_DOCUMENTS = ("observatory.html", "river-ferry.txt")
SCOPE_QUESTION = "Summarize these documents."
NOT_IN_DOCUMENTS_QUESTION = "Who painted the telescope dome of the observatory?"
PAGE_QUESTION = "Who repainted the lantern room of the Harwick Point lighthouse?"
COMPARE_QUESTION = "When was the Harwick Point lighthouse built?"
REPORT = [
    ["Harwick Harbour Authority - Annual Report 2023", "",
     "The Harwick Harbour Authority manages the harbour of Harwick, its two piers, the fish market",
     "and the Harwick Point lighthouse. The authority is governed by a board of seven members",
     "elected by the harbour users for four years. Its chair since 2021 is Petra Lindqvist.",
     "In 2023 the harbour handled 1,840 vessel calls, 6 percent more than in 2022, and the fish",
     "market sold 2,310 tonnes of fish, mostly cod, herring and mackerel from local boats.",
     "The ferry to Rookhaven ran 1,120 times and carried 96,000 passengers.", "",
     "The board met 11 times on harbour fees, dredging and the renewal of the north pier.",
     "Dredging of the inner basin to a depth of 4.5 metres was completed in May by Keller Marine.",
     "The north pier renewal is planned for 2025 and 2026 at an estimated cost of 3.4 million euros."],
    ["The Harwick Point lighthouse", "",
     "The lighthouse at the harbour entrance is owned by the authority and looked after by its",
     "keeper, Mirela Varga. The summer guided tours, which she leads on Saturdays, drew 4,200",
     "visitors in 2023, and the small museum in the former oil store was reopened in June.",
     "The tower was inspected in March after the winter storms: two windows of the lantern room",
     "were cracked and the gallery railing had rusted through in three places.", "",
     "Repairs were ordered in April. The railing was replaced by the blacksmith Jonas Ekdahl,",
     "and the cracked panes were replaced by the glazier firm Brand & Sons of Rookhaven."],
    ["Maintenance and works in 2023", "",
     "The lantern room of the Harwick Point lighthouse was repainted in August by the painter",
     "Aino Virtanen and her team of four, using a marine paint that should last twelve years.",
     "The fog signal was serviced in September; its compressor was replaced by the manufacturer.",
     "The north pier's lamps were changed to LED lamps, saving 9,000 kilowatt-hours a year.", "",
     "Budget: the authority spent 1.2 million euros on works in 2023, of which 310,000 euros",
     "went to the lighthouse (repairs, repainting and the new railing) and 640,000 euros to dredging."],
]


def harbour_report() -> bytes:
    """A three-page PDF whose answers sit on different pages (the page-citation screenshot)."""
    sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
    from make_fixtures import pdf_bytes

    return pdf_bytes(REPORT)


if __name__ == "__main__":
    raise SystemExit(main())
