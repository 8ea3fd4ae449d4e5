"""k2desk: an offline desktop assistant for questions about your own documents."""

__version__ = "0.1.0"
