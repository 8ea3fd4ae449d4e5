"""llama-cpp-python, imported so that a CUDA build finds the CUDA libraries it links.

A CUDA build (``K2DESK_CUDA=1 scripts/setup.sh``) links ``libggml-cuda.so``, which needs the
CUDA runtime and cuBLAS. From the registry's wheels (``nvidia-cuda-runtime``, ``nvidia-cublas``)
they lie in ``site-packages/nvidia/cu13/lib``, a folder the dynamic loader does not search. In
the shape setup builds, CUDA built into llama.cpp (docs/gpu/README.md), libllama needs them the
moment it loads, so ``import_llama()`` loads them first, by path and globally, and imports the
package after them. Where the package is found without importing it (``package_folder``), so a
CUDA build is known before any of its libraries is opened.

A CUDA build also shares the process with two other native stacks, and on an NVIDIA H200 the order
they load in decided whether it ran (docs/gpu/README.md, 2026-11-27): onnxruntime imported after
llama.cpp crashed in its import, and spaCy's BLAS (blis) loaded before llama.cpp made the model load
crash; onnxruntime, then llama.cpp, then spaCy ran. A CPU build runs in any order. So with a CUDA
build ``import_llama()`` imports onnxruntime first, and ``before_spacy()`` (called by whatever loads
spaCy) loads llama.cpp first.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import sys
import threading
from contextlib import contextmanager, nullcontext
from pathlib import Path
from types import ModuleType
from typing import Iterator, Optional

from k2desk.errors import ModelError

# the CUDA 13 runtime libraries libggml-cuda.so links, in the order they depend on each other
RUNTIME_LIBRARIES = ("libcudart.so.13", "libcublasLt.so.13", "libcublas.so.13")
_lock = threading.Lock()
_missing: Optional[list[str]] = None


@contextmanager
def quiet_stderr() -> Iterator[None]:
    """llama.cpp's and ggml's messages on file descriptor 2 kept off the terminal (the CLI's
    stderr carries errors only)."""
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def package_folder() -> Optional[Path]:
    """The installed ``llama_cpp`` package's folder (not imported), or None."""
    try:
        spec = importlib.util.find_spec("llama_cpp")
    except (ImportError, ValueError):
        return None
    return Path(spec.origin).parent if spec and spec.origin else None


def backend_folders() -> tuple[Path, ...]:
    """Where a build's libraries and backends lie: the wheel keeps llama.cpp's libraries in
    ``llama_cpp/lib`` and a ``GGML_BACKEND_DL`` build's run-time loaded backends beside the
    package (``site-packages/bin``); a bundle keeps both in ``llama_cpp/lib``."""
    package = package_folder()
    return () if package is None else (package / "lib", package.parent / "bin")


def cuda_library() -> Optional[Path]:
    """``libggml-cuda.so`` of the installed llama-cpp-python, or None for a build without CUDA."""
    for folder in backend_folders():
        found = sorted(p for p in folder.glob("libggml-cuda.so*") if not p.is_symlink())
        if found:
            return found[0]
    return None


def runtime_folders() -> list[Path]:
    """Folders holding the registry's CUDA 13 runtime libraries (``nvidia/cu13/lib`` in any
    ``sys.path`` entry), first found first."""
    seen, found = set(), []
    for entry in sys.path:
        folder = Path(entry or ".") / "nvidia" / "cu13" / "lib"
        key = str(folder.resolve()) if folder.is_dir() else None
        if key and key not in seen:
            seen.add(key)
            found.append(folder)
    return found


def preload_runtime() -> list[str]:
    """Load the runtime libraries globally from the first folder holding them (once per process),
    so that the CUDA library finds them by name; returns those that could not be loaded (a system
    toolkit on the loader's path may still provide them)."""
    global _missing
    with _lock:
        if _missing is None:
            missing = list(RUNTIME_LIBRARIES)
            for folder in runtime_folders():
                for name in list(missing):
                    path = folder / name
                    if path.is_file():
                        try:
                            ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
                            missing.remove(name)
                        except OSError:
                            pass
            _missing = missing
        return list(_missing)


def _onnxruntime_first() -> None:
    """onnxruntime imported, where it is installed, before a CUDA build of llama.cpp loads."""
    try:
        importlib.import_module("onnxruntime")
    except (ImportError, OSError):
        pass  # no embedder installed (or it does not load: said where it is used): nothing to order


def import_llama() -> ModuleType:
    """``llama_cpp``, imported after the CUDA runtime's libraries (and onnxruntime) when the build
    has CUDA; a library that does not load is one line (ModelError), not a traceback."""
    missing: list[str] = []
    cuda = "llama_cpp" not in sys.modules and cuda_library() is not None
    if cuda:
        _onnxruntime_first()
        missing = preload_runtime()
    try:
        # CUDA built in registers as llama.cpp loads: "failed to initialize CUDA" where no GPU answers
        # (k2desk says it in its own line, cuda.py)
        with quiet_stderr() if cuda else nullcontext():
            import llama_cpp
    except (OSError, RuntimeError) as exc:  # llama_cpp reports a library that does not load as RuntimeError
        hint = (f"; this CUDA build needs {', '.join(missing)}: pip install nvidia-cuda-runtime==13.0.96 "
                "nvidia-cublas==13.0.2.14" if missing else "; run scripts/setup.sh again")
        raise ModelError(f"llama.cpp did not load: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}{hint}") from exc
    return llama_cpp


def before_spacy() -> None:
    """Called before spaCy is imported: a CUDA build of llama.cpp is loaded first (with onnxruntime
    before it), since its model load crashed where spaCy's BLAS came first. A CPU build, or a CUDA
    build that does not load (said where a model is loaded), changes nothing."""
    if "llama_cpp" in sys.modules or cuda_library() is None:
        return
    try:
        import_llama()
    except ModelError:
        pass
