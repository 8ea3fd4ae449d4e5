"""One progress bar per indexing stage, with counts and an ETA."""

from __future__ import annotations

import time
from typing import Optional

from PySide6.QtWidgets import QGridLayout, QLabel, QProgressBar, QWidget

from k2desk.indexing import STAGE_TITLES

STAGE_ORDER = tuple(STAGE_TITLES)  # the engine's order


def format_seconds(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}:{seconds:02d}"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}"


class StageRow:
    def __init__(self, stage: str) -> None:
        self.stage = stage
        self.label = QLabel(STAGE_TITLES.get(stage, stage.capitalize()))
        self.bar = QProgressBar()
        self.bar.setRange(0, 1)
        self.bar.setValue(0)
        self.bar.setFormat("%v / %m")
        self.eta = QLabel("")
        self.eta.setMinimumWidth(150)
        self.started: Optional[float] = None  # first report of this run
        self.start_done = 0
        self.finished_at: Optional[float] = None

    def update(self, done: int, total: int, now: float) -> None:
        if self.started is None or done < self.start_done:
            self.started, self.start_done, self.finished_at = now, done, None
        total = max(total, 0)
        if total == 0:  # nothing to do in this stage: it is complete
            self.bar.setRange(0, 1)
            self.bar.setValue(1)
            self.bar.setFormat("nothing to do")
        else:
            self.bar.setRange(0, total)
            self.bar.setValue(min(done, total))
            self.bar.setFormat("%v / %m  (%p %)")
        if total == 0 or done >= total:
            self.finished_at = self.finished_at or now
            self.eta.setText(f"done in {format_seconds(self.finished_at - self.started)}")
            return
        progressed = done - self.start_done
        elapsed = now - self.started
        if progressed <= 0 or elapsed < 0.2:
            self.eta.setText("estimating…")
        else:
            self.eta.setText(f"ETA {format_seconds(elapsed / progressed * (total - done))}")

    @property
    def percent(self) -> int:
        span = self.bar.maximum() - self.bar.minimum()
        return 100 if span <= 0 else round(100 * (self.bar.value() - self.bar.minimum()) / span)


class StageProgressPanel(QWidget):
    """Rows appear as the engine reports stages; ``update(stage, done, total)`` is the hook."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setColumnStretch(1, 1)
        self.rows: dict[str, StageRow] = {}
        self.state = QLabel("")
        self.grid.addWidget(self.state, 99, 0, 1, 3)

    def reset(self) -> None:
        for row in self.rows.values():
            for w in (row.label, row.bar, row.eta):
                self.grid.removeWidget(w)
                w.deleteLater()
        self.rows.clear()
        self.state.setText("")

    def _row(self, stage: str) -> StageRow:
        if stage not in self.rows:
            self.rows[stage] = StageRow(stage)
            order = {s: i for i, s in enumerate(STAGE_ORDER)}
            ranked = sorted(self.rows.values(), key=lambda r: (order.get(r.stage, len(order)), r.stage))
            for i, row in enumerate(ranked):  # keep the pipeline order whatever order stages appear in
                self.grid.addWidget(row.label, i, 0)
                self.grid.addWidget(row.bar, i, 1)
                self.grid.addWidget(row.eta, i, 2)
        return self.rows[stage]

    def update(self, stage: str, done: int, total: int) -> None:  # type: ignore[override]
        self._row(stage).update(done, total, time.monotonic())

    def set_state(self, text: str) -> None:
        self.state.setText(text)

    def percents(self) -> dict[str, int]:
        return {stage: row.percent for stage, row in self.rows.items()}
