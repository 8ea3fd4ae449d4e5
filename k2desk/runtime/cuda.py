"""llama.cpp's CUDA backend, in a build that has one (``K2DESK_CUDA=1 scripts/setup.sh``).

Two shapes of build (docs/gpu/README.md):

* **built in** (what setup builds): CUDA and one portable CPU level linked into llama.cpp, which
  registers the CUDA device itself as it loads; its runtime libraries are loaded before it
  (``llama_import``). The GGML_BACKEND_DL shape crashed every model load on an H100.
* **run-time loaded** (``GGML_BACKEND_DL``, the CPU-only build's shape): ``libggml-cuda.so`` is one
  more backend library, loaded here after the runtime's libraries, beside the CPU level
  ``cpu_dispatch`` chose.

With no NVIDIA driver or GPU no device is registered and llama.cpp runs on the CPU; k2desk says
so in one line, once per process.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from k2desk.errors import ModelError
from k2desk.runtime.cpu_dispatch import _libggml, note_cuda_started, quiet_stderr, variant_dir
from k2desk.runtime.llama_import import RUNTIME_LIBRARIES, cuda_library, preload_runtime, runtime_folders
from k2desk.runtime.llama_info import GPU_KINDS, devices

__all__ = ["RUNTIME_LIBRARIES", "CudaState", "backend_file", "driver_gpus", "gpu_expected", "load_cuda_backend",
           "runtime_folders"]
_lock = threading.Lock()
_state: Optional["CudaState"] = None


@dataclass
class CudaState:
    built: bool  # the llama.cpp build has a CUDA backend library
    devices: int = 0  # CUDA devices it registered
    why: str = ""  # why there are none, when there are none
    shape: str = ""  # "built in" or "run-time loaded"

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
    return cuda_library()


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
        if variant_dir() is None:  # built in: llama.cpp registered the CUDA device as it loaded
            try:
                count = sum(d.kind in GPU_KINDS for d in devices())
            except ModelError as exc:
                _state = CudaState(built=True, why=str(exc), shape="built in")
            else:
                _state = CudaState(built=True, devices=count, shape="built in",
                                   why="" if count else "no NVIDIA GPU answered (no driver, or no device)")
        else:
            missing = preload_runtime()
            hint = f" (pip install nvidia-cuda-runtime nvidia-cublas: {', '.join(missing)} not found)" if missing else ""
            try:
                ctypes.CDLL(str(path))  # the loader's own reason when a library it needs is not there
            except OSError as exc:
                reason = str(exc).split(": ", 1)[-1]
                _state = CudaState(built=True, why=f"its backend did not load: {reason}{hint}", shape="run-time loaded")
            else:
                lib = _libggml()
                lib.ggml_backend_load.argtypes, lib.ggml_backend_load.restype = [ctypes.c_char_p], ctypes.c_void_p
                lib.ggml_backend_reg_dev_count.argtypes, lib.ggml_backend_reg_dev_count.restype = [ctypes.c_void_p], ctypes.c_size_t
                with quiet_stderr():  # "ggml_cuda_init: failed to initialize CUDA: ..." when there is no driver
                    reg = lib.ggml_backend_load(str(path).encode())
                count = int(lib.ggml_backend_reg_dev_count(reg)) if reg else 0
                why = "" if count else ("no NVIDIA GPU answered (no driver, or no device)" if reg else "its backend did not register")
                _state = CudaState(built=True, devices=count, why=why, shape="run-time loaded")
        if _state.devices:
            note_cuda_started()
        if announce and not _state.devices:
            print(_state.line, file=sys.stderr)
        return _state
