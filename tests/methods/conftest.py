"""The test world (tests/methods/support.py) as a fixture, and the README's sample documents in a
naive-profile collection (no model needed to build it): one of each per test module."""

import shutil
from pathlib import Path

import pytest

from k2desk.config import Settings
from k2desk.engine import Engine
from tests.methods.support import build_world


@pytest.fixture(scope="module")
def world(tmp_path_factory, models_dir):
    engine = build_world(tmp_path_factory.mktemp("world"), models_dir)
    yield engine
    engine.close()


SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "sample"


@pytest.fixture(scope="module")
def sample_engine(tmp_path_factory, models_dir):
    """A copy of resources/sample indexed (raw-text stores), its folder as ``engine.folder``."""
    home = tmp_path_factory.mktemp("sample")
    shutil.copytree(SAMPLE, home / "sample")
    settings = Settings(home=home / "home", models_dir=models_dir, llm="smollm2-135m", threads=2, build_profile="naive")
    with Engine(settings, "sample") as engine:
        engine.index([home / "sample"])
        engine.folder = home / "sample"  # type: ignore[attr-defined]
        yield engine
