"""The GGUF models a person already has: the ones Ollama, LM Studio, GPT4All and Jan downloaded,
and any folder the person adds (Settings.model_folders), each with what its GGUF header says.

Nothing is copied or written, and no weight is read: llama.cpp reads a file's header and
vocabulary (llama_info.gguf_facts, 0.3-0.8 s a file here), and its size is taken. A file that
cannot be read, is no GGUF, or is shorter than its tensors (a download that stopped) is listed
as broken, with why. ``fits`` says whether a model fits this machine's memory before it loads.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable, Optional

from k2desk.runtime.models import is_gguf

OLLAMA_MODEL = "application/vnd.ollama.image.model"
OVERHEAD = 512 << 20  # what a loaded model needs beyond its weights and KV cache (compute buffers, runtime)


@dataclass
class Found:
    """One GGUF on the machine: where, whose folder, and what its header says ("" where it does not)."""

    path: str
    app: str  # "Ollama", "LM Studio", "GPT4All", "Jan", "folder"
    name: str  # the app's name for it (Ollama's "qwen2.5:7b"), else the header's, else the file's
    size: int = 0
    architecture: str = ""
    model_name: str = ""  # general.name
    parameters: int = 0
    size_label: str = ""  # general.size_label ("7B")
    quantization: str = ""
    context_length: int = 0
    chat_template: bool = False
    tensor_bytes: int = 0  # the weights' bytes
    kv_bytes_per_token: int = 0
    broken: str = ""  # why it cannot be used ("" when it can)

    @property
    def usable(self) -> bool:
        return not self.broken

    def params_text(self) -> str:
        """"7.6B", "494M", or the header's size label."""
        if self.parameters >= 1e9:
            return f"{self.parameters / 1e9:.1f}B"
        if self.parameters:
            return f"{self.parameters / 1e6:.0f}M"
        return self.size_label

    def memory_needed(self, n_ctx: int) -> int:
        """Bytes a load with ``n_ctx`` tokens of context needs: weights, KV cache, overhead."""
        return (self.tensor_bytes or self.size) + self.kv_bytes_per_token * n_ctx + OVERHEAD

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "usable": self.usable}


def describe(path: Path, app: str = "folder", name: str = "") -> Found:
    """What a GGUF file is, from its header and size; a broken one says why (never raises)."""
    from k2desk.runtime.llama_info import gguf_facts

    found = Found(str(path), app, name or path.stem)
    try:
        found.size = path.stat().st_size
        with open(path, "rb"):
            pass
    except OSError as exc:
        found.broken = f"cannot read it: {exc.strerror or exc}"
        return found
    if not is_gguf(path):
        found.broken = "not a GGUF file (no GGUF header)"
        return found
    try:
        facts = gguf_facts(path)
    except (ValueError, OSError):
        found.broken = "damaged or partial: llama.cpp cannot read its header (a download that stopped?)"
        return found
    found.architecture, found.model_name = facts["architecture"], facts["name"] or ""
    found.parameters, found.size_label = facts["parameters"], facts["size_label"] or ""
    found.quantization, found.context_length = facts["quantization"], facts["context"] or 0
    found.chat_template, found.tensor_bytes = facts["chat_template"], facts["tensor_bytes"]
    found.kv_bytes_per_token = facts["kv_bytes_per_token"]
    if not name and found.model_name:
        found.name = found.model_name
    if found.size < found.tensor_bytes:
        found.broken = f"partial: {found.size:,} bytes, its tensors alone take {found.tensor_bytes:,}"
    return found


def fits(found: Found, n_ctx: int, available: int, gpu_free: int = 0) -> str:
    """Why ``found`` does not fit ``available`` bytes of memory (and ``gpu_free`` on a GPU that
    takes its layers), "" when it does: one line a person reads before anything loads."""
    need = found.memory_needed(n_ctx)
    have = available + gpu_free
    if need <= have:
        return ""
    gib = 1 << 30
    where = f"{available / gib:.1f} GiB of memory" + (f" and {gpu_free / gib:.1f} GiB on the GPU" if gpu_free else "")
    return (f"{found.name} needs about {need / gib:.1f} GiB ({(found.tensor_bytes or found.size) / gib:.1f} GiB of "
            f"weights, {found.kv_bytes_per_token * n_ctx / gib:.1f} GiB for {n_ctx:,} tokens of context); "
            f"{where} {'is' if not gpu_free else 'are'} free: choose a smaller model or quantization")


# -- where the apps keep their models ----------------------------------------------------------
def ollama_dirs(home: Path) -> list[Path]:
    env = os.environ.get("OLLAMA_MODELS")
    return ([Path(env).expanduser()] if env else []) + [home / ".ollama" / "models", Path("/usr/share/ollama/.ollama/models")]


def app_dirs(home: Path) -> dict[str, list[Path]]:
    """The folders where LM Studio, GPT4All and Jan keep GGUF files (Linux, macOS and Windows)."""
    data = [home / ".local" / "share", home / "Library" / "Application Support", home / "AppData" / "Local",
            home / "AppData" / "Roaming"]
    return {"LM Studio": [home / ".lmstudio" / "models", home / ".cache" / "lm-studio" / "models"],
            "GPT4All": [d / "nomic.ai" / "GPT4All" for d in data],
            "Jan": [home / "jan" / "models"] + [d / "Jan" / "data" / sub for d in data for sub in ("models", "llamacpp/models")]}


def ollama_models(root: Path) -> list[tuple[Path, str, str]]:
    """Ollama's models as (blob, name, why broken): each manifest (manifests/<registry>/<namespace>/
    <model>/<tag>) names its weights' blob by digest (blobs/sha256-<hex>)."""
    out = []
    manifests = root / "manifests"
    for manifest in sorted(p for p in manifests.rglob("*") if p.is_file()) if manifests.is_dir() else []:
        parts = manifest.relative_to(manifests).parts
        if len(parts) < 2:
            continue
        name = f"{parts[-2]}:{parts[-1]}" if len(parts) < 4 or parts[-3] == "library" else f"{parts[-3]}/{parts[-2]}:{parts[-1]}"
        try:
            layers = json.loads(manifest.read_text(encoding="utf-8")).get("layers") or []
        except (OSError, ValueError, AttributeError) as exc:
            out.append((manifest, name, f"unreadable manifest: {exc}"))
            continue
        digest = next((str(layer.get("digest") or "") for layer in layers
                       if isinstance(layer, dict) and layer.get("mediaType") == OLLAMA_MODEL), "")
        if not digest.startswith("sha256:"):
            continue  # a manifest with no weights (a projector, an adapter alone)
        blob = root / "blobs" / digest.replace(":", "-", 1)
        out.append((blob, name, "" if blob.is_file() else "its manifest names a blob that is not there"))
    return out


def _ggufs(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.rglob("*.gguf") if p.is_file() and "mmproj" not in p.name.lower())
    except OSError:
        return []


@dataclass
class Candidate:
    """A model file an app keeps, before its header is read."""

    path: Path
    app: str
    name: str = ""  # the app's own name for it ("" where the app has none: the file's is used)
    broken: str = ""

    def matches(self, wanted: str) -> bool:
        wanted = wanted.strip().lower()
        return wanted in {self.name.lower(), self.path.name.lower(), self.path.stem.lower()} - {""}


def candidates(folders: Iterable[Path] = (), home: Optional[Path] = None) -> list[Candidate]:
    """Every GGUF model of the apps' folders under ``home`` (default: the person's) and of
    ``folders``, each file once (the first app that names it); no header is read."""
    home = Path(home) if home is not None else Path.home()
    found: list[Candidate] = []
    for root in ollama_dirs(home):
        found += [Candidate(p, "Ollama", name, why) for p, name, why in ollama_models(root)] if root.is_dir() else []
    for app, roots in app_dirs(home).items():
        for root in roots:
            found += [Candidate(p, app) for p in _ggufs(root)] if root.is_dir() else []
    for folder in (Path(f).expanduser() for f in folders):
        found += [Candidate(p, "folder") for p in _ggufs(folder)] if folder.is_dir() else \
            [Candidate(folder, "folder")] if folder.is_file() else []
    seen: set[str] = set()
    unique = []
    for c in found:
        key = os.path.realpath(c.path)
        if key not in seen:
            seen.add(key)
            unique.append(c)
    return unique


def examine(c: Candidate) -> Found:
    return Found(str(c.path), c.app, c.name or c.path.stem, broken=c.broken) if c.broken else describe(c.path, c.app, c.name)


def discover(folders: Iterable[Path] = (), home: Optional[Path] = None) -> list[Found]:
    """``candidates``, each with what its header says."""
    return [examine(c) for c in candidates(folders, home)]


def find(name: str, folders: Iterable[Path] = (), home: Optional[Path] = None) -> Optional[Found]:
    """The model a person names by its app's name ("qwen2.5:7b") or its file's name; None if none."""
    match = next((c for c in candidates(folders, home) if c.matches(name)), None)
    return examine(match) if match is not None else None


def check_memory(path: Path, n_ctx: int, gpu_layers: int = -1) -> None:
    """Refuse, in one line (ModelError), a model that does not fit the memory free now (and the
    free memory of the GPUs that would take its layers), before it is loaded."""
    import psutil

    from k2desk.errors import ModelError
    from k2desk.runtime import llama_info

    found = describe(path)
    if found.broken:
        raise ModelError(f"cannot load {path.name}: {found.broken}")
    gpu_free = sum(d.memory_free for d in llama_info.devices() if d.kind in llama_info.GPU_KINDS) if gpu_layers else 0
    why = fits(found, n_ctx, psutil.virtual_memory().available, gpu_free)
    if why:
        raise ModelError(why)


def resolve_llm(settings: Any, name: str) -> str:
    """``name`` as a person gives it (--llm, `models use`): a manifest name or a file's path as it
    is; a model another app keeps, by its name there ("qwen2.5:7b") or its file's, as its path
    (ModelError when that file is broken); any other name as it is, for the store's own error."""
    from k2desk.errors import ModelError
    from k2desk.runtime.models import ModelStore

    store = ModelStore(settings.models_dir)
    if name in {e.name for e in store.entries} or Path(name).expanduser().is_file() or (store.models_dir / name).is_file():
        return name
    found = find(name, settings.model_folders)
    if found is None:
        return name
    if found.broken:
        raise ModelError(f"{found.name} ({found.app}, {found.path}): {found.broken}")
    return found.path
