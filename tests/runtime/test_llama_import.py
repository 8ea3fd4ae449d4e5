"""Finding llama-cpp-python and a CUDA build's runtime libraries before anything is loaded
(k2desk/runtime/llama_import.py)."""

import subprocess
import sys

from k2desk.runtime import llama_import


def test_the_package_is_found_without_importing_it():
    code = ("import sys; from k2desk.runtime import llama_import as li; folder = li.package_folder(); "
            "print(folder.name, 'llama_cpp' in sys.modules, li.cuda_library())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[:2] == ["llama_cpp", "False"]  # located, not loaded: a CUDA build's libraries come first
    assert out[2] == "None"  # this environment's build is the CPU one


def test_the_runtime_libraries_missing_are_named(tmp_path, monkeypatch):
    lib = tmp_path / "site" / "nvidia" / "cu13" / "lib"
    lib.mkdir(parents=True)
    (lib / "libcudart.so.13").write_bytes(b"not a library")  # found, but the loader refuses it
    monkeypatch.setattr(sys, "path", [str(tmp_path / "site")])
    monkeypatch.setattr(llama_import, "_missing", None)
    assert llama_import.runtime_folders() == [lib]
    assert llama_import.preload_runtime() == list(llama_import.RUNTIME_LIBRARIES)


def test_a_cpu_build_imports_as_it_is():
    assert llama_import.import_llama().__name__ == "llama_cpp"


def test_a_cuda_build_whose_runtime_is_missing_says_so_in_one_line(tmp_path):
    # a stand-in llama-cpp-python: a CUDA library beside it, and a libllama that does not load
    package = tmp_path / "site" / "llama_cpp"
    (package / "lib").mkdir(parents=True)
    (package / "lib" / "libggml-cuda.so").write_bytes(b"")
    (package / "__init__.py").write_text(
        "raise RuntimeError(\"Failed to load shared library 'libllama.so': libcudart.so.13: cannot open shared object file\")\n")
    code = ("import sys; sys.path.insert(0, sys.argv[1])\n"
            "from k2desk.runtime.llama_import import import_llama\n"
            "try:\n    import_llama()\nexcept Exception as exc:\n    print(type(exc).__name__, exc)\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "site")], capture_output=True, text=True, check=True)
    line = out.stdout.strip()
    assert line.startswith("ModelError llama.cpp did not load: Failed to load shared library") and "\n" not in line
    assert "libcudart.so.13" in line and "pip install nvidia-cuda-runtime" in line


ORDER = ("import sys; sys.path.insert(0, sys.argv[1]) if sys.argv[1] else None\n"
         "from k2desk.graph.nlp import load_pipeline\n"
         "load_pipeline()\n"
         "loaded = list(sys.modules)  # in the order their imports began\n"
         "print(*[loaded.index(m) if m in loaded else -1 for m in ('onnxruntime', 'llama_cpp', 'blis')])\n")


def test_a_cuda_build_loads_after_onnxruntime_and_before_spacy(tmp_path):
    # on an H200 the other orders crashed (docs/gpu/README.md): a stand-in CUDA build records where it loads
    package = tmp_path / "site" / "llama_cpp"
    (package / "lib").mkdir(parents=True)
    (package / "lib" / "libggml-cuda.so").write_bytes(b"")
    (package / "__init__.py").write_text("")
    out = subprocess.run([sys.executable, "-c", ORDER, str(tmp_path / "site")], capture_output=True, text=True, check=True)
    ort, llama, blis = map(int, out.stdout.split())
    assert -1 < ort < llama < blis


def test_a_cpu_build_is_not_loaded_for_spacy():
    out = subprocess.run([sys.executable, "-c", ORDER, ""], capture_output=True, text=True, check=True)
    ort, llama, blis = map(int, out.stdout.split())
    assert (ort, llama) == (-1, -1) and blis > 0
