"""The package's process switches: set before any module loads the libraries that read them."""

import os
import subprocess
import sys

from k2desk import RUNTIME_ENV

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROBE = ("import os, sys; import k2desk.engine; loaded = 'numpy' in sys.modules; "
         "print(os.environ.get('OPENBLAS_THREAD_TIMEOUT'), loaded)")


def _probe(env: dict) -> str:
    proc = subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_openblas_threads_sleep_at_once_unless_the_user_says_otherwise():
    clean = {k: v for k, v in os.environ.items() if k not in RUNTIME_ENV}
    assert _probe(clean) == "4 True"  # the engine loads numpy, after the switch is set
    assert _probe({**clean, "OPENBLAS_THREAD_TIMEOUT": "12"}) == "12 True"
