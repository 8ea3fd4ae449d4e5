"""PyInstaller runtime hook, run before the bundle's own code: nothing phones home (the privacy
switches of k2desk/__init__.py, set before anything could load onnxruntime), and a bundled build
finds the models it carries (unless K2DESK_MODELS is set)."""

import os
import sys

import k2desk  # noqa: F401 - its import sets ORT_DISABLE_TELEMETRY and the Hugging Face offline switches

_bundle = getattr(sys, "_MEIPASS", None)
if _bundle and not os.environ.get("K2DESK_MODELS") and os.path.isdir(os.path.join(_bundle, "models")):
    os.environ["K2DESK_MODELS"] = os.path.join(_bundle, "models")
