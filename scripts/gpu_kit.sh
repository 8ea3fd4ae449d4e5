#!/usr/bin/env bash
# Make the kit for a lent GPU machine (issue 45, item 3): everything k2desk needs there that the
# machine's image (Python 3.12 with torch and numpy, CUDA 13.0 in /usr/local/cuda-13.0, no network)
# does not have, packed as tar files split into parts that fit one device call each (a call carries
# at most 64 MiB: the working tree plus the carried paths). Output in dist/gpu-kit/ (ignored by git):
#   parts/       the parts, carried one (or two, where they fit) per call, in MANIFEST.txt's order
#   SHA256SUMS   every part and every whole tar (carried with every call; scripts/gpu_device.sh
#                checks each part as it arrives and each tar once joined)
#   MANIFEST.txt the tars, their parts in carrying order with sizes, and the calls to make
# The tars:
#   k2kit-1-build.tar.gz     llama-cpp-python's sdist (LLAMA_VERSION of scripts/setup.sh), trimmed as
#                            setup.sh trims it (the CPU levels it keeps) and without what the build
#                            does not read; the build tools' wheels (scikit-build-core, cmake, ninja,
#                            setuptools, wheel)
#   k2kit-2-wheels.tar       cp312 manylinux wheels of k2desk's run-time dependencies (constraints.txt
#                            versions) less numpy (in the image), the OCR stack (rapidocr, opencv) and
#                            the extras (Qt, PostgreSQL, torch/transformers/optimum, pyinstaller); the
#                            40 MultiHop-RAG dev articles and their sample questions for bench_gpu
#   k2kit-3-models-1.5b.tar  the MiniLM ONNX embedder and the 1.5B GGUF (bench_gpu's model; the demo's
#                            reader and checker): carried before the 0.5B, so that the bench runs
#                            in the background while the 0.5B's parts travel
#   k2kit-4-models-0.5b.tar  the default 0.5B GGUF (the README demo's summaries and graph on a GPU)
#   k2kit-5-cuda-wheels.tar  optional: nvidia-cuda-runtime and nvidia-cublas as setup.sh pins them
#                            (the image has both already: carry it only where `gpu_device.sh setup`
#                            says it found no CUDA 13 runtime)
# Usage: scripts/gpu_kit.sh [--no-cuda-wheels] [--part SIZE] [--keep-stage]
#   --part SIZE        split size (split -b syntax; default 57m, made smaller when the working tree
#                      leaves less room in a 64 MiB call)
#   --no-cuda-wheels   leave out the optional CUDA runtime wheels (421 MB of cuBLAS)
#   --keep-stage       keep dist/gpu-kit/stage/ (the unpacked tars) for a look
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
KIT=$ROOT/dist/gpu-kit
STAGE=$KIT/stage
PARTS=$KIT/parts
PART=57m
CUDA_WHEELS=1
KEEP_STAGE=0
while [ $# -gt 0 ]; do
  case $1 in
    --part) PART=$2; shift 2 ;;
    --part=*) PART=${1#--part=}; shift ;;
    --no-cuda-wheels) CUDA_WHEELS=0; shift ;;
    --keep-stage) KEEP_STAGE=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu_kit: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
T0=$(date +%s)
PY=$ROOT/.venv/bin/python  # the host's: pip and tomllib (it only downloads and reads here)
[ -x "$PY" ] || PY=$(command -v python3)
pip_() { "$PY" -m pip "$@" 2> >(grep -v "^WARNING: Location" >&2); }  # pip's status kept
say() { printf '%s\n' "$*"; }
commas() { printf '%s' "$1" | sed ':a; s/\B[0-9]\{3\}\>/,&/; ta'; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
bytes_of() { stat -c %s "$1"; }
to_bytes() {  # split -b syntax (57m, 59768832, 50MB) -> bytes
  awk -v s="$1" 'BEGIN { n = s + 0; u = tolower(substr(s, length(n "") + 1));
    m = (u == "" ? 1 : u == "k" ? 1024 : u == "m" ? 1048576 : u == "g" ? 1073741824 : u == "kb" ? 1000 : u == "mb" ? 1e6 : u == "gb" ? 1e9 : -1);
    if (m < 0 || n <= 0) { print "bad"; exit } printf "%d", n * m }'
}

# -- what setup.sh pins --------------------------------------------------------------------------
LLAMA_VERSION=$(sed -n 's/^LLAMA_VERSION=\([0-9.]*\)$/\1/p' scripts/setup.sh)
# shellcheck disable=SC2016  # a literal ${ in setup.sh's line
LEVELS_DEFAULT=$(sed -n 's/^KEEP_LEVELS=\${K2DESK_CPU_LEVELS:-"\(.*\)"}$/\1/p' scripts/setup.sh)
KEEP_LEVELS=${K2DESK_CPU_LEVELS:-$LEVELS_DEFAULT}
CUDA_RUNTIME=$(sed -n 's/^ *cuda_runtime="\(nvidia-[^"]*\)"$/\1/p' scripts/setup.sh)
for v in LLAMA_VERSION KEEP_LEVELS CUDA_RUNTIME; do
  [ -n "${!v}" ] || { echo "gpu_kit: could not read $v from scripts/setup.sh (its lines changed?)" >&2; exit 1; }
done
# shellcheck disable=SC2206  # space-separated pins, as setup.sh writes them
CUDA_PINS=($CUDA_RUNTIME)

# -- the room in one call ------------------------------------------------------------------------
# A call carries the working tree (tracked and untracked-not-ignored files) plus the carried paths,
# 64 MiB in all; each transfer call carries SHA256SUMS (a few KiB) and one part.
tree_bytes=$(git ls-files -z --cached --others --exclude-standard | xargs -0 stat -c %s -- 2>/dev/null | awk '{ s += $1 } END { printf "%d", s }')
SLACK=$((64 * 1024))
BUDGET=$((64 * 1048576 - tree_bytes - SLACK))
PART_BYTES=$(to_bytes "$PART")
[ "$PART_BYTES" != bad ] || { echo "gpu_kit: --part $PART is not a split -b size" >&2; exit 2; }
if [ "$PART_BYTES" -gt "$BUDGET" ]; then
  PART_BYTES=$((BUDGET / 1048576 * 1048576))
  say "note: a $PART part and the working tree ($(mb "$tree_bytes")) would pass 64 MiB: parts of $((PART_BYTES / 1048576)) MiB instead"
fi
say "kit: llama-cpp-python $LLAMA_VERSION, CPU levels \"$KEEP_LEVELS\", parts of $PART_BYTES bytes ($((PART_BYTES / 1048576)) MiB);"
say "     a call holds $(mb $((64 * 1048576))): working tree $(mb "$tree_bytes"), left for parts $(mb "$BUDGET")"

rm -rf "$STAGE" "$PARTS" "$KIT/SHA256SUMS" "$KIT/MANIFEST.txt"
mkdir -p "$STAGE" "$PARTS"
PLATFORM=(--only-binary :all: --python-version 3.12 --implementation cp --abi cp312
          --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64
          --platform manylinux_2_27_x86_64 --platform manylinux_2_28_x86_64)

# -- 1. the sdist, trimmed, and the build tools ----------------------------------------------------
B=$STAGE/build
mkdir -p "$B/src" "$B/wheels-build" "$B/kit" "$STAGE/dl"
say "1/5 llama-cpp-python $LLAMA_VERSION sdist"
pip_ download -q --no-binary :all: --no-deps "llama-cpp-python==$LLAMA_VERSION" -d "$STAGE/dl"
sdist=$STAGE/dl/llama_cpp_python-$LLAMA_VERSION.tar.gz
[ -f "$sdist" ] || { echo "gpu_kit: the sdist did not download" >&2; exit 1; }
tar xzf "$sdist" -C "$B/src"
tree=$B/src/llama_cpp_python-$LLAMA_VERSION
V=$tree/vendor/llama.cpp
before=$(du -sb "$tree" | cut -f1)
# what the wheel's build (LLAMA_BUILD_COMMON on; tests, examples, tools, llava off) does not read:
# git data (38 MB: the submodule's objects), vocab test models (75 MB), docs, media, tests,
# benches, examples, the web UI's sources, Python conversion code, and the ggml backends other than
# CPU and CUDA (HIP/MUSA, which reuse CUDA's sources, BLAS and RPC stay; each is add_subdirectory'd
# only when its GGML_<NAME> option is on). tools/ stays (llama-bench, llama-server from the tree).
rm -rf "${tree:?}"/{.git,.github,docs,examples,tests,docker} \
       "${V:?}"/{.git,.github,.devops,models,docs,media,tests,benches,examples,pocs,gguf-py,conversion,requirements,skills,ci,tools/ui} \
       "$V"/convert_*.py
for b in cann et hexagon metal openvino opencl sycl virtgpu vulkan webgpu zdnn zendnn; do rm -rf "$V/ggml/src/ggml-$b"; done
# the CPU levels, exactly as scripts/setup.sh takes them out of ggml's list before its build
levels=$V/ggml/src/CMakeLists.txt
for level in x64 sse42 sandybridge ivybridge piledriver haswell skylakex cannonlake cascadelake icelake cooperlake zen4 alderlake sapphirerapids; do
  case " $KEEP_LEVELS " in *" $level "*) ;; *) sed -i -E "/^[[:space:]]*ggml_add_cpu_backend_variant\($level([[:space:]]|\))/d" "$levels" ;; esac
done
built_levels=$(awk '/^if \(GGML_CPU_ALL_VARIANTS\)/ { x = 1; next } x && /STREQUAL "ARM"/ { exit }
  x && match($0, /ggml_add_cpu_backend_variant\([a-z0-9]+/) { printf "%s ", substr($0, RSTART + 29, RLENGTH - 29) }' "$levels")
for want in CMakeLists.txt pyproject.toml llama_cpp/__init__.py vendor/llama.cpp/CMakeLists.txt vendor/llama.cpp/ggml/src/ggml-cuda/CMakeLists.txt \
            vendor/llama.cpp/ggml/src/ggml-cpu/CMakeLists.txt vendor/llama.cpp/common/CMakeLists.txt vendor/llama.cpp/src/CMakeLists.txt; do
  [ -f "$tree/$want" ] || { echo "gpu_kit: the trimmed sdist lacks $want" >&2; exit 1; }
done
after=$(du -sb "$tree" | cut -f1)
say "    trimmed: $(mb "$before") -> $(mb "$after") unpacked ($(find "$tree" -type f | wc -l) files); x86 CPU levels built: $built_levels"
# the build's own requirements (its pyproject's build-system) and what pip needs to install k2desk
build_reqs=$("$PY" -c 'import sys, tomllib; print(" ".join(tomllib.load(open(sys.argv[1], "rb"))["build-system"]["requires"]))' "$tree/pyproject.toml")
say "    build tools: $build_reqs (its build-system), cmake, ninja, setuptools, wheel"
# shellcheck disable=SC2086
pip_ download -q "${PLATFORM[@]}" -c constraints.txt -d "$B/wheels-build" ${build_reqs//\[pyproject\]/} cmake ninja "setuptools>=68" wheel
cat > "$B/kit/kit.env" <<EOF
KIT_MADE=$(date -u +%Y-%m-%dT%H:%M:%SZ)
KIT_COMMIT=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- 2>/dev/null || echo "+changes")
LLAMA_VERSION=$LLAMA_VERSION
KEEP_LEVELS="$KEEP_LEVELS"
BUILT_LEVELS="${built_levels% }"
CUDA_RUNTIME="$CUDA_RUNTIME"
EOF

# -- 2. k2desk's run-time wheels -------------------------------------------------------------------
W=$STAGE/wheels
mkdir -p "$W/wheels" "$STAGE/built"
say "2/5 k2desk's run-time wheels (cp312, manylinux x86_64, constraints.txt)"
# pyproject's dependencies less the OCR stack (rapidocr brings opencv; no scan in the demo or the
# bench) and llama-cpp-python (built on the machine), plus llama-cpp-python's own dependencies
mapfile -t reqs < <("$PY" - "$tree/pyproject.toml" <<'PY'
import re, sys, tomllib
name = lambda r: re.split(r"[\s<>=!~\[;]", r, maxsplit=1)[0].lower().replace("_", "-")
deps = tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]
llama = tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]
skip = {"rapidocr", "llama-cpp-python"}
for r in deps + llama:
    if name(r) not in skip:
        print(r)
PY
)
[ ${#reqs[@]} -gt 5 ] || { echo "gpu_kit: could not read pyproject.toml's dependencies" >&2; exit 1; }
# sdist-only packages (no wheel on the registry): pure Python, built here into py3-none-any wheels
SDIST_ONLY=(odfpy)
pip_ wheel -q --no-deps -c constraints.txt "${SDIST_ONLY[@]}" -w "$STAGE/built"
for whl in "$STAGE"/built/*.whl; do
  case $(basename "$whl") in *-py3-none-any.whl|*-py2.py3-none-any.whl) ;; *) echo "gpu_kit: $(basename "$whl") is not pure Python" >&2; exit 1 ;; esac
done
pip_ download -q "${PLATFORM[@]}" --find-links "$STAGE/built" -c constraints.txt -d "$W/wheels" "${reqs[@]}"
# numpy is the image's (torch's): a second one in the venv would shadow it
rm -f "$W"/wheels/numpy-*.whl
n_wheels=$(find "$W/wheels" -name '*.whl' | wc -l)
for r in "${reqs[@]}"; do  # every requirement has its wheel (numpy aside)
  n=$(printf '%s' "$r" | sed -E 's/[[:space:]<>=!~;[].*//' | tr '[:upper:].-' '[:lower:]__')  # a wheel's file name spells it so
  [ "$n" = numpy ] && continue
  printf '%s\n' "$W"/wheels/*.whl | sed 's|.*/||' | tr '[:upper:]' '[:lower:]' | grep -q "^${n}-" || { echo "gpu_kit: no wheel for $r" >&2; exit 1; }
done
# the bench's data (bench_gpu reads ../shared/bench, which does not travel to the machine)
bench_src=$ROOT/../shared/bench/multihop-rag-dev
mkdir -p "$W/bench/multihop-rag-dev"
for f in corpus.jsonl queries_sample.jsonl manifest.json README.md; do cp "$bench_src/$f" "$W/bench/multihop-rag-dev/"; done
say "    $n_wheels wheels, $(mb "$(du -cb "$W"/wheels/*.whl | tail -1 | cut -f1)") (numpy left to the image); bench: 40 articles, $(wc -l < "$W/bench/multihop-rag-dev/queries_sample.jsonl") questions"

# -- 3. the models ---------------------------------------------------------------------------------
say "3/5 models (sizes and sha256 as models/manifest.json has them)"
M3=$STAGE/models-1.5b/models
M4=$STAGE/models-0.5b/models
mkdir -p "$M3" "$M4"
# name -> file or folder, checked against the manifest (a file's sha256 is hashed here unless
# k2desk's own stamp beside it says it was hashed at this size and mtime)
"$PY" - "$ROOT/models" <<'PY'
import hashlib, json, os, sys
from pathlib import Path
models = Path(sys.argv[1])
manifest = {m["name"]: m for m in json.loads((models / "manifest.json").read_text())["models"]}
def stamped(path, want):
    try:
        seal = json.loads((path.parent / ".k2desk-verified.json").read_text()).get(path.name)
    except (OSError, ValueError):
        seal = None
    st = path.stat()
    return seal == {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": want}
def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()
for name in ("qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"):
    m = manifest[name]
    path = models / m["file"]
    if not path.is_file() or path.stat().st_size != m["size"]:
        sys.exit(f"gpu_kit: {path} is missing or not {m['size']} bytes: run `.venv/bin/k2desk models prepare {name}`")
    if not stamped(path, m["sha256"]) and sha(path) != m["sha256"]:
        sys.exit(f"gpu_kit: {path} does not match the manifest's sha256")
emb = models / manifest["all-minilm-l6-v2"]["dir"]
record = json.loads((emb / "k2desk-export.json").read_text())
for fname, want in record["files"].items():
    if not stamped(emb / fname, want) and sha(emb / fname) != want:
        sys.exit(f"gpu_kit: {emb / fname} does not match {emb / 'k2desk-export.json'}")
PY
# hard links (no copy) where the stage is on the same file system
link() { ln "$1" "$2" 2>/dev/null || cp -p "$1" "$2"; }
mkdir -p "$M3/all-minilm-l6-v2-onnx"
(cd models/all-minilm-l6-v2-onnx && find . -type f ! -name .k2desk-verified.json -print0) | while IFS= read -r -d '' f; do
  mkdir -p "$(dirname "$M3/all-minilm-l6-v2-onnx/$f")"
  link "models/all-minilm-l6-v2-onnx/$f" "$M3/all-minilm-l6-v2-onnx/$f"
done
link models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf "$M3/"
link models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf "$M4/"

# -- 4. optional: the CUDA runtime wheels setup.sh pins --------------------------------------------
if [ "$CUDA_WHEELS" = 1 ]; then
  say "4/5 CUDA runtime wheels (optional tar): ${CUDA_PINS[*]}"
  mkdir -p "$STAGE/cuda/wheels-cuda"
  pip_ download -q "${PLATFORM[@]}" --no-deps -d "$STAGE/cuda/wheels-cuda" "${CUDA_PINS[@]}"
  [ "$(find "$STAGE/cuda/wheels-cuda" -name '*.whl' | wc -l)" = "${#CUDA_PINS[@]}" ] \
    || { echo "gpu_kit: the CUDA runtime wheels did not all download" >&2; exit 1; }
else
  say "4/5 CUDA runtime wheels: left out (--no-cuda-wheels)"
fi

# -- 5. pack, split, sum ---------------------------------------------------------------------------
say "5/5 pack and split"
TAR=(tar --format=gnu --owner=0 --group=0 --numeric-owner --sort=name)
pack() {  # pack NAME DIR [gzip]
  local name=$1 dir=$2
  if [ "${3:-}" = gzip ]; then
    "${TAR[@]}" -C "$dir" -cf - . | gzip -6 -n | split -b "$PART_BYTES" -d -a 2 --numeric-suffixes=1 - "$PARTS/$name.part-"
  else
    "${TAR[@]}" -C "$dir" -cf - . | split -b "$PART_BYTES" -d -a 2 --numeric-suffixes=1 - "$PARTS/$name.part-"
  fi
}
pack k2kit-1-build.tar.gz "$B" gzip
pack k2kit-2-wheels.tar "$W"
pack k2kit-3-models-1.5b.tar "$STAGE/models-1.5b"
pack k2kit-4-models-0.5b.tar "$STAGE/models-0.5b"
[ "$CUDA_WHEELS" = 1 ] && pack k2kit-5-cuda-wheels.tar "$STAGE/cuda"
# one pass over the parts: each part's sha256 and each whole tar's (the parts joined in order)
"$PY" - "$PARTS" "$KIT/SHA256SUMS" <<'PY'
import hashlib, sys
from collections import OrderedDict
from pathlib import Path
parts_dir, out = Path(sys.argv[1]), Path(sys.argv[2])
tars = OrderedDict()
for p in sorted(parts_dir.iterdir()):
    tars.setdefault(p.name.rsplit(".part-", 1)[0], []).append(p)
lines = []
for tar, parts in tars.items():
    whole = hashlib.sha256()
    for p in parts:
        h = hashlib.sha256()
        with open(p, "rb") as f:
            while chunk := f.read(1 << 22):
                h.update(chunk)
                whole.update(chunk)
        lines.append(f"{h.hexdigest()}  parts/{p.name}")
    lines.append(f"{whole.hexdigest()}  {tar}")
out.write_text("\n".join(lines) + "\n")
PY

# -- MANIFEST.txt: the tars, then the calls in carrying order ------------------------------------------
ALL_PARTS=()
for p in "$PARTS"/*; do ALL_PARTS+=("${p##*/}"); done
mapfile -t TARS < <(printf '%s\n' "${ALL_PARTS[@]}" | sed 's/\.part-[0-9]*$//' | uniq)
parts_of() { printf '%s\n' "${ALL_PARTS[@]}" | grep -F "$1.part-"; }
describe() {
  case $1 in
    k2kit-1-build.tar.gz) echo "llama-cpp-python $LLAMA_VERSION sdist (trimmed; levels: ${built_levels% }) + build tools ($(find "$B/wheels-build" -name '*.whl' | wc -l) wheels)" ;;
    k2kit-2-wheels.tar) echo "$n_wheels run-time wheels (cp312) + the 40 dev articles and queries_sample.jsonl" ;;
    k2kit-3-models-1.5b.tar) echo "all-minilm-l6-v2-onnx + qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" ;;
    k2kit-4-models-0.5b.tar) echo "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf" ;;
    k2kit-5-cuda-wheels.tar) echo "OPTIONAL: ${CUDA_PINS[*]} (only where setup finds no CUDA 13 runtime)" ;;
  esac
}
after_tar() {  # what the call that completes a tar runs after receive (it assembles by itself)
  case $1 in
    k2kit-1-build.tar.gz) echo " && bash scripts/gpu_device.sh setup   # starts the CUDA build in the background" ;;
    k2kit-2-wheels.tar) echo " && bash scripts/gpu_device.sh setup   # installs the wheels and k2desk" ;;
    k2kit-3-models-1.5b.tar) echo " && bash scripts/gpu_device.sh setup && bash scripts/gpu_device.sh bench --deep   # waits for the build in the background" ;;
    k2kit-4-models-0.5b.tar) echo " && bash scripts/gpu_device.sh setup && bash scripts/gpu_device.sh status   # then, once the bench is done: demo --wait 420" ;;
    k2kit-5-cuda-wheels.tar) echo " && bash scripts/gpu_device.sh setup" ;;
  esac
}
{
  echo "k2desk GPU kit, made $(date -u '+%Y-%m-%d %H:%M UTC') by scripts/gpu_kit.sh at $(sed -n 's/^KIT_COMMIT=//p' "$B/kit/kit.env")"
  echo "llama-cpp-python $LLAMA_VERSION; x86 CPU levels built: ${built_levels% }; parts of $PART_BYTES bytes;"
  echo "one call carries at most 67,108,864 bytes: the working tree ($(commas "$tree_bytes") bytes when made) + SHA256SUMS + its parts;"
  echo "headroom: the tree may grow by $(commas $((BUDGET - PART_BYTES))) bytes before a full part no longer fits (then: --part 55m)"
  echo
  echo "tars (whole sha256 in SHA256SUMS):"
  for t in "${TARS[@]}"; do
    sz=$(stat -c %s "$PARTS/$t".part-* | awk '{ s += $1 } END { printf "%d", s }')
    np=$(parts_of "$t" | wc -l)
    printf '  %-26s %13s bytes  %2d part(s)  %s\n' "$t" "$(commas "$sz")" "$np" "$(describe "$t")"
  done
  echo
  echo "calls (each carries dist/gpu-kit/SHA256SUMS and the parts named; command run in the repo root):"
  call=0 used=0 names=() required=0
  flush() {
    [ ${#names[@]} -gt 0 ] || return 0
    call=$((call + 1))
    local tarname carry="" p
    for p in "${names[@]}"; do carry="$carry dist/gpu-kit/parts/$p"; done
    tarname=${names[-1]%.part-*}
    local last; last=$(parts_of "$tarname" | tail -1)
    local tail_cmd=""
    [ "$(basename "$last")" = "${names[-1]}" ] && tail_cmd=$(after_tar "$tarname")
    [[ $tarname == k2kit-5-* ]] || required=$call
    printf '  call %2d: %s (%s)\n           bash scripts/gpu_device.sh receive%s%s\n' "$call" "${names[*]}" "$(mb "$used")" "$carry" "$tail_cmd"
    names=() used=0
  }
  for p in "${ALL_PARTS[@]}"; do
    sz=$(bytes_of "$PARTS/$p")
    # a new call when this part would not fit, or when a tar ends (its setup step runs in that call)
    if [ $((used + sz)) -gt "$BUDGET" ] || [[ ${#names[@]} -gt 0 && ${names[-1]%.part-*} != "${p%.part-*}" ]]; then flush; fi
    names+=("$p"); used=$((used + sz))
  done
  flush
  echo
  echo "required transfer calls: $required (tars 1-4); optional: $((call - required)) (tar 5)"
  echo "then: bash scripts/gpu_device.sh status (poll: the build, the bench), ... collect (results under \$OUT)"
} > "$KIT/MANIFEST.txt"

[ "$KEEP_STAGE" = 1 ] || rm -rf "$STAGE"
total=$(stat -c %s "$PARTS"/* | awk '{ s += $1 } END { printf "%d", s }')
nparts=${#ALL_PARTS[@]}
req_line=$(sed -n 's/^required transfer calls: //p' "$KIT/MANIFEST.txt")
echo
sed -n '/^tars/,/^$/p' "$KIT/MANIFEST.txt"
req=${req_line%% *}
say "kit: $(mb "$total") in $nparts parts under dist/gpu-kit/parts/; transfer calls: $req_line"
say "     headroom in a call: $(commas $((BUDGET - PART_BYTES))) bytes; MANIFEST.txt lists the calls"
say "     estimate: $req calls x ~5 s (measured 2026-11-26: 12 calls of ~58 MB in 53 s) = ~$((req * 5 / 60)) min $((req * 5 % 60)) s of device"
say "     time, plus the machine's start (1-2 min); the CUDA build (~4-6 min on 16 cores) runs during the transfers"
say "     made in $(( $(date +%s) - T0 )) s"
