#!/usr/bin/env bash
# The Linux package (issue 56): dist/k2desk_<version>_amd64.deb from the one-dir bundle
# (dist/k2desk: `K2DESK_BUNDLE=onedir .venv/bin/pyinstaller build.spec`, or scripts/check_bundle.sh).
#   /opt/k2desk/                                 the bundle as built (the models inside it)
#   /usr/bin/k2desk                              a link to it: the command line and, with no command, the app
#   /usr/share/applications/k2desk.desktop       the menu entry, and "Open with k2desk" for folders
#                                                (packaging/linux/k2desk.desktop: `k2desk open %F`)
#   /usr/share/icons/hicolor/scalable/apps/k2desk.svg   the icon (k2desk/gui/k2desk.svg)
# A person's collections and settings are in their own data folder (~/.local/share/k2desk), which
# the package never touches: they stay across upgrades and removal. Depends names the libraries the
# app's window needs (k2desk/runtime/qt_platform.py's list, apt names), so `apt install ./k2desk_….deb`
# brings them; dpkg -i alone does not.
# Usage: scripts/build_deb.sh [--bundle DIR] [--version V] [--out DIR] [--compress zstd|gzip|none]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUNDLE=dist/k2desk
OUT=dist
VERSION=
COMPRESS=zstd
while [ $# -gt 0 ]; do
  case $1 in
    --bundle) BUNDLE=$2; shift 2 ;;
    --version) VERSION=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --compress) COMPRESS=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "build_deb: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
PY=$ROOT/.venv/bin/python
[ -x "$PY" ] || PY=$(command -v python3)
command -v dpkg-deb > /dev/null || { echo "build_deb: dpkg-deb is missing (apt-get install dpkg)" >&2; exit 2; }
[ -x "$BUNDLE/k2desk" ] || { echo "build_deb: no one-dir bundle at $BUNDLE (K2DESK_BUNDLE=onedir .venv/bin/pyinstaller build.spec)" >&2; exit 2; }
[ -n "$VERSION" ] || VERSION=$("$PY" -c "import k2desk; print(k2desk.__version__)")
case $(uname -m) in x86_64) ARCH=amd64 ;; aarch64) ARCH=arm64 ;; *) ARCH=$(uname -m) ;; esac
STAGE=$OUT/deb-stage
DEB=$OUT/k2desk_${VERSION}_${ARCH}.deb
t0=$(date +%s)
rm -rf "$STAGE"
mkdir -p "$STAGE/DEBIAN" "$STAGE/opt" "$STAGE/usr/bin" "$STAGE/usr/share/applications" \
         "$STAGE/usr/share/icons/hicolor/scalable/apps" "$STAGE/usr/share/doc/k2desk"
# hard links where the stage shares the bundle's file system (2 GB of models not copied), else a copy
cp -al "$BUNDLE" "$STAGE/opt/k2desk" 2>/dev/null || cp -a "$BUNDLE" "$STAGE/opt/k2desk"
# the models' check stamps (k2desk/runtime/models.py) are the package's own files: where the program
# runs as root it writes them, and dpkg -r then removes them with the rest (a person's own checks go
# to their cache folder, since they cannot write here)
find "$STAGE/opt/k2desk/_internal/models" -type d | while read -r d; do
  [ -e "$d/.k2desk-verified.json" ] || echo '{}' > "$d/.k2desk-verified.json"
done
ln -s /opt/k2desk/k2desk "$STAGE/usr/bin/k2desk"
install -m 644 packaging/linux/k2desk.desktop "$STAGE/usr/share/applications/k2desk.desktop"
install -m 644 k2desk/gui/k2desk.svg "$STAGE/usr/share/icons/hicolor/scalable/apps/k2desk.svg"
printf 'k2desk %s: offline answers about your own documents.\nThe models inside /opt/k2desk keep their own licences (models/manifest.json).\n' \
  "$VERSION" > "$STAGE/usr/share/doc/k2desk/copyright"
depends=$("$PY" -c "from k2desk.runtime.qt_platform import PACKAGES
print(', '.join(['libc6'] + sorted({apt for apt, *_ in PACKAGES.values()})))")
installed_kb=$(du -sk --apparent-size "$STAGE" | cut -f1)
cat > "$STAGE/DEBIAN/control" <<CONTROL
Package: k2desk
Version: $VERSION
Section: utils
Priority: optional
Architecture: $ARCH
Maintainer: k2desk developers <k2desk@localhost>
Installed-Size: $installed_kb
Depends: $depends
Description: offline answers about your own documents, with their sources
 Drop a folder on the window, watch it index, ask questions: short answers with the
 passages they came from, written by a local language model. Nothing leaves the machine.
 The command line (k2desk --help) has the same powers.
CONTROL
for script in postinst postrm; do  # the menu and the icon cache see the entry; nothing else is done
  cat > "$STAGE/DEBIAN/$script" <<'SCRIPT'
#!/bin/sh
set -e
if command -v update-desktop-database > /dev/null 2>&1; then update-desktop-database -q /usr/share/applications || true; fi
if command -v gtk-update-icon-cache > /dev/null 2>&1; then gtk-update-icon-cache -q -t -f /usr/share/icons/hicolor || true; fi
exit 0
SCRIPT
  chmod 755 "$STAGE/DEBIAN/$script"
done
case $COMPRESS in
  zstd) z=(-Zzstd -z3) ;;  # the GGUF weights barely compress: fast beats small here
  gzip) z=(-Zgzip -z6) ;;
  none) z=(-Znone) ;;
  *) echo "build_deb: --compress zstd|gzip|none" >&2; exit 2 ;;
esac
dpkg-deb --root-owner-group "${z[@]}" --build "$STAGE" "$DEB" > /dev/null
rm -rf "$STAGE"
echo "built $DEB: $(du -h "$DEB" | cut -f1), $((installed_kb / 1024)) MiB installed, in $(( $(date +%s) - t0 )) s"
