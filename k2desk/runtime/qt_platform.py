"""Can the desktop app open a window here? Checked before Qt loads, because Qt's own answer to a
missing X11 library is a paragraph and ``abort()``.

On Linux, Qt's xcb platform plugin links a dozen X11/xkb/GL libraries that a minimal or server
install lacks, and loads ``libxcb-cursor.so.0`` at run time (Qt ≥ 6.5). ``problem()`` returns one
line naming what is missing and the distribution's install command (apt, dnf, pacman, zypper),
or None when the window can open. ``python -m k2desk.runtime.qt_platform [--install]`` is what
setup runs: it reports, and with ``--install`` (as root, with apt) installs the libraries and Xvfb.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional, Sequence

# soname -> package on (apt, dnf, pacman, zypper)
PACKAGES: dict[str, tuple[str, str, str, str]] = {
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor", "xcb-util-cursor", "libxcb-cursor0"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm", "xcb-util-wm", "libxcb-icccm4"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms", "xcb-util-keysyms", "libxcb-keysyms1"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image", "xcb-util-image", "libxcb-image0"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil", "xcb-util-renderutil",
                                "libxcb-render-util0"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util", "xcb-util", "libxcb-util1"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11", "libxkbcommon-x11", "libxkbcommon-x11-0"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon", "libxkbcommon", "libxkbcommon0"),
    "libxcb-xinerama.so.0": ("libxcb-xinerama0", "libxcb", "libxcb", "libxcb-xinerama0"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb", "libxcb", "libxcb-randr0"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb", "libxcb", "libxcb-shape0"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb", "libxcb", "libxcb-xkb1"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb", "libxcb", "libxcb-xfixes0"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb", "libxcb", "libxcb-sync1"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb", "libxcb", "libxcb-shm0"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb", "libxcb", "libxcb-render0"),
    "libxcb.so.1": ("libxcb1", "libxcb", "libxcb", "libxcb1"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb", "libx11", "libX11-xcb1"),
    "libX11.so.6": ("libx11-6", "libX11", "libx11", "libX11-6"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl", "libglvnd", "libEGL1"),
    "libGL.so.1": ("libgl1", "libglvnd-glx", "libglvnd", "libGL1"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl", "libglvnd", "libOpenGL0"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig", "fontconfig", "libfontconfig1"),
    "libfreetype.so.6": ("libfreetype6", "freetype", "freetype2", "libfreetype6"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs", "dbus", "libdbus-1-3"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2", "glib2", "libglib-2_0-0"),
}
MANAGERS = ("apt", "dnf", "pacman", "zypper")
INSTALL = {"apt": "sudo apt-get install -y", "dnf": "sudo dnf install -y", "pacman": "sudo pacman -S --needed",
           "zypper": "sudo zypper install -y"}
DLOPENED = ("libxcb-cursor.so.0",)  # loaded by the plugin at run time: invisible to ldd
HEADLESS = "for a headless run without a display: QT_QPA_PLATFORM=offscreen"


def qt_dir() -> Optional[Path]:
    """PySide6's Qt folder (plugins, lib), found without loading any Qt library."""
    try:
        import PySide6
    except ImportError:
        return None
    return Path(PySide6.__file__).resolve().parent / "Qt"


def linked_missing(binaries: Sequence[Path]) -> list[str]:
    """The libraries ``ldd`` reports "not found" for any of ``binaries`` (none if ldd is absent)."""
    ldd = shutil.which("ldd")
    missing: list[str] = []
    for binary in binaries:
        if ldd is None or not binary.is_file():
            continue
        out = subprocess.run([ldd, str(binary)], capture_output=True, text=True, check=False).stdout
        for line in out.splitlines():
            if "not found" in line:
                name = line.split("=>")[0].strip()
                if name not in missing:
                    missing.append(name)
    return missing


def loadable(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def missing_libraries(qt: Optional[Path] = None) -> list[str]:
    """Sonames the xcb platform plugin needs and this system lacks."""
    qt = qt or qt_dir()
    if qt is None:
        return []
    binaries = [qt / "plugins" / "platforms" / "libqxcb.so", *sorted((qt / "lib").glob("libQt6XcbQpa.so*"))[:1]]
    missing = linked_missing(binaries)
    return missing + [so for so in DLOPENED if so not in missing and not loadable(so)]


def package_manager(os_release: Optional[str] = None) -> Optional[str]:
    """apt | dnf | pacman | zypper from /etc/os-release (ID, then ID_LIKE), else None."""
    if os_release is None:
        try:
            os_release = Path("/etc/os-release").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    fields = dict(line.split("=", 1) for line in os_release.splitlines() if "=" in line)
    ids = " ".join(fields.get(k, "").strip().strip('"').lower() for k in ("ID", "ID_LIKE")).split()
    families = {"debian": "apt", "ubuntu": "apt", "fedora": "dnf", "rhel": "dnf", "centos": "dnf",
                "arch": "pacman", "manjaro": "pacman", "suse": "zypper", "sles": "zypper"}
    for i in ids:
        if i.startswith("opensuse"):
            return "zypper"
        if i in families:
            return families[i]
    return None


def install_command(sonames: Sequence[str], manager: Optional[str]) -> Optional[str]:
    if manager not in MANAGERS:
        return None
    column = MANAGERS.index(manager)
    packages = list(dict.fromkeys(PACKAGES[s][column] for s in sonames if s in PACKAGES))
    return f"{INSTALL[manager]} {' '.join(packages)}" if packages else None


def problem(environ: Optional[dict] = None) -> Optional[str]:
    """One line saying why the window cannot open here, or None."""
    env = os.environ if environ is None else environ
    if not sys.platform.startswith("linux"):
        return None
    platform = env.get("QT_QPA_PLATFORM", "").split(":")[0].strip()
    if platform and platform != "xcb":
        return None  # offscreen, wayland, vnc, …: Qt reports its own
    if not platform and env.get("WAYLAND_DISPLAY"):
        return None  # a Wayland session: Qt uses its wayland plugin
    if not env.get("DISPLAY"):
        return ("the desktop app needs a display and none is set (DISPLAY is empty): start k2desk from a desktop "
                f"session, or use the command line (k2desk --help); {HEADLESS}")
    missing = missing_libraries()
    if not missing:
        return None
    fix = install_command(missing, package_manager())
    how = f"install them with `{fix}`" if fix else "install them with your distribution's package manager"
    return (f"the desktop app needs the X11 libraries {', '.join(missing)}, which are not installed: {how} "
            f"({HEADLESS})")


def setup_check(install: bool) -> int:
    """Setup's step: report what is missing; as root with apt, install it (and Xvfb, for the tests)."""
    missing = missing_libraries()
    xvfb = shutil.which("Xvfb") is not None
    manager = package_manager()
    if install and (missing or not xvfb) and manager == "apt" and os.geteuid() == 0 and shutil.which("apt-get"):
        # Xvfb and its keyboard maps for the window tests; one font so text is drawn
        packages = sorted({p[0] for p in PACKAGES.values()} | {"xvfb", "xauth", "xkb-data", "x11-xkb-utils",
                                                              "fonts-dejavu-core"})
        print(f"installing the desktop app's X11 libraries and Xvfb ({len(packages)} packages, apt)", flush=True)
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        quiet = {"stdout": subprocess.DEVNULL, "env": env, "check": False}
        subprocess.run(["apt-get", "update", "-qq"], **quiet)
        done = subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages], **quiet)
        if done.returncode != 0:
            print("note: apt-get could not install them", file=sys.stderr)
        missing = missing_libraries()
    if missing:
        fix = install_command(missing, manager) or "your distribution's package manager"
        print(f"note: the desktop app (k2desk with no command) needs {', '.join(missing)}: {fix}")
        return 1
    print("desktop app: the Qt platform libraries are present")
    return 0


if __name__ == "__main__":
    sys.exit(setup_check(install="--install" in sys.argv[1:]))
