"""``.venv/bin/llama-server`` (k2desk/runtime/server_launch.py): the server built from the wheel's
own build tree runs with the wheel's libraries and the CPU level k2desk chose here. The server
itself answers in tests/runtime/test_remote.py through this same launcher."""

import os
import subprocess
import sys
from pathlib import Path

from k2desk.runtime import cpu_dispatch, server_launch


def test_the_wheels_libraries_come_first_and_one_cpu_level_is_named(tiny_llm_path):
    import llama_cpp

    env = server_launch.server_env(["-m", str(tiny_llm_path), "--port", "0"], base={"LD_LIBRARY_PATH": "/elsewhere"})
    paths = env["LD_LIBRARY_PATH"].split(os.pathsep)
    assert paths[0] == str(Path(llama_cpp.__file__).parent / "lib") and paths[-1] == "/elsewhere"
    folder = cpu_dispatch.variant_dir()
    if folder is None:  # a build with its CPU backend built in (CUDA): nothing to choose
        assert "GGML_BACKEND_PATH" not in env
        return
    chosen = Path(env["GGML_BACKEND_PATH"])
    assert chosen.is_file() and chosen.parent == folder
    # the level this process loaded for the model: the one k2desk's own LLM runs on here
    assert cpu_dispatch.level_name(chosen.name) == cpu_dispatch.load_cpu_backend(tiny_llm_path)
    # and no level lies beside the server binary, where ggml would pick the best-scored by itself
    assert not list(server_launch.server_binary().parent.glob("*ggml-cpu-*"))


def test_model_argument_in_either_spelling():
    assert server_launch._model_arg(["--port", "1", "-m", "a.gguf"]) == Path("a.gguf")
    assert server_launch._model_arg(["--model=b.gguf"]) == Path("b.gguf")
    assert server_launch._model_arg(["--port", "1"]) is None


def test_a_missing_server_is_one_line(tmp_path):
    code = ("import sys; sys.prefix = sys.argv[1]; from k2desk.runtime import server_launch; "
            "sys.exit(server_launch.main(['--version']))")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 127
    assert proc.stderr.strip().count("\n") == 0 and "run scripts/setup.sh" in proc.stderr


def test_the_installed_server_starts_through_the_launcher():
    proc = subprocess.run([str(Path(sys.prefix) / "bin" / "llama-server"), "--version"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "version" in (proc.stdout + proc.stderr).lower()
