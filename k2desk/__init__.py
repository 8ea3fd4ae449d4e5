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

__version__ = "0.1.0"
