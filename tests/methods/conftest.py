"""The test world (tests/methods/support.py) as a fixture: one per test module."""

import pytest

from tests.methods.support import build_world


@pytest.fixture(scope="module")
def world(tmp_path_factory, models_dir):
    engine = build_world(tmp_path_factory.mktemp("world"), models_dir)
    yield engine
    engine.close()
