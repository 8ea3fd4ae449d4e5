"""“How this answer was found”: the answer's trace as a tree (K²RAG steps first) and the time taken."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHeaderView, QLabel, QPlainTextEdit, QSplitter, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from k2desk.gui.widgets.documents import scope_names
from k2desk.types import Answer

KNOWN = {  # K²RAG's steps, in the order they happen, with readable titles; other keys follow as they are
    "conversation": "The message, read against the conversation",
    "read_once": "Read once first (an answer that did not fit)",
    "hops": "Hop by hop (each description found first, then the question)",
    "hops_tried": "Hop by hop, tried (declined; the first reading stands)",
    "scope": "Documents asked about",
    "keywords": "Question keywords",
    "kg_results": "Knowledge-graph results",
    "kg_summary": "Summary of the knowledge-graph results",
    "sub_questions": "Sub-questions",
    "sub_answers_summary": "Summary of the sub-answers",
    "final_context": "Final context given to the LLM",
    "entities": "Matched entities",
    "relations": "Matched relations",
    "neighbours": "Neighbouring entities",
    "retrieval": "Retrieval",
    "context": "Context given to the LLM",
    "reader": "Reader (the answer's form)",
}
PREVIEW = 160


def preview(value: Any) -> str:
    if isinstance(value, dict):
        return f"{{{len(value)} fields}}"
    if isinstance(value, (list, tuple)):
        return f"[{len(value)} items]"
    if isinstance(value, float):
        return f"{value:.4g}"
    text = " ".join(str(value).split())
    return text if len(text) <= PREVIEW else text[: PREVIEW - 1] + "…"


def full_text(value: Any) -> str:
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    return str(value)


class TracePanel(QWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.header = QLabel("Ask a question to see how its answer was found.")
        self.header.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Step", "Value"])
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.tree.setColumnWidth(0, 220)
        self.tree.currentItemChanged.connect(self._show)
        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        self.detail.setFont(QFont("monospace", 9))
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.tree)
        split.addWidget(self.detail)
        split.setSizes([260, 120])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.header)
        layout.addWidget(split)

    def clear(self) -> None:
        self.tree.clear()
        self.detail.clear()

    def set_answer(self, answer: Answer) -> None:
        self.clear()
        total = answer.timings.get("total", answer.timings.get("wall", 0.0))
        llm = answer.llm
        self.header.setText(f"<b>{answer.method}</b> · {total:.2f} s · {llm.calls} LLM call{'s' if llm.calls != 1 else ''}"
                            f" · {llm.prompt_tokens} prompt + {llm.completion_tokens} generated tokens"
                            f" · {len(answer.sources)} sources")
        timing = self._add(None, "Time taken", {k: f"{v:.3f} s" for k, v in answer.timings.items()})
        timing.setText(1, f"{total:.2f} s")
        verdict = answer.verdict  # answered, cautioned or declined, why, and whose thresholds decided it
        self._add(None, "Verdict (k2desk.verdict)", verdict.to_json()).setText(
            1, verdict.outcome + (f": {verdict.reason}" if verdict.reason else "")
            + (f" (calibration: {verdict.calibration})" if verdict.calibration else ""))
        trace = answer.trace or {}
        ordered = [k for k in KNOWN if k in trace] + [k for k in trace if k not in KNOWN]
        for key in ordered:
            if key == "sub_questions" and isinstance(trace[key], list):
                self._sub_questions(trace[key])
            elif key == "scope" and isinstance(trace[key], dict) and isinstance(trace[key].get("documents"), list):
                documents = trace[key]["documents"]  # the documents by name, each key below
                self._add(None, KNOWN[key], documents).setText(1, scope_names(documents))
            else:
                self._add(None, KNOWN.get(key, key), trace[key])
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            item.setExpanded(item.childCount() <= 12 and i < 4)

    def _sub_questions(self, subs: list) -> None:
        parent = self._add(None, KNOWN["sub_questions"], subs, children=False)
        for i, sub in enumerate(subs, 1):
            if not isinstance(sub, dict):
                self._add(parent, f"Q{i}", sub)
                continue
            item = self._add(parent, f"Q{i}", sub, children=False)
            item.setText(1, preview(sub.get("question", "")))
            for key in ("answer", "summary", "sources"):
                if key in sub:
                    self._add(item, key.capitalize(), sub[key])
            for key in sub:
                if key not in ("question", "answer", "summary", "sources"):
                    self._add(item, key, sub[key])
            item.setExpanded(True)
        parent.setExpanded(True)

    def _add(self, parent, name: str, value: Any, children: bool = True) -> QTreeWidgetItem:
        item = QTreeWidgetItem([str(name), preview(value)])
        item.setData(0, Qt.ItemDataRole.UserRole, full_text(value))
        item.setToolTip(1, full_text(value)[:2000])
        if parent is None:
            self.tree.addTopLevelItem(item)
        else:
            parent.addChild(item)
        if children and isinstance(value, dict):
            for k, v in value.items():
                self._add(item, str(k), v)
        elif children and isinstance(value, (list, tuple)) and len(value) <= 200:
            for i, v in enumerate(value, 1):
                label = v.get("question") or v.get("name") or v.get("document") if isinstance(v, dict) else None
                self._add(item, f"{i}" + (f". {preview(label)[:40]}" if label else ""), v)
        return item

    def _show(self, item, _previous=None) -> None:
        self.detail.setPlainText(item.data(0, Qt.ItemDataRole.UserRole) if item is not None else "")

    def is_empty(self) -> bool:
        return self.tree.topLevelItemCount() == 0

    def titles(self) -> list[str]:
        return [self.tree.topLevelItem(i).text(0) for i in range(self.tree.topLevelItemCount())]
