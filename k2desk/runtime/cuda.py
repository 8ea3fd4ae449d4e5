"""llama.cpp's CUDA backend, in a build that has one (``K2DESK_CUDA=1 scripts/setup.sh``).

That build keeps each backend in a library of its own (``GGML_BACKEND_DL``): the CPU levels
(``cpu_dispatch``) and ``libggml-cuda.so``, and llama.cpp loads none of them by itself. The CUDA
library needs the CUDA runtime and cuBLAS, which setup installs from the registry's wheels
(``nvidia-cuda-runtime``, ``nvidia-cublas``: ``site-packages/nvidia/cu13/lib``), a folder the
dynamic loader does not search; so they are loaded first, by path and globally, and the backend
after them. With no NVIDIA driver or GPU the backend registers no device (or does not load at
all) and llama.cpp runs on the CPU; k2desk says so in one line, once per process.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from k2desk.runtime.cpu_dispatch import _libggml, backend_folders, note_cuda_started, quiet_stderr

# the CUDA 13 runtime libraries libggml-cuda.so links, in the order they depend on each other
RUNTIME_LIBRARIES = ("libcudart.so.13", "libcublasLt.so.13", "libcublas.so.13")
_lock = threading.Lock()
_state: Optional["CudaState"] = None


@dataclass
class CudaState:
    built: bool  # the llama.cpp build has a CUDA backend library
    devices: int = 0  # CUDA devices it registered
    why: str = ""  # why there are none, when there are none

    @property
    def line(self) -> str:
        """The one line a person reads when a CUDA build runs on the CPU."""
        return f"k2desk: this llama.cpp build has CUDA, but {self.why}: the LLM runs on the CPU"


def driver_gpus() -> list[str]:
    """NVIDIA GPUs the kernel driver knows (``/proc/driver/nvidia/gpus/*/information``), by model;
    read without initializing CUDA in this process."""
    found = []
    for info in sorted(Path("/proc/driver/nvidia/gpus").glob("*/information")):
        try:
            lines = info.read_text(errors="replace").splitlines()
        except OSError:
            continue
        found += [ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("Model:")]
    return found


def gpu_expected() -> bool:
    """Whether the LLM will find a CUDA GPU: a CUDA build and a GPU the driver knows. Asked before a
    model is loaded (the "auto" choices), so without loading the backend: CUDA initialized in this
    process before the CPU level is tried in a forked child (cpu_dispatch) would break the child."""
    return backend_file() is not None and bool(driver_gpus())


def backend_file() -> Optional[Path]:
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


def _preload_runtime() -> list[str]:
    """Load the runtime libraries globally from the first folder holding them, so that the backend
    library finds them by name; returns those that could not be loaded."""
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
    return missing


def load_cuda_backend(announce: bool = True) -> CudaState:
    """Register the CUDA backend once per process when the build has one; with no GPU, one line on
    stderr says the LLM runs on the CPU (``announce``)."""
    global _state
    with _lock:
        if _state is not None:
            return _state
        path = backend_file()
        if path is None:
            _state = CudaState(built=False)
            return _state
        missing = _preload_runtime()
        try:
            ctypes.CDLL(str(path))  # the loader's own reason when a library it needs is not there
        except OSError as exc:
            reason = str(exc).split(": ", 1)[-1]
            hint = f" (pip install nvidia-cuda-runtime nvidia-cublas: {', '.join(missing)} not found)" if missing else ""
            _state = CudaState(built=True, why=f"its backend did not load: {reason}{hint}")
        else:
            lib = _libggml()
            lib.ggml_backend_load.argtypes, lib.ggml_backend_load.restype = [ctypes.c_char_p], ctypes.c_void_p
            lib.ggml_backend_reg_dev_count.argtypes, lib.ggml_backend_reg_dev_count.restype = [ctypes.c_void_p], ctypes.c_size_t
            with quiet_stderr():  # "ggml_cuda_init: failed to initialize CUDA: ..." when there is no driver
                reg = lib.ggml_backend_load(str(path).encode())
            count = int(lib.ggml_backend_reg_dev_count(reg)) if reg else 0
            why = "" if count else ("no NVIDIA GPU answered (no driver, or no device)" if reg else "its backend did not register")
            _state = CudaState(built=True, devices=count, why=why)
            if count:
                note_cuda_started()
        if announce and not _state.devices:
            print(_state.line, file=sys.stderr)
        return _state
