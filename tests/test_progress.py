"""LineProgress: the progress a log or a pipe gets (throttled lines with an ETA)."""

import io

from k2desk.progress import LineProgress


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_lines_are_throttled_and_carry_an_eta():
    out, clock = io.StringIO(), Clock()
    p = LineProgress(out, interval=30, clock=clock)
    p("ask", 0, 10)  # first line of a stage: always
    clock.now += 10
    p("ask", 1, 10)  # 10 s later: throttled
    clock.now += 20
    p("ask", 2, 10)  # 30 s after the last line: 2 done in 30 s -> 8 left ~ 120 s
    clock.now += 5
    p("ask", 10, 10)  # the last one: always
    p("ask", 10, 10)  # and only once
    assert out.getvalue().splitlines() == [
        "ask: 0/10 (0 %), 0:00:00 elapsed",
        "ask: 2/10 (20 %), 0:00:30 elapsed, ETA 0:02:00",
        "ask: 10/10 (100 %), 0:00:35 elapsed",
    ]


def test_stages_are_independent_and_unknown_totals_print_counts():
    out, clock = io.StringIO(), Clock()
    p = LineProgress(out, interval=30, clock=clock)
    p("index: text", 0, 4)
    p("index: summary", 1, 0)
    clock.now += 3600
    p("index: text", 4, 4)
    assert out.getvalue().splitlines() == [
        "index: text: 0/4 (0 %), 0:00:00 elapsed",
        "index: summary: 1, 0:00:00 elapsed",
        "index: text: 4/4 (100 %), 1:00:00 elapsed",
    ]
