"""llama.cpp's CPU backend chosen at run time, for the CPU it runs on.

A build with ``GGML_BACKEND_DL=ON`` + ``GGML_CPU_ALL_VARIANTS=ON`` (scripts/setup.sh) ships one
``libggml-cpu-<level>`` library per x86 level (x64, sse42, haswell, skylakex, icelake, zen4,
sapphirerapids, ...) and loads none by itself; llama-cpp-python does not ask it to. Each library
scores itself against the CPU (``ggml_backend_score``: 0 = unsupported). ggml's own choice is the
top score, but a CPU's flags can promise more than a virtual machine delivers: on this project's
Xeon VMs the sapphirerapids (AMX) level dies with SIGILL at the first matrix product. So the
levels are tried best first in a forked child that loads the model and evaluates a few tokens;
the first that survives is loaded, and the choice is cached per machine and build (a file in the
user cache folder keyed by the CPU flags and the variant set). Where ``fork`` does not exist, or
CUDA was initialized in this process first (a forked child cannot use it), the top score is
loaded untried. When no level survives (or none is built for this CPU), ``load_cpu_backend``
raises ModelError with one line instead of loading the model anyway: a model load on a level
that died in the probe would kill the app or the CLI without a word.

A build with one CPU backend built in (the CUDA build's shape, or a plain build) has nothing to
choose; it was compiled for the instruction sets its ``llama_print_system_info`` lists, and a CPU
that lacks one of them (``/proc/cpuinfo``) gets the same one line before any model is loaded.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Optional

from k2desk.errors import ModelError
from k2desk.runtime import llama_import
from k2desk.runtime.llama_import import quiet_stderr

PROBE_TOKENS = 8
_lock = threading.Lock()
_loaded: Optional[str] = None
_cuda_started = False  # CUDA initialized in this process: a forked child could not use it


def backend_folders() -> tuple[Path, ...]:
    """Where a build's run-time loaded backends (CPU levels, CUDA) lie (``llama_import``)."""
    return llama_import.backend_folders()


def variant_dir() -> Optional[Path]:
    """The folder holding the ``libggml-cpu-*`` variants, or None for a build with one CPU backend."""
    return next((folder for folder in backend_folders() if any(folder.glob("*ggml-cpu-*"))), None)


def ranked_variants(folder: Path) -> list[tuple[int, Path]]:
    """(score, path) of each variant this CPU supports by its flags, best first."""
    llama_import.import_llama()  # the levels link libggml-base, which llama.cpp's libraries bring in
    ranked = []
    for path in sorted(folder.glob("*ggml-cpu-*")):
        if path.is_symlink() or ".so." in path.name:
            continue
        try:
            lib = ctypes.CDLL(str(path))
            lib.ggml_backend_score.restype = ctypes.c_int
            score = int(lib.ggml_backend_score())
        except (OSError, AttributeError):
            continue
        if score > 0:
            ranked.append((score, path))
    return sorted(ranked, key=lambda item: -item[0])


def _libggml():
    llama_import.import_llama()  # loads libllama and, as it links it, libggml

    try:  # the copy libllama linked: a wheel holds copies, not links, so libggml.so is another one
        return ctypes.CDLL("libggml.so.0")
    except OSError:
        from llama_cpp._ggml import libggml

        return libggml


def _load(path: Path) -> bool:
    """Register the variant with the libggml libllama uses (ggml's "loaded CPU backend from" line
    kept quiet)."""
    lib = _libggml()
    lib.ggml_backend_load.argtypes, lib.ggml_backend_load.restype = [ctypes.c_char_p], ctypes.c_void_p
    with quiet_stderr():
        return bool(lib.ggml_backend_load(str(path).encode()))


def _survives(path: Path, model: Path) -> bool:
    """Whether the variant evaluates tokens of ``model`` (in a forked child: a SIGILL kills the child)."""
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 1
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 2)  # llama.cpp's load messages
            if _load(path):
                from llama_cpp import Llama

                llm = Llama(model_path=str(model), n_ctx=64, n_threads=1, n_threads_batch=1, verbose=False)
                llm.eval(llm.tokenize(b"The lighthouse keeper wrote in her logbook")[:PROBE_TOKENS])
                code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def note_cuda_started() -> None:
    """Called by runtime/cuda.py once CUDA runs in this process (a GPU answered)."""
    global _cuda_started
    _cuda_started = True


def _cache_file() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("k2desk", appauthor=False)) / "cpu-variant.json"


def _machine_key(ranked: list[tuple[int, Path]]) -> str:
    flags = ""
    try:
        flags = next((ln for ln in Path("/proc/cpuinfo").read_text().splitlines() if ln.startswith("flags")), "")
    except OSError:
        pass
    names = ",".join(f"{p.name}:{p.stat().st_size}" for _, p in ranked)
    return hashlib.sha256(f"{flags}|{names}".encode()).hexdigest()[:16]


def _cached_choice(ranked: list[tuple[int, Path]]) -> Optional[str]:
    """The variant file name cached for this machine and build, if one was chosen before."""
    try:
        chosen = json.loads(_cache_file().read_text()).get(_machine_key(ranked))
    except (OSError, ValueError, AttributeError):
        return None
    return chosen if chosen in {p.name for _, p in ranked} else None


def level_name(file_name: str) -> str:
    """The level a variant file holds: libggml-cpu-zen4.so -> zen4."""
    return file_name.removeprefix("lib").split(".")[0].removeprefix("ggml-cpu-")


def load_cached_backend() -> tuple[Optional[str], Optional[str]]:
    """Load the CPU backend without a model (``k2desk doctor``): (level loaded or None, what
    this CPU claims best). A level is loaded only when it was chosen before, by a first model
    load on this machine and build (trying one needs a model's weights); the same one
    ``load_cpu_backend`` would load, so a later model load finds it in place."""
    global _loaded
    with _lock:
        folder = variant_dir()
        if folder is None:
            _loaded = _loaded or "built in"
            return _loaded, None
        ranked = ranked_variants(folder)
        best = level_name(ranked[0][1].name) if ranked else None
        if _loaded is not None:
            return _loaded, best
        chosen = _cached_choice(ranked)
        if chosen is None or not _load(folder / chosen):
            return None, best
        _loaded = level_name(chosen)
        return _loaded, best


# llama_print_system_info's CPU features (what the build was compiled for) → the Linux CPU flag
FEATURE_FLAGS = {"SSE3": "pni", "SSSE3": "ssse3", "AVX": "avx", "AVX2": "avx2", "F16C": "f16c", "FMA": "fma",
                 "BMI2": "bmi2", "AVX_VNNI": "avx_vnni", "AVX512": "avx512f", "AVX512_VBMI": "avx512vbmi",
                 "AVX512_VNNI": "avx512_vnni", "AVX512_BF16": "avx512_bf16", "AMX_INT8": "amx_int8"}


def cpu_flags() -> Optional[set[str]]:
    """The CPU's flags from ``/proc/cpuinfo`` (None where there is none to read)."""
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return None
    line = next((ln for ln in text.splitlines() if ln.startswith("flags")), None)
    return set(line.split(":", 1)[1].split()) if line else None


def parse_system_info(text: str) -> dict[str, dict[str, str]]:
    """``llama_print_system_info`` as {backend: {feature: value}}, e.g. {"CPU": {"AVX2": "1", ...}}."""
    found: dict[str, dict[str, str]] = {}
    current: Optional[dict[str, str]] = None
    for part in (p.strip() for p in text.split("|")):
        if " : " in part:  # "CPU : SSE3 = 1": a backend's name opens its features
            name, part = (x.strip() for x in part.split(" : ", 1))
            current = found.setdefault(name, {})
        if current is not None and "=" in part:
            key, value = (x.strip() for x in part.split("=", 1))
            current[key] = value
    return found


def built_for(system_info: str) -> set[str]:
    """The CPU features a build was compiled for, from ``llama_print_system_info``
    ("CPU : SSE3 = 1 | AVX2 = 1 | …")."""
    return {key for key, value in parse_system_info(system_info).get("CPU", {}).items() if value == "1"}


def lacking(system_info: str, flags: Optional[set[str]]) -> list[str]:
    """The instruction sets a built-in CPU backend needs that this CPU lacks ([] when unknown)."""
    if flags is None:
        return []
    return sorted(f for f in built_for(system_info) if f in FEATURE_FLAGS and FEATURE_FLAGS[f] not in flags)


def _check_built_in() -> None:
    llama_cpp = llama_import.import_llama()
    with quiet_stderr():  # the first look at the backends: a built-in CUDA one says "failed to initialize" without a GPU
        info = (llama_cpp.llama_print_system_info() or b"").decode("utf-8", "replace")
    missing = lacking(info, cpu_flags())
    if missing:
        raise ModelError(f"this llama.cpp build's CPU code needs {', '.join(missing)}, which this CPU lacks; "
                         "build the CPU one with scripts/setup.sh (its levels go down to plain x86-64)")


def load_cpu_backend(model: Path) -> str:
    """Load the CPU backend once per process; returns what was loaded ("built in" for a plain build)."""
    global _loaded
    with _lock:
        if _loaded is not None:
            return _loaded
        folder = variant_dir()
        if folder is None:
            _check_built_in()  # a CPU that lacks what the build was compiled for: one line, no SIGILL
            _loaded = "built in"
            return _loaded
        ranked = ranked_variants(folder)
        key = _machine_key(ranked)
        cache = _cache_file()
        chosen = _cached_choice(ranked)
        paths = {p.name: p for _, p in ranked}
        if chosen is None:
            # a child forked after CUDA was initialized here cannot use it: the top level untried then
            # (and not cached: a later process tries it)
            forkable = hasattr(os, "fork") and not _cuda_started
            for _, path in ranked:
                if not forkable or _survives(path, model):
                    chosen = path.name
                    break
            if chosen is not None and forkable:
                try:
                    cache.parent.mkdir(parents=True, exist_ok=True)
                    cache.write_text(json.dumps({key: chosen}))
                except OSError:
                    pass
        if chosen is None or not _load(paths[chosen]):
            # loading the model anyway would take the process down (a segfault or SIGILL in a
            # level's code): one line instead, and no level is kept, so a rebuilt one is tried next time
            tried = ", ".join(level_name(p.name) for _, p in ranked)
            raise ModelError(
                f"no CPU level of llama.cpp in {folder} runs here "
                + (f"(each of {tried} died loading {model.name} in a probe)" if tried else "(none is built for this CPU)")
                + "; build it again with scripts/setup.sh (docs/gpu/README.md for a CUDA build)")
        _loaded = level_name(chosen)
        return _loaded
