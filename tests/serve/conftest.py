"""The README's sample indexed once with the default models, for every test that serves it (the
OpenAI API, MCP over stdio and over Streamable HTTP)."""

from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "sample"


@pytest.fixture(scope="session")
def sample_home(tmp_path_factory, indexed_with_defaults) -> Path:
    """A k2desk home holding the collection "sample"."""
    tmp = tmp_path_factory.mktemp("sample")
    indexed_with_defaults(tmp, SAMPLE, "sample").close()
    return tmp / "home"
