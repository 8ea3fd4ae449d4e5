"""k2desk: an offline desktop assistant for questions about your own documents.

Nothing leaves the machine: this package is imported before any of its modules load
onnxruntime, so the switches below are set before a library could read them. onnxruntime 1.29+
Linux builds send 1DS telemetry unless ORT_DISABLE_TELEMETRY=1 is set before it initialises
(``onnxruntime.disable_telemetry_events()`` does not stop it); the others keep Hugging Face
libraries (build-time ONNX export only) off the network. Forced, not defaulted: the promise
does not depend on the user's environment.
"""

import os as _os

PRIVACY_ENV = {
    "ORT_DISABLE_TELEMETRY": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "DO_NOT_TRACK": "1",
}
_os.environ.update(PRIVACY_ENV)

# Defaults a user's environment may override, read when numpy loads its OpenBLAS (so, like the
# switches above, before any module imports numpy). OpenBLAS's threads spin for 2^28 cycles
# (~0.1 s) after each product before they sleep; the dense search's product (100k x 384 at
# 100,000 chunks) left both cores spinning while the question's embedding (ONNX) and BM25
# (SQLite) ran next to or after it. Measured at 100k chunks (benchmarks/bench_scale.py, one
# process, 55 dev questions): hybrid 53.1 -> 39.9 ms, semantic 23.5 -> 20.2 ms; 2^4 cycles
# (the least OpenBLAS allows) makes them sleep at once.
RUNTIME_ENV = {"OPENBLAS_THREAD_TIMEOUT": "4"}
for _key, _value in RUNTIME_ENV.items():
    _os.environ.setdefault(_key, _value)

__version__ = "0.1.0"
