"""``llama-server`` as scripts/setup.sh installs it (``.venv/bin/llama-server`` runs this).

setup builds llama.cpp once: the Python wheel, then ``llama-server`` from the same build tree,
linked against the wheel's libraries (``.venv/libexec/llama-server/``). With the wheel's CPU
levels (``GGML_BACKEND_DL``) the server would load the level whose flags score best, which can die
on a virtual machine whose CPU flags promise more than it delivers (runtime/cpu_dispatch.py); so
it is started with none found beside it and the level k2desk chose here (tried once, cached)
named in ``GGML_BACKEND_PATH``. A CUDA build's backend is linked beside the server (which loads
backends from its own folder) and finds the CUDA runtime's libraries on the library path. Every
argument goes to the server unchanged.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

from k2desk.runtime import cpu_dispatch, cuda
from k2desk.runtime.llama_import import import_llama


def server_binary() -> Path:
    return Path(sys.prefix) / "libexec" / "llama-server" / "llama-server"


def _model_arg(args: list[str]) -> Optional[Path]:
    for i, arg in enumerate(args):
        if arg in ("-m", "--model") and i + 1 < len(args):
            return Path(args[i + 1])
        if arg.startswith("--model="):
            return Path(arg.split("=", 1)[1])
    return None


def server_env(args: list[str], base: Optional[dict[str, str]] = None) -> dict[str, str]:
    """The environment the server runs in: the wheel's libraries first on the library path, and
    the CPU level chosen for this machine (tried with the model when one is named)."""
    llama_cpp = import_llama()

    env = dict(os.environ if base is None else base)
    paths = [str(Path(llama_cpp.__file__).parent / "lib"), str(server_binary().parent)]
    if cuda.backend_file() is not None:  # a CUDA build: its backend (beside the server) needs the runtime's libraries
        paths += [str(folder) for folder in cuda.runtime_folders()]
    env["LD_LIBRARY_PATH"] = os.pathsep.join(paths + ([env["LD_LIBRARY_PATH"]] if env.get("LD_LIBRARY_PATH") else []))
    folder = cpu_dispatch.variant_dir()
    if folder is not None:
        model = _model_arg(args)
        if model is not None and model.is_file():
            level = cpu_dispatch.load_cpu_backend(model)
        else:
            level = cpu_dispatch.load_cached_backend()[0]
        ranked = cpu_dispatch.ranked_variants(folder)
        chosen = next((p for _, p in ranked if cpu_dispatch.level_name(p.name) == level), None)
        chosen = chosen or (ranked[0][1] if ranked else None)
        if chosen is not None:
            env["GGML_BACKEND_PATH"] = str(chosen)
    return env


def main(argv: Optional[list[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    binary = server_binary()
    if not binary.is_file():
        print(f"llama-server is not built here ({binary} is missing): run scripts/setup.sh", file=sys.stderr)
        return 127
    os.execve(str(binary), [str(binary), *args], server_env(args))
    return 0  # pragma: no cover - execve does not return


if __name__ == "__main__":
    sys.exit(main())
