"""The package's layers, as the README draws them: a module imports only from its own layer or a
lower one, and no chain of imports comes back to where it started (lazy imports inside functions
count too)."""

import ast
import re
from pathlib import Path

import networkx as nx

PACKAGE = Path(__file__).resolve().parents[1] / "k2desk"
LAYERS = (  # lowest first; the first part of a module's name below k2desk/ decides its layer
    {"k2desk", "errors", "types", "progress", "prompts", "config", "verdict"},  # the vocabulary every layer shares
    {"text", "ingest"},  # reading files, normalizing text, chunking, names
    {"store"},  # the collection's SQLite file
    {"runtime"},  # models: embedder, LLMs, summarizers, devices
    {"graph"},  # building and searching the knowledge graph
    {"indexing"},  # the indexing stages and their runner
    {"methods"},  # the ways of answering
    {"conversation", "hops"},  # a message read against the turns before it; a bridge question hop by hop
    # (both above the methods, which know no threads and read each question once)
    {"engine"},  # one collection: index, ask, history
    {"doctor"},  # what runs where: the CLI's `doctor` and the app's About box both read it
    {"console", "history_markdown", "commands", "chat", "cli", "__main__", "eval", "gui", "serve"},  # what a person uses
)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def submodule(module: str, name: str) -> str:
    """``from k2desk.eval import runner`` imports the module k2desk.eval.runner, not the package."""
    path = PACKAGE.parent.joinpath(*module.split("."), name)
    return f"{module}.{name}" if path.with_suffix(".py").is_file() or path.is_dir() else module


def imports() -> nx.DiGraph:
    """Module -> every k2desk module it imports, at the top or inside a function."""
    graph = nx.DiGraph()
    for path in PACKAGE.rglob("*.py"):
        source = module_name(path)
        graph.add_node(source)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([submodule(node.module, a.name) for a in node.names]
                     if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else
                     [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            for name in names:
                if name == "k2desk" or name.startswith("k2desk."):
                    graph.add_edge(source, name)
    return graph


def layer(module: str) -> int:
    part = module.split(".")[1] if "." in module else "k2desk"
    found = [i for i, members in enumerate(LAYERS) if part in members]
    assert found, f"{module} is in no layer: add {part!r} to LAYERS (and to the README's picture)"
    return found[0]


def test_every_import_goes_to_the_same_or_a_lower_layer():
    upward = [f"{a} (layer {layer(a)}) imports {b} (layer {layer(b)})"
              for a, b in imports().edges if layer(b) > layer(a)]
    assert upward == []


def test_no_import_cycles():
    graph = imports()
    graph.remove_edges_from([(a, b) for a, b in list(graph.edges) if b == "k2desk"])  # __version__ only
    assert list(nx.simple_cycles(graph)) == []


def test_the_test_sees_the_imports():  # the checks above would pass on an empty graph
    graph = imports()
    assert graph.has_edge("k2desk.engine", "k2desk.methods.base")
    assert graph.has_edge("k2desk.ingest.readers", "k2desk.ingest.corpus")
    assert layer("k2desk.store.graph") < layer("k2desk.indexing.graph") < layer("k2desk.methods.k2rag")


def test_the_code_cites_only_files_the_repository_has():
    """Docstrings once cited the project's spec and papers, which live outside the repository."""
    cited = re.compile(r"\b(?:[\w.-]+/)*[A-Z][A-Z_]+\.md\b|\bpapers/[\w.-]+|\bdocs/[\w./-]+\w")
    missing = [f"{path.relative_to(PACKAGE.parent)}: {name}" for path in PACKAGE.rglob("*.py")
               for name in cited.findall(path.read_text(encoding="utf-8"))
               if not (PACKAGE.parent / name).exists()]
    assert missing == []


def test_sql_lives_in_the_store_only():
    statement = re.compile(r"\b(?:SELECT \S+.* FROM|INSERT (?:OR \w+ )?INTO|UPDATE \w+ SET|DELETE FROM|"
                           r"CREATE (?:TABLE|INDEX|VIRTUAL)|DROP (?:TABLE|INDEX)|PRAGMA \w)")
    outside = [f"{path.relative_to(PACKAGE.parent)}:{n}" for path in PACKAGE.rglob("*.py") if "store" not in path.parts
               for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if statement.search(line)]
    assert outside == []
    assert statement.search('db.all("SELECT id FROM entities")')  # the pattern finds what it looks for
