#!/usr/bin/env bash
# Build the pyinstaller bundles (build.spec) and check that each one answers a question headless:
#   1. `k2desk index` + `k2desk ask --method hybrid --json` through the bundle's command line, on the
#      test fixtures plus a scanned PDF (read by OCR) and slides: each cited at its page or slide,
#   2. the desktop app itself, offscreen (QT_QPA_PLATFORM=offscreen, K2DESK_GUI_SELFTEST): the
#      window opens the collection, asks through the GUI and prints the answer as JSON.
# Both use the bundled models and embedder (no repository models, no network). The bundle's doctor
# must list every model the install answers with as present and ask for no network command, and
# its answer to the README's demo question must name the install's models (ask --json "models");
# `k2desk serve` from the bundle answers it too through the OpenAI-compatible API, with its source,
# and `k2desk mcp` from the bundle answers one search and one ask through the official MCP client.
#   K2DESK_BUNDLE=onedir|deb            what to build and check (default: onedir); deb (as root: it
#                                       installs) builds the one-dir bundle and the Linux package
#                                       (scripts/build_deb.sh), installs it with dpkg, runs the checks
#                                       above through /usr/bin/k2desk, then: the desktop entry valid
#                                       (desktop-file-validate), the app started from its Exec line on
#                                       an X server (xvfb-run) with a folder to open, a collection made
#                                       with an older package kept and answering after an upgrade, and
#                                       dpkg -r removing the program but not the person's collections
#   K2DESK_CHECK_NO_BUILD=1             check the existing dist/ without rebuilding
#   K2DESK_CHECK_THREADS=N              LLM/embedder threads (default 1: robust on busy cores)
#   K2DESK_CHECK_PROFILE=P              index build profile (default naive: no LLM work at indexing;
#                                       "default" also builds K²RAG's summaries and graph, slowly)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
MODE=${K2DESK_BUNDLE:-onedir}
THREADS=${K2DESK_CHECK_THREADS:-1}
PROFILE=${K2DESK_CHECK_PROFILE:-naive}
PY=${PYTHON:-python3}
QUESTION="How far is the Harwick Point lighthouse visible?"
DEMO_QUESTION="Who leads the Lindenfeld Solar Cooperative?"  # the README's first command

if [ "${K2DESK_CHECK_NO_BUILD:-0}" != 1 ]; then
  if [ ! -x .venv/bin/pyinstaller ]; then
    echo "pyinstaller is missing: .venv/bin/pip install 'pyinstaller==6.22.3'" >&2
    exit 2
  fi
  start=$(date +%s)
  K2DESK_BUNDLE=onedir .venv/bin/pyinstaller --noconfirm --log-level WARN build.spec
  echo "build ($MODE): $(( $(date +%s) - start )) s"
fi

# a CUDA build of llama-cpp-python makes the CUDA variant (build.spec): dist/k2desk-cuda*; a lite
# build (K2DESK_BUNDLE_LITE=1) carries the default model alone: dist/k2desk-lite*
V=$(.venv/bin/python -c "from k2desk.runtime.cuda import backend_file; print('-cuda' if backend_file() else '')")
LITE=${K2DESK_BUNDLE_LITE:-0}
if [ "$LITE" = 1 ]; then V="$V-lite"; fi
# the models the install answers with (the repository's models folder, default settings): the
# bundle's answers must name the same ones, unless it is the lite build
INSTALL_MODELS=$(.venv/bin/python -c "import json, tempfile
from k2desk.config import Settings
from k2desk.engine import check_llm_name, reader_llm_name
s = Settings(home=tempfile.mkdtemp())
print(json.dumps({'llm': s.llm, 'reader': reader_llm_name(s), 'check': check_llm_name(s)}))")
echo "the install answers with: $INSTALL_MODELS"
bins=()
case $MODE in
  onedir) bins=(dist/k2desk$V/k2desk$V) ;;
  deb) bins=(/usr/bin/k2desk)
       [ -z "$V" ] || { echo "K2DESK_BUNDLE=deb packages the CPU bundle (dist/k2desk)" >&2; exit 2; }
       [ "$(id -u)" = 0 ] || { echo "K2DESK_BUNDLE=deb installs the package: run it as root (or in a chroot)" >&2; exit 2; }
       [ "$(dpkg-query -W -f='${Status}' k2desk 2>/dev/null)" != "install ok installed" ] || { echo "a k2desk package is installed already: dpkg -r k2desk first" >&2; exit 2; }
       for tool in desktop-file-validate xvfb-run; do
         command -v $tool > /dev/null || { echo "$tool is missing: apt-get install desktop-file-utils xvfb" >&2; exit 2; }
       done ;;
  *) echo "K2DESK_BUNDLE must be onedir or deb (the one-file form was dropped: docs/desktop.md)" >&2; exit 2 ;;
esac

check_answer() {  # $1: JSON file of an answer; the lighthouse passage must be the first source
  "$PY" - "$1" <<'EOF'
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
data = json.loads(text[text.index("{"):])
assert data.get("ok", True), data
assert data["answer"].strip(), "empty answer"
assert data["sources"] and data["sources"][0]["document"].endswith("lighthouse.txt"), data["sources"][:1]
print(f"  answer: {data['answer'].strip()[:160]!r}")
print(f"  first source: {data['sources'][0]['document']} (score {data['sources'][0]['score']:.3f})")
EOF
}

check_bin() {  # $1: the bundle's program (the one-dir's, or the installed package's)
  local bin=$1 exe size t0 t1 t2 probe question file where  # work: global, for the EXIT trap
  [ -x "$bin" ] || { echo "missing $bin" >&2; exit 1; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  cp -r tests/fixtures/mixed "$work/docs"
  # a person's folder too: a scanned PDF (read by OCR) and slides, generated here
  .venv/bin/python -c "import sys; from pathlib import Path; from tests.ingest import office_folder as o
d = Path(sys.argv[1]); (d / 'agreement-scan.pdf').write_bytes(o.scanned_pdf(o.CONTRACT_PAGES)); o.slides(d / 'board.pptx')" "$work/docs"
  mkdir -p "$work/home" && printf '{"build_profile": "%s"}\n' "$PROFILE" > "$work/home/settings.json"
  exe=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
  if [ "$bin" = /usr/bin/k2desk ]; then size="$(du -sh /opt/k2desk | cut -f1) installed"
  else size="$(du -sh "$(dirname "$exe")" | cut -f1) folder"; fi
  echo "== $bin ($size)"
  # run from an empty folder with a clean environment: only what the bundle carries is used
  (cd "$work" && env -u K2DESK_MODELS -u K2DESK_HOME "$exe" --home "$work/home" models list --json) > "$work/models.json"
  "$PY" - "$work/models.json" <<'EOF'
import json, sys
rows = {r["name"]: r for r in json.load(open(sys.argv[1]))["k2desk"]}  # beside "found": other apps' GGUFs
llm = next(r for r in rows.values() if r["default"])
assert llm["present"] and rows["all-minilm-l6-v2"]["present"], rows
print(f"  bundled models: {', '.join(n for n, r in rows.items() if r['present'] and r['role'] == 'llm')}")
EOF
  # its doctor: every model the install answers with is present, and no line asks for the network
  (cd "$work" && env -u K2DESK_MODELS -u K2DESK_HOME "$exe" --home "$work/home" doctor --json) > "$work/doctor.json" || true
  "$PY" - "$work/doctor.json" "$INSTALL_MODELS" "$LITE" <<'EOF'
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
report = json.loads(text[text.index("{"):])
install, lite = json.loads(sys.argv[2]), sys.argv[3] == "1"
checks = {c["key"]: c for c in report["checks"]}
for name in ({install["llm"]} if lite else set(install.values())):
    check = checks.get(f"model:{name}")
    assert check and check["status"] == "ok", (name, check)
    print(f"  doctor: model {name}: {check['found']}")
note = report.get("download", "")  # a lite download says so; the full one says nothing
assert ("the lite download" in note) == lite, f"download note {note!r} (lite: {lite})"
if note:
    print(f"  doctor: {note}")
asks = [c for c in report["checks"] if "models prepare" in json.dumps(c)]
assert not asks, f"the bundle's doctor asks for a command that needs the network: {asks[0]}"
EOF
  t0=$(date +%s)
  (cd "$work" && env -u K2DESK_MODELS -u K2DESK_HOME "$exe" --home "$work/home" --threads "$THREADS" index "$work/docs") | tail -4
  t1=$(date +%s)
  (cd "$work" && env -u K2DESK_MODELS -u K2DESK_HOME "$exe" --home "$work/home" --threads "$THREADS" \
      ask "$QUESTION" --method hybrid --json) > "$work/answer.json"
  t2=$(date +%s)
  echo "  cli: index $((t1 - t0)) s, ask $((t2 - t1)) s"
  check_answer "$work/answer.json"
  # the README's demo: the sample documents, the default profile and method, its question; the
  # answer must come from the models the install answers with (the lite build: the default alone)
  cp -r resources/sample "$work/sample"
  (cd "$work" && env -u K2DESK_MODELS -u K2DESK_HOME "$exe" --home "$work/demo-home" --threads "$THREADS" index "$work/sample") > /dev/null
  (cd "$work" && env -u K2DESK_MODELS -u K2DESK_HOME "$exe" --home "$work/demo-home" --threads "$THREADS" \
      ask "$DEMO_QUESTION" --json) > "$work/demo.json"
  "$PY" - "$work/demo.json" "$INSTALL_MODELS" "$LITE" <<'EOF'
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
data = json.loads(text[text.index("{"):])
models, install = data["models"], json.loads(sys.argv[2])
print(f"  demo ({data['method']}): {data['answer'].strip()[:80]!r}, first source {data['sources'][0]['document'].rsplit('/', 1)[-1]}")
if sys.argv[3] == "1":
    assert models["reader"] == install["llm"], (models, install)
    print(f"  lite: answers with {models['reader']} alone (the install: {install['reader']})")
else:
    assert models == install, f"the bundle answers with {models}, the install with {install}"
    assert "Henrike Albers" in data["answer"], data["answer"]
    print(f"  answers with the install's models: {models}")
EOF
  # `k2desk serve` from the bundle: the demo's question through the OpenAI-compatible API, its
  # source as data, then SIGTERM: a clean stop
  (cd "$work" && exec env -u K2DESK_MODELS -u K2DESK_HOME "$exe" --home "$work/demo-home" --threads "$THREADS" \
      serve --port 0 > "$work/serve.out" 2> "$work/serve.err") &
  serve_pid=$!
  "$PY" - "$work/serve.out" "$DEMO_QUESTION" "$LITE" <<'EOF'
import http.client, json, re, sys, time
deadline = time.monotonic() + 120
while not re.search(r":(\d+)/v1", open(sys.argv[1]).read()):
    assert time.monotonic() < deadline, "the bundle's server did not start"
    time.sleep(0.2)
port = int(re.search(r":(\d+)/v1", open(sys.argv[1]).read()).group(1))
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
body = {"model": "default", "messages": [{"role": "user", "content": sys.argv[2]}]}
conn.request("POST", "/v1/chat/completions", json.dumps(body), {"Content-Type": "application/json"})
reply = json.loads(conn.getresponse().read())
text, sources = reply["choices"][0]["message"]["content"], [s["document"].rsplit("/", 1)[-1] for s in reply["sources"]]
print(f"  serve: {text.splitlines()[0]!r}, sources {sources}")
assert "solar-cooperative.md" in sources, reply
assert sys.argv[3] == "1" or "Henrike Albers" in text, text
EOF
  kill -TERM "$serve_pid"
  wait "$serve_pid" || { echo "  serve did not stop cleanly:"; cat "$work/serve.err"; exit 1; }
  grep -q "k2desk serve stopped after 1 request" "$work/serve.out" || { cat "$work/serve.out" "$work/serve.err"; exit 1; }
  # `k2desk mcp` from the bundle, started as an assistant starts it: the official MCP client (the
  # install's SDK) over stdio, one search and one ask with their sources
  .venv/bin/python - "$exe" "$work/demo-home" "$THREADS" "$DEMO_QUESTION" "$LITE" <<'EOF'
import os, sys, time
import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
exe, home, threads, question, lite = sys.argv[1:]
env = {k: v for k, v in os.environ.items() if k not in ("K2DESK_MODELS", "K2DESK_HOME")}
params = StdioServerParameters(command=exe, args=["--home", home, "--threads", threads, "mcp"], env=env)

async def main():
    with anyio.fail_after(900):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            t0 = time.monotonic()
            found = await session.call_tool("search", {"query": "Lindenfeld Solar Cooperative chair"})
            t1 = time.monotonic()
            asked = await session.call_tool("ask", {"question": question})
            return found, asked, t1 - t0, time.monotonic() - t1

found, asked, searched, answered = anyio.run(main)
first = found.structured_content["passages"][0]["document"].rsplit("/", 1)[-1]
answer = asked.structured_content
sources = [s["document"].rsplit("/", 1)[-1] for s in answer["sources"]]
print(f"  mcp: search {searched:.2f} s, first passage {first}; ask {answered:.1f} s: {answer['answer'][:60]!r} "
      f"({answer['outcome']}), sources {sources}")
assert not found.is_error and first == "solar-cooperative.md", found
assert not asked.is_error and "solar-cooperative.md" in sources, answer
assert lite == "1" or ("Henrike Albers" in answer["answer"] and answer["outcome"] == "answered"), answer
EOF
  for probe in "Who signed the supply agreement for the Supplier?|agreement-scan.pdf|p. 2" \
               "What was the quarterly revenue?|board.pptx|slide 2"; do
    IFS='|' read -r question file where <<<"$probe"
    (cd "$work" && env -u K2DESK_MODELS -u K2DESK_HOME "$exe" --home "$work/home" --threads "$THREADS" \
        ask "$question" --method hybrid --json) > "$work/probe.json"
    "$PY" - "$work/probe.json" "$file" "$where" <<'EOF'
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
data = json.loads(text[text.index("{"):])
first, file, where = data["sources"][0], sys.argv[2], sys.argv[3]
assert first["document"].endswith(file) and first.get("location"), first  # read, and cited by its part
assert any(s["document"].endswith(file) and s.get("location") == where for s in data["sources"]), data["sources"]
print(f"  {file}: read, first source at {first['location']}, the answer's place ({where}) among the sources")
EOF
  done
  (cd "$work" && env -u K2DESK_MODELS -u K2DESK_HOME QT_QPA_PLATFORM=offscreen K2DESK_GUI_SELFTEST="$QUESTION" \
      "$exe" --home "$work/home" --threads "$THREADS") 2>"$work/gui.err" | grep '^{' > "$work/gui.json" || {
    echo "  the desktop app gave no answer:"; tail -20 "$work/gui.err"; exit 1; }
  echo "  gui (offscreen): $(( $(date +%s) - t2 )) s"
  check_answer "$work/gui.json"
  rm -rf "$work"
  trap - EXIT
}

deb_check() {  # the Linux package: built, installed, checked as a program, a desktop app, upgraded, removed
  local version debs person entry exec_line data
  version=$(.venv/bin/python -c "import k2desk; print(k2desk.__version__)")
  debs=$(mktemp -d)
  person=$(mktemp -d)  # a person's home: the app keeps their collections in $person/.local/share/k2desk
  # shellcheck disable=SC2064  # the folders named now
  trap "dpkg -P k2desk > /dev/null 2>&1 || true; rm -rf '$debs' '$person'" EXIT
  scripts/build_deb.sh --version "$version~older" --out "$debs"
  scripts/build_deb.sh --out "$debs"
  dpkg -i "$debs/k2desk_${version}~older_amd64.deb" > /dev/null || {
    echo "dpkg -i failed: the window's libraries are the package's dependencies (apt-get install ./k2desk_…deb brings them)" >&2; exit 1; }
  echo "== installed k2desk $version~older: $(dpkg -s k2desk | sed -n 's/^Installed-Size: //p') KiB"
  entry=/usr/share/applications/k2desk.desktop
  desktop-file-validate "$entry"
  [ -L /usr/bin/k2desk ] && [ -f /usr/share/icons/hicolor/scalable/apps/k2desk.svg ]
  grep -qx 'MimeType=inode/directory;' "$entry"
  echo "  desktop entry valid ($entry), icon installed, offered for folders (inode/directory)"
  # a person's collection, made with the older package, in their own data folder
  cp -r resources/sample "$person/sample"
  (cd "$person" && env -u K2DESK_MODELS -u K2DESK_HOME -u XDG_DATA_HOME HOME="$person" /usr/bin/k2desk --threads "$THREADS" \
      index "$person/sample") > /dev/null
  data="$person/.local/share/k2desk/collections/default.k2db"
  [ -f "$data" ] || { echo "the collection is not in the platform's data folder: $(find "$person" -name '*.k2db')" >&2; exit 1; }
  # the app as the menu starts it: its Exec line, a folder for %F ("Open with k2desk"), on an X server
  mkdir -p "$person/notes" && echo "The village bakery opens at six in the morning." > "$person/notes/bakery.txt"
  exec_line=$(sed -n 's/^Exec=//p' "$entry")
  # shellcheck disable=SC2086  # the Exec line's words
  (cd "$person" && env -u K2DESK_MODELS -u K2DESK_HOME -u XDG_DATA_HOME -u QT_QPA_PLATFORM HOME="$person" \
      K2DESK_GUI_SELFTEST="$DEMO_QUESTION" K2DESK_GUI_SELFTEST_METHOD=k2rag \
      xvfb-run -a ${exec_line/\%F/$person/notes}) 2> "$person/gui.err" | grep '^{' > "$person/gui.json" || {
    echo "  the app started from its desktop entry gave no answer:"; tail -20 "$person/gui.err"; exit 1; }
  "$PY" - "$person/gui.json" <<'PYCHECK'
import json, sys
data = json.loads(open(sys.argv[1], encoding="utf-8").read())
assert data["ok"] and data["platform"] == "xcb" and "Henrike Albers" in data["answer"], data
print(f"  the app from its desktop entry ({data['platform']}): {data['answer'].strip()[:60]!r}")
PYCHECK
  (cd "$person" && env -u K2DESK_MODELS -u K2DESK_HOME -u XDG_DATA_HOME HOME="$person" /usr/bin/k2desk docs list) > "$person/docs.txt"
  grep -q "bakery.txt" "$person/docs.txt" || { echo "  the folder opened with the app was not taken in:"; cat "$person/docs.txt"; exit 1; }
  echo "  the folder given to Exec (%F) was taken into the collection: $(grep bakery.txt "$person/docs.txt" | tr -s ' ' | head -c 100)"
  # the checks every bundle passes, through the installed program (its own temporary homes)
  check_bin /usr/bin/k2desk
  # shellcheck disable=SC2064
  trap "dpkg -P k2desk > /dev/null 2>&1 || true; rm -rf '$debs' '$person'" EXIT
  # an upgrade keeps the person's collection, and it answers
  dpkg -i "$debs/k2desk_${version}_amd64.deb" > /dev/null
  [ "$(dpkg -s k2desk | sed -n 's/^Version: //p')" = "$version" ]
  (cd "$person" && env -u K2DESK_MODELS -u K2DESK_HOME -u XDG_DATA_HOME HOME="$person" /usr/bin/k2desk --threads "$THREADS" \
      ask "$DEMO_QUESTION") > "$person/after.txt"
  grep -q "Henrike Albers" "$person/after.txt" || { echo "  after the upgrade:"; cat "$person/after.txt"; exit 1; }
  echo "  upgraded to $version: the collection made before answers ($(head -n 1 "$person/after.txt"))"
  # removal: the program goes, the person's collections stay
  dpkg -r k2desk > /dev/null
  for gone in /opt/k2desk /usr/bin/k2desk "$entry" /usr/share/icons/hicolor/scalable/apps/k2desk.svg; do
    [ ! -e "$gone" ] && [ ! -L "$gone" ] || { echo "dpkg -r left $gone" >&2; exit 1; }
  done
  [ -f "$data" ] || { echo "dpkg -r took the person's collection ($data)" >&2; exit 1; }
  echo "  removed: /opt/k2desk, /usr/bin/k2desk, the entry and the icon gone; the $(du -h "$data" | cut -f1) collection kept in the person's data folder"
  dpkg -P k2desk > /dev/null  # purged: nothing of the package left on this machine (its postrm kept it listed)
  rm -rf "$debs" "$person"
  trap - EXIT
}

if [ "$MODE" = deb ]; then
  deb_check
else
  for bin in "${bins[@]}"; do check_bin "$bin"; done
fi
echo "bundle check passed: ${bins[*]}"
