"""`k2desk serve`: the collections behind a local OpenAI-compatible HTTP API, with their sources.

options (what the person allowed) → guard (Host, token, origins, body size) → app (the routes,
in the OpenAI wire format of ``wire``) → jobs (one model job at a time, a bounded queue) →
the engine. ``server`` runs it with uvicorn, from the command line or the app.
"""

from k2desk.serve.options import ServeOptions

__all__ = ["ServeOptions"]
