"""Errors a person can act on: one line each, no traceback for expected failures."""


class K2Error(Exception):
    """Base for every expected failure; str(e) is the one-line message shown to the user."""

    exit_code = 1


class UsageError(K2Error):
    exit_code = 2


class ModelError(K2Error):
    """A model file is missing, corrupt or cannot be loaded."""


class IngestError(K2Error):
    """A document could not be read (reported and skipped; the rest indexes)."""


class StoreError(K2Error):
    """The collection's SQLite file cannot be used."""


class Cancelled(K2Error):
    """The user cancelled a long operation."""
