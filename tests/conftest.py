"""Shared fixtures: the prepared models.

The suite assumes `k2desk models prepare` ran (CI does it first). A missing model FAILS the tests
that need it, so CI cannot pass by skipping; set K2DESK_ALLOW_MISSING_MODELS=1 to skip them instead
(e.g. on a machine without the models). K2DESK_MODELS points at another models folder.
"""

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
if str(ROOT) not in sys.path:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, str(ROOT))

os.environ["HF_HUB_OFFLINE"] = "1"  # nothing in the suite may reach a model hub
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# the models' saved prompt states (engine.prompt_states_dir) in a folder of this run, not the person's cache
os.environ.setdefault("K2DESK_STATES", tempfile.mkdtemp(prefix="k2desk-test-states-"))


def missing_model(message: str):
    """Skip when K2DESK_ALLOW_MISSING_MODELS=1, else fail loudly."""
    if os.environ.get("K2DESK_ALLOW_MISSING_MODELS") == "1":
        pytest.skip(message)
    pytest.fail(f"{message} (or set K2DESK_ALLOW_MISSING_MODELS=1 to skip these tests)", pytrace=False)


@pytest.fixture(scope="session")
def models_dir() -> Path:
    return Path(os.environ.get("K2DESK_MODELS") or ROOT / "models")


@pytest.fixture(scope="session")
def model_store(models_dir):
    from k2desk.runtime.models import ModelStore

    return ModelStore(models_dir)


@pytest.fixture(scope="session")
def embedder(model_store):
    """The all-MiniLM-L6-v2 ONNX embedder, 2 threads."""
    from k2desk.errors import ModelError
    from k2desk.runtime.embedder import Embedder

    try:
        return Embedder(model_store.resolve_embedder("all-minilm-l6-v2"), threads=2)
    except ModelError as exc:
        missing_model(str(exc))


@pytest.fixture(scope="session")
def tiny_llm_path(model_store) -> Path:
    """The prepared SmolLM2-135M GGUF (the tests' LLM)."""
    from k2desk.errors import ModelError

    try:
        return model_store.resolve_llm("smollm2-135m")
    except ModelError as exc:
        missing_model(str(exc))


@pytest.fixture(scope="session")
def indexed_with_defaults(models_dir, model_store):
    """``(tmp, folder, collection)`` -> an engine over a copy of ``folder`` in ``tmp``, indexed with
    the default settings and models (home ``tmp/home``); the caller closes it (``with … as e``)."""
    def index(tmp: Path, folder: Path, collection: str):
        from k2desk.config import Settings
        from k2desk.engine import Engine

        model_store.resolve_llm("qwen2.5-coder-0.5b")  # prepared by setup
        shutil.copytree(folder, tmp / "docs")
        engine = Engine(Settings(home=tmp / "home", models_dir=models_dir, threads=2), collection)
        engine.index([tmp / "docs"])
        return engine
    return index


@pytest.fixture
def folder(tmp_path) -> Path:
    """A copy of tests/fixtures/mixed: six good documents, three bad ones, one unsupported file."""
    dst = tmp_path / "docs"
    shutil.copytree(FIXTURES / "mixed", dst)
    return dst


@pytest.fixture(scope="session")
def postgres_server():
    """The address of a real PostgreSQL server with pgvector for this session (tests/store/backends.py)."""
    from tests.store.backends import start_postgres

    yield from start_postgres()


@pytest.fixture
def prefix(postgres_server):
    """A prefix for the names of this test's collections on the session's server; they are dropped after it."""
    import uuid

    import psycopg

    name = "t" + uuid.uuid4().hex[:10]
    yield name
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        for (schema,) in conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE %s", (name + "\\_%",)):
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, tmp_path):
    """Each collection backend in turn: ``backend.open()`` is a new collection on it."""
    from tests.store.backends import make_backend

    yield from make_backend(request, request.param, tmp_path)


@pytest.fixture(scope="session")
def ocr_engine(model_store):
    """The OCR engine (PP-OCRv6 through rapidocr), its models from the manifest, 2 threads."""
    from k2desk.errors import ModelError
    from k2desk.ingest.ocr import OcrEngine

    try:
        return OcrEngine(model_store.resolve_ocr(), threads=2)
    except ModelError as exc:
        missing_model(str(exc))


@pytest.fixture(scope="session")
def office_folder(tmp_path_factory):
    """The generated office folder (tests/ingest/office_folder.py) and its questions."""
    from tests.ingest.office_folder import make_office_folder

    folder = tmp_path_factory.mktemp("office") / "office"
    return folder, make_office_folder(folder)


def replayed_llm(model_store, name: str, replies: Path):
    """A real GGUF model answering from recorded replies (runtime/replay.py; K2DESK_RECORD=1
    records what is missing): yields the replaying model, closes the real one after."""
    from k2desk.errors import ModelError
    from k2desk.runtime.llm import LLM
    from k2desk.runtime.replay import ReplayLLM

    try:
        path = model_store.resolve_llm(name)
    except ModelError as exc:
        missing_model(str(exc))
    real = LLM(path, n_ctx=4096, threads=2, seed=0)  # its tokenizer builds the same prompts as when recorded
    try:
        yield ReplayLLM(real, replies, record=os.environ.get("K2DESK_RECORD") == "1")
    finally:
        real.close()
