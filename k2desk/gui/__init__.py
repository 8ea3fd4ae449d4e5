"""The desktop app (PySide6): collections, drop-to-index, ask with streamed answers, sources, the
trace of how an answer was found, and the knowledge graph around it.

Everything slow runs in QObject workers on QThreads (``workers.py``); each worker opens its own
``Engine`` (its own SQLite connection) in its thread and closes it when done. The widgets in
``widgets/`` know nothing about threads: they are fed by the main window.
"""
