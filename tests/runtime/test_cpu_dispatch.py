"""llama.cpp's CPU backend picked at run time: the setup's build carries every x86 level, the
LLM loads the best level that evaluates tokens here (a level this machine cannot run is skipped,
not fatal), and the choice is cached per machine."""

import json
import os
from pathlib import Path

import pytest

from k2desk.runtime import cpu_dispatch
from k2desk.runtime.llm import LLM


@pytest.fixture(scope="module")
def folder():
    found = cpu_dispatch.variant_dir()
    if found is None:
        pytest.fail("llama-cpp-python was built with one CPU backend; scripts/setup.sh builds every level "
                    "(GGML_BACKEND_DL + GGML_CPU_ALL_VARIANTS)", pytrace=False)
    return found


def test_the_build_carries_every_x86_level_and_ranks_what_this_cpu_supports(folder):
    names = {p.name.split(".")[0] for p in folder.glob("*ggml-cpu-*")}
    assert {"libggml-cpu-x64", "libggml-cpu-haswell", "libggml-cpu-skylakex"} <= names
    ranked = cpu_dispatch.ranked_variants(folder)
    scores = [score for score, _ in ranked]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
    assert "libggml-cpu-x64" in {p.name.split(".")[0] for _, p in ranked}  # every x86-64 CPU runs the base level


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the probe forks")
def test_a_level_that_cannot_run_is_skipped(tmp_path, tiny_llm_path):
    broken = tmp_path / "libggml-cpu-broken.so"
    broken.write_bytes(b"\x7fELF not a library")
    assert cpu_dispatch._survives(broken, tiny_llm_path) is False  # the child died, the test process did not


def test_the_llm_runs_on_the_chosen_level_and_the_choice_is_cached(folder, tiny_llm_path):
    llm = LLM(tiny_llm_path, n_ctx=256, threads=2)
    ranked = [p.name for _, p in cpu_dispatch.ranked_variants(folder)]
    assert f"libggml-cpu-{llm.cpu_backend}.so" in ranked
    cached = json.loads(cpu_dispatch._cache_file().read_text())
    assert f"libggml-cpu-{llm.cpu_backend}.so" in cached.values()
    assert llm.chat([{"role": "user", "content": "Say hello."}], max_tokens=4).completion_tokens > 0


def test_after_cuda_started_here_the_top_level_is_taken_untried_and_not_cached(folder, tiny_llm_path, tmp_path,
                                                                                monkeypatch):
    loaded = []
    monkeypatch.setattr(cpu_dispatch, "_loaded", None)
    monkeypatch.setattr(cpu_dispatch, "_cache_file", lambda: tmp_path / "cpu-variant.json")
    monkeypatch.setattr(cpu_dispatch, "_load", lambda path: loaded.append(path.name) or True)
    monkeypatch.setattr(cpu_dispatch, "_cuda_started", False)
    cpu_dispatch.note_cuda_started()  # what runtime/cuda.py says once a GPU answered
    monkeypatch.setattr(cpu_dispatch, "_survives", lambda *a: pytest.fail("forked a child after CUDA started"))
    top = cpu_dispatch.ranked_variants(folder)[0][1].name
    assert cpu_dispatch.load_cpu_backend(tiny_llm_path) == cpu_dispatch.level_name(top)
    assert loaded == [top] and not (tmp_path / "cpu-variant.json").exists()


def broken_folder(tmp_path):
    """A backend folder whose CPU levels cannot run here: files named like levels, no library in them."""
    folder = tmp_path / "broken-backends"
    folder.mkdir()
    for level in ("x64", "haswell", "skylakex"):
        (folder / f"libggml-cpu-{level}.so").write_bytes(b"\x7fELF not a library")
    return folder


def test_when_no_level_survives_the_model_is_not_loaded_and_one_line_says_why(folder, tiny_llm_path, tmp_path,
                                                                              monkeypatch):
    from k2desk.errors import ModelError

    monkeypatch.setattr(cpu_dispatch, "_loaded", None)
    monkeypatch.setattr(cpu_dispatch, "_cache_file", lambda: tmp_path / "cpu-variant.json")
    monkeypatch.setattr(cpu_dispatch, "_survives", lambda *a: False)  # every probe's child died
    with pytest.raises(ModelError, match=r"no CPU level of llama.cpp .* \(each of .*x64.* died loading SmolLM2") as err:
        LLM(tiny_llm_path, n_ctx=256, threads=1)
    assert "\n" not in str(err.value) and "scripts/setup.sh" in str(err.value)
    assert cpu_dispatch._loaded is None and not (tmp_path / "cpu-variant.json").exists()  # tried again next time
    monkeypatch.setattr(cpu_dispatch, "variant_dir", lambda: broken_folder(tmp_path))
    with pytest.raises(ModelError, match=r"\(none is built for this CPU\)"):
        LLM(tiny_llm_path, n_ctx=256, threads=1)


WRAPPER = """import sys
from pathlib import Path
from k2desk.runtime import cpu_dispatch
broken = Path(sys.argv.pop(1))
cpu_dispatch.variant_dir = lambda: broken  # the broken folder instead of the build's own
from k2desk.cli import main
sys.exit(main())
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the probe forks")
def test_ask_and_doctor_on_a_broken_backend_folder_say_one_line_and_exit_1(tmp_path, models_dir):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "K2DESK_HOME": str(tmp_path / "home"), "K2DESK_MODELS": str(models_dir),
           "QT_QPA_PLATFORM": "offscreen"}
    wrapper = tmp_path / "broken_k2desk.py"
    wrapper.write_text(WRAPPER)
    k2desk = [sys.executable, "-m", "k2desk", "--llm", "smollm2-135m", "--threads", "1"]
    index = subprocess.run([*k2desk, "index", str(root / "resources" / "sample")], env=env, capture_output=True,
                           text=True, timeout=600)
    assert index.returncode == 0, index.stderr
    broken = [sys.executable, str(wrapper), str(broken_folder(tmp_path)), "--llm", "smollm2-135m", "--threads", "1"]
    for args in (["ask", "Who leads the Lindenfeld Solar Cooperative?"], ["doctor"]):
        proc = subprocess.run([*broken, *args], env=env, capture_output=True, text=True, timeout=600, cwd=root)
        err = proc.stderr.strip().splitlines()
        assert proc.returncode == 1 and len(err) == 1, (args, proc.returncode, proc.stderr)
        assert "no CPU level of llama.cpp" in err[0] and "scripts/setup.sh" in err[0], err


def test_a_built_in_cpu_backend_needs_what_it_was_compiled_for():
    info = "CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | AVX512 = 0 | LLAMAFILE = 1 | "
    assert cpu_dispatch.built_for(info) >= {"AVX2", "FMA", "F16C"} and "AVX512" not in cpu_dispatch.built_for(info)
    haswell = {"pni", "ssse3", "avx", "avx2", "f16c", "fma", "bmi2"}
    assert cpu_dispatch.lacking(info, haswell) == []
    assert cpu_dispatch.lacking(info, haswell - {"avx2", "fma"}) == ["AVX2", "FMA"]  # an older CPU: named, no SIGILL
    assert cpu_dispatch.lacking(info, None) == []  # nothing to read the flags from: the load goes on
    assert cpu_dispatch.lacking("CUDA : ARCHS = 750 | AVX2 = 1 | ", set()) == []  # another backend's features


def test_a_built_in_backend_on_a_cpu_that_lacks_its_instructions_stops_with_one_line(monkeypatch):
    monkeypatch.setattr(cpu_dispatch, "_loaded", None)
    monkeypatch.setattr(cpu_dispatch, "variant_dir", lambda: None)  # one CPU backend built in
    monkeypatch.setattr(cpu_dispatch, "cpu_flags", lambda: {"pni", "ssse3"})
    monkeypatch.setattr(cpu_dispatch.llama_import, "import_llama",
                        lambda: type("L", (), {"llama_print_system_info": staticmethod(lambda: b"CPU : AVX2 = 1 | FMA = 1 | ")}))
    from k2desk.errors import ModelError

    with pytest.raises(ModelError) as err:
        cpu_dispatch.load_cpu_backend(Path("model.gguf"))
    assert "AVX2, FMA" in str(err.value) and "\n" not in str(err.value)
