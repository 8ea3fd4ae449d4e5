"""Screenshot a bridge question answered hop by hop in the Ask tab: the hop fixture indexed with the
default settings and models, a question that read once is declined, read again one description at
a time ("Step by step (read once, it was declined):" under the question, the two hops, the sources
of both).

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/gui_hops_screenshot.py [--out docs/]

Writes screenshot-hops.png.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from gui_screenshot import grab, indexed_window, wait_until  # noqa: E402

QUESTION = "Who is the managing director of the company that acquired Brenholt Logistics?"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=ROOT / "docs")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    app, _, win = indexed_window(ROOT / "tests" / "fixtures" / "hops", "k2desk-hops-", args.threads)
    panel = win.ask_panel
    panel.question.setText(QUESTION)
    panel.request()
    wait_until(lambda: win.ask_job is None and win.last_answer is not None, 600_000)
    a = win.last_answer
    print(f"{QUESTION!r} -> {a.answer!r}; {a.steps()!r}")
    args.out.mkdir(parents=True, exist_ok=True)
    grab(win, args.out / "screenshot-hops.png")
    win.close()
    app.quit()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
