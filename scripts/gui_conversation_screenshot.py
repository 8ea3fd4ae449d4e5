"""Screenshot the Ask tab as a conversation: the README's sample indexed with the default settings
and models, a question and two follow-ups asked in one conversation, then the app restarted and the
conversation reopened from the list.

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/gui_conversation_screenshot.py [--out docs/]

Writes screenshot-conversation.png (the third answer, the two turns before it above, "Understood
as" under the question) and screenshot-conversation-reopened.png (after the restart).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from gui_screenshot import grab, indexed_window, wait_until  # noqa: E402

TURNS = ("Who leads the Lindenfeld Solar Cooperative?", "And who is its treasurer?", "When was it founded?")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=ROOT / "docs")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    from k2desk.gui.main_window import MainWindow

    app, settings, win = indexed_window(ROOT / "resources" / "sample", "k2desk-conversation-", args.threads)
    panel = win.ask_panel
    for text in TURNS:
        panel.question.setText(text)
        panel.request()
        wait_until(lambda text=text: win.ask_job is None and win.last_answer is not None and panel.current is not None
                   and panel.current[0] == text, 600_000)
        a = win.last_answer
        print(f"{text!r} -> {a.answer!r}" + (f" (understood as {a.understood_as!r})" if a.understood_as else ""))
    args.out.mkdir(parents=True, exist_ok=True)
    grab(win, args.out / "screenshot-conversation.png")
    win.close()
    win = MainWindow(settings)  # a restart: the conversation is listed, and reopened
    win.resize(1380, 860)
    win.show()
    win.tabs.setCurrentWidget(win.ask_panel)
    win.open_thread(win.ask_panel.conversations.threads[0].id)
    grab(win, args.out / "screenshot-conversation-reopened.png")
    win.close()
    app.quit()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
