"""Yes/no scores kept by question id (docs/eval/reader/*.jsonl) against the benchmark's golds:
AUC of the evidence's effect (with evidence − prior), of the raw score with evidence and of the
prior alone (the wording), per question type, and accuracy at a few margins.

    .venv/bin/python scripts/yes_no_auc.py ../shared/bench/multihop-rag-dev docs/eval/reader/*.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from k2desk.eval.datasets import load_bench
from k2desk.eval.metrics import auc, gold_polarity


def claim_rows(row: dict) -> list[dict]:
    return row.get("claims") or ([{"with_evidence": row["with_evidence"], "prior": row["prior"]}] if "prior" in row else [])


def main(bench_dir: str, files: list[str]) -> None:
    gold = {q.id: gold_polarity(q.answer) for q in load_bench(bench_dir).questions}
    for name in files:
        rows = [json.loads(line) for line in Path(name).read_text(encoding="utf-8").splitlines() if line.strip()]
        rows = [r for r in rows if claim_rows(r) and gold.get(r["id"])]
        print(f"{Path(name).name}: {len(rows)} yes/no questions")
        scores = {
            "evidence - prior (mean)": lambda cs: sum(c["with_evidence"] - c["prior"] for c in cs) / len(cs),
            "evidence - prior (min)": lambda cs: min(c["with_evidence"] - c["prior"] for c in cs),
            "with evidence (mean)": lambda cs: sum(c["with_evidence"] for c in cs) / len(cs),
            "prior only (mean)": lambda cs: sum(c["prior"] for c in cs) / len(cs),
        }
        for qtype in sorted({r["type"] for r in rows}) + ["all"]:
            group = [r for r in rows if qtype in ("all", r["type"])]
            cells = []
            for label, score in scores.items():
                pos = [score(claim_rows(r)) for r in group if gold[r["id"]] == "yes"]
                neg = [score(claim_rows(r)) for r in group if gold[r["id"]] == "no"]
                cells.append(f"{label} {auc(pos, neg):.3f}")
            print(f"  {qtype:17s} n={len(group):3d} AUC: " + ", ".join(cells))
        mean = scores["evidence - prior (mean)"]
        for margin in (0.0, 1.0, 1.5, 1.75, 2.0):
            said = [mean(claim_rows(r)) > margin for r in rows]
            right = sum(s == (gold[r["id"]] == "yes") for s, r in zip(said, rows))
            print(f"  margin {margin:4.2f}: accuracy {right / len(rows):.3f}, says yes {sum(said) / len(rows):.2f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
