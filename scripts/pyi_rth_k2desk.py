"""PyInstaller runtime hook: a bundled build finds the models it carries (unless K2DESK_MODELS is set)."""

import os
import sys

_bundle = getattr(sys, "_MEIPASS", None)
if _bundle and not os.environ.get("K2DESK_MODELS") and os.path.isdir(os.path.join(_bundle, "models")):
    os.environ["K2DESK_MODELS"] = os.path.join(_bundle, "models")
