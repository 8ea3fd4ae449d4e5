"""``k2desk`` on a real X display (Xvfb), and the one line it prints where it cannot open a window.

Setup installs Xvfb and the Qt platform libraries when it runs as root with apt (as CI does);
CI sets K2DESK_REQUIRE_XVFB=1 so this test cannot pass there by skipping.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from k2desk.runtime import qt_platform as platform_check

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "Who leads the Lindenfeld Solar Cooperative?"


def app_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    env.update(PYTHONPATH=str(ROOT), **extra)
    return env


@pytest.fixture
def display():
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        if os.environ.get("K2DESK_REQUIRE_XVFB") == "1":
            pytest.fail("Xvfb is not installed (scripts/setup.sh installs it when run as root with apt)")
        pytest.skip("Xvfb is not installed")
    read, write = os.pipe()
    server = subprocess.Popen([xvfb, "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as f:
        number = f.readline().strip()  # Xvfb writes the display it took once it accepts clients
    assert number.isdigit(), "Xvfb did not start"
    yield f":{number}"
    server.terminate()
    server.wait(10)


def test_k2desk_opens_its_window_on_an_x_display_and_answers_through_it(display, tmp_path, models_dir):
    assert platform_check.problem({"DISPLAY": display}) is None
    env = app_env(K2DESK_MODELS=str(models_dir))
    k2desk = [sys.executable, "-m", "k2desk", "--home", str(tmp_path / "home")]
    subprocess.run([*k2desk, "index", str(ROOT / "resources" / "sample")], env=env, check=True, capture_output=True,
                   timeout=600)
    done = subprocess.run([*k2desk, "--llm", "smollm2-135m", "--threads", "1"], capture_output=True, text=True,
                          timeout=600, env={**env, "DISPLAY": display, "K2DESK_GUI_SELFTEST": QUESTION,
                                            "K2DESK_GUI_SELFTEST_METHOD": "keyword"})
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["ok"] and result["platform"] == "xcb"  # a real X11 window, not the offscreen plugin
    assert Path(result["sources"][0]["document"]).name == "solar-cooperative.md"


def run_app_without(env: dict, absent: str = "") -> subprocess.CompletedProcess:
    """``k2desk`` with no command; ``absent`` adds a library the plugin would load that no system has."""
    code = ("import sys; from k2desk.runtime import qt_platform as p; "
            f"p.DLOPENED = p.DLOPENED + tuple(filter(None, [{absent!r}])); "
            "from k2desk.cli import main; sys.exit(main(sys.argv[1:]))")
    return subprocess.run([sys.executable, "-c", code, "--home", str(env["K2DESK_HOME"])], env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_missing_platform_library_is_one_line_naming_it_and_its_package(tmp_path):
    done = run_app_without(app_env(DISPLAY=":97", K2DESK_HOME=str(tmp_path)), absent="libxcb-cursor-absent.so.7")
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("k2desk: error: the desktop app needs the X11 libraries")
    assert "libxcb-cursor-absent.so.7" in lines[0] and "QT_QPA_PLATFORM=offscreen" in lines[0]
    assert "Aborted" not in done.stderr and done.stdout == ""


def test_no_display_is_one_line_too(tmp_path):
    done = run_app_without(app_env(K2DESK_HOME=str(tmp_path)))
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "DISPLAY is empty" in lines[0] and "k2desk --help" in lines[0]


@pytest.mark.parametrize("os_release, manager, command", [
    ('ID=debian\nVERSION_ID="12"', "apt", "sudo apt-get install -y libxcb-cursor0 libxcb-icccm4"),
    ('ID=ubuntu\nID_LIKE=debian', "apt", "sudo apt-get install -y libxcb-cursor0 libxcb-icccm4"),
    ('ID="fedora"', "dnf", "sudo dnf install -y xcb-util-cursor xcb-util-wm"),
    ('ID="rocky"\nID_LIKE="rhel centos fedora"', "dnf", "sudo dnf install -y xcb-util-cursor xcb-util-wm"),
    ('ID=arch', "pacman", "sudo pacman -S --needed xcb-util-cursor xcb-util-wm"),
    ('ID="opensuse-tumbleweed"\nID_LIKE="opensuse suse"', "zypper",
     "sudo zypper install -y libxcb-cursor0 libxcb-icccm4"),
    ('ID=gentoo', None, None),
])
def test_install_command_for_each_distribution(os_release, manager, command):
    assert platform_check.package_manager(os_release) == manager
    assert platform_check.install_command(["libxcb-cursor.so.0", "libxcb-icccm.so.4"], manager) == command


def test_ldd_reports_what_a_binary_lacks(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if shutil.which("ldd") is None or cc is None:
        pytest.skip("no ldd or C compiler")
    (tmp_path / "stub.c").write_text("int stub(void) { return 1; }\n")
    (tmp_path / "main.c").write_text("int stub(void);\nint main(void) { return stub(); }\n")
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(tmp_path / "libk2stub.so.3"), "-Wl,-soname,libk2stub.so.3",
                    str(tmp_path / "stub.c")], check=True)
    subprocess.run([cc, "-o", str(tmp_path / "main"), str(tmp_path / "main.c"), str(tmp_path / "libk2stub.so.3")],
                   check=True)
    (tmp_path / "libk2stub.so.3").unlink()  # the binary now needs a library this system lacks
    assert platform_check.linked_missing([tmp_path / "main"]) == ["libk2stub.so.3"]
    assert platform_check.linked_missing([Path(sys.executable).resolve(), tmp_path / "absent.so"]) == []
    assert platform_check.problem({"QT_QPA_PLATFORM": "offscreen"}) is None
    assert platform_check.problem({"WAYLAND_DISPLAY": "wayland-0"}) is None
