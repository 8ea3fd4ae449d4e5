"""The command line, per the contract in the README ("Using it"). Exit 0 ok, 2 usage error, 1 failure;
expected failures print one line on stderr, never a traceback."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Optional, Sequence

from k2desk import __version__
from k2desk.config import DEFAULT_COLLECTION, GRAPH_EXTRACTORS, SUMMARIZER_BACKENDS, Settings
from k2desk.errors import K2Error, UsageError
from k2desk.methods.registry import METHOD_NAMES


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False, argument_default=argparse.SUPPRESS)  # global flags go before or after the command
    common.add_argument("--home", type=Path, help="data folder (env K2DESK_HOME; default: the platform's user data dir)")
    common.add_argument("--llm", help="model name from `k2desk models list`, or the path of any GGUF file")
    common.add_argument("--llm-url", help="an OpenAI-compatible server to answer with instead of the local model "
                        "(llama-server, Ollama, LM Studio, vLLM), e.g. http://127.0.0.1:8080")
    common.add_argument("--store", metavar="ADDRESS", help="a team's PostgreSQL server (with pgvector) holding the "
                        "collections, e.g. postgresql://ann@db.example/team (default: one file per collection in the home folder)")
    common.add_argument("--gpu-layers", type=int, help="layers to offload to the GPU (-1: all, 0: CPU only)")
    common.add_argument("--threads", type=int, help="CPU threads for the LLM and the embedder")
    common.add_argument("--summarizer", choices=SUMMARIZER_BACKENDS, help="summarizer backend (auto: ONNX when exported, "
                        "else the LLM on a GPU, else extractive)")
    common.add_argument("--graph-extractor", choices=GRAPH_EXTRACTORS, help="knowledge-graph extraction: fast (spaCy, no "
                        "LLM), llm (one LLM call per chunk), auto (llm on a GPU, else fast)")
    coll = _Parser(add_help=False)
    coll.add_argument("--collection", "-c", default=DEFAULT_COLLECTION, help="collection name (default: %(default)s)")

    p = _Parser(prog="k2desk", description="Offline answers about your own documents (K²RAG).", parents=[common])
    p.add_argument("--version", action="version", version=f"k2desk {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)

    s = sub.add_parser("index", parents=[common, coll], help="index files, folders or a corpus .jsonl")
    s.add_argument("paths", nargs="*", type=Path, help="files or folders (none: resume unfinished work)")
    s.add_argument("--json", action="store_true", help="print the report as JSON")

    s = sub.add_parser("ask", parents=[common, coll], help="answer a question from a collection")
    s.add_argument("question")
    s.add_argument("--method", "-m", default=None, choices=METHOD_NAMES, help="default: k2rag (a thread's own)")
    s.add_argument("--json", action="store_true", help="print one JSON object (answer, sources, trace, timings, llm)")
    s.add_argument("--doc", action="append", metavar="PATH",
                   help="ask about this document alone (repeatable; a folder means the documents under it)")
    s.add_argument("--thread", metavar="ID|new",
                   help="a conversation: 'new' starts one, an id continues it (a follow-up is read against its turns)")
    s.add_argument("--all", action="store_true", help="with --thread: ask the whole collection again (the thread's documents set aside)")

    s = sub.add_parser("chat", parents=[common, coll], help="a conversation with a collection (follow-up questions understood)")
    s.add_argument("--method", "-m", default=None, choices=METHOD_NAMES, help="default: k2rag (a continued thread's own)")
    s.add_argument("--doc", action="append", metavar="PATH", help="ask about this document alone (repeatable)")
    s.add_argument("--thread", type=int, metavar="ID", help="continue this conversation (/threads lists them)")

    s = sub.add_parser("mcp", parents=[common], help="serve collections to an assistant over the Model Context "
                       "Protocol on stdio (Claude Desktop, VS Code, LM Studio: docs/mcp.md); search, fetch, ask, list_documents")
    s.add_argument("--collection", "-c", action="append", help="a collection to serve (repeat; default: every one)")
    s.add_argument("--method", default="k2rag", help="the method ask answers with (default k2rag)")
    s.add_argument("--allow-index", action="append", default=[], type=Path, metavar="FOLDER",
                   help="offer an index tool for files under this folder (repeatable); default: no tool writes")
    s = sub.add_parser("serve", parents=[common], help="serve collections on a local OpenAI-compatible API "
                       "(chat completions with their sources, search, documents)")
    s.add_argument("--collection", "-c", action="append", metavar="NAME",
                   help="a collection to serve (repeatable; default: every collection)")
    s.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: %(default)s, this computer "
                   "only; any other needs --token)")
    s.add_argument("--port", type=int, default=8484, help="default: %(default)s (0: a free port)")
    s.add_argument("--token", default="", help="a Bearer token every request must carry (or env K2DESK_SERVE_TOKEN)")
    s.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                   help="a web page's origin allowed to call from a browser (CORS), e.g. http://localhost:3000")
    s.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="a name clients use for this computer (the Host header), beside its address")
    s.add_argument("--allow-index", action="append", default=[], type=Path, metavar="FOLDER",
                   help="requests may index files under this folder (POST /v1/documents); default: none")
    s.add_argument("--method", "-m", default="k2rag", choices=METHOD_NAMES, help="the method a collection's model "
                   "answers with (default: %(default)s; COLLECTION/METHOD names another)")
    s.add_argument("--queue", type=int, default=4, help="requests waiting for the model at most (beyond: 429)")

    s = sub.add_parser("open", parents=[common], help="open the app, indexing these files or folders as if dropped "
                       "on it (a file manager's \"Open with k2desk\")")
    s.add_argument("paths", nargs="*", type=Path, metavar="PATH")

    s = sub.add_parser("docs", parents=[common, coll], help="list or remove documents")
    dsub = s.add_subparsers(dest="docs_command", parser_class=_Parser, required=True)
    d = dsub.add_parser("list", parents=[common, coll])
    d.add_argument("--json", action="store_true")
    d = dsub.add_parser("remove", parents=[common, coll])
    d.add_argument("path", help="a document path/key, a folder or a corpus file")

    s = sub.add_parser("history", parents=[common, coll], help="the questions asked of a collection, and their answers")
    hsub = s.add_subparsers(dest="history_command", parser_class=_Parser, required=True)
    h = hsub.add_parser("list", parents=[common, coll])
    h.add_argument("--json", action="store_true")
    h = hsub.add_parser("export", parents=[common, coll], help="write them as Markdown with their sources")
    h.add_argument("file", type=Path, help="the Markdown file to write ('-': standard output)")
    hsub.add_parser("clear", parents=[common, coll])

    s = sub.add_parser("collection", parents=[common], help="copy a collection between files and a team's server")
    csub = s.add_subparsers(dest="collection_command", parser_class=_Parser, required=True)
    c = csub.add_parser("copy", parents=[common], help="copy every table of a collection (ids kept), counts checked")
    c.add_argument("src", help="a collection's name, a .k2db file, or postgresql://...?collection=NAME")
    c.add_argument("dst", help="the same kinds of place; created when missing")
    c.add_argument("--replace", action="store_true", help="overwrite a destination that already holds something")

    s = sub.add_parser("doctor", parents=[common, coll], help="what runs where (LLM build, GPU, embedder, models, "
                       "store, Qt, telemetry); exit 1 when the main job cannot run")
    s.add_argument("--json", action="store_true", help="print the report as one JSON object")

    s = sub.add_parser("eval", parents=[common], help="evaluate methods on a benchmark folder")
    s.add_argument("bench_dir", type=Path)
    s.add_argument("--methods", help="comma-separated methods (default: k2rag,hybrid,semantic,keyword,kg; "
                                     "with --retrieval: every method that retrieves without its LLM)")
    s.add_argument("--retrieval", action="store_true", help="retrieval metrics only (no LLM): Hits@4/10, MAP@10, MRR@10")
    s.add_argument("--oracle", action="store_true",
                   help="the reader alone: answer from the gold evidence facts (as method 'oracle'; add --methods to compare)")
    s.add_argument("--folds", type=int, default=10)
    s.add_argument("--limit", type=int)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--out", type=Path)
    s.add_argument("--queries", help="queries file name inside BENCH_DIR (default: queries.jsonl, else queries_sample.jsonl)")
    s.add_argument("--scope", choices=["evidence"],
                   help="ask each question about its own evidence documents only (a question written about one paper)")
    s.add_argument("--report-only", action="store_true",
                   help="only rewrite the report of the run in --out from its files (no model, no question asked)")

    s = sub.add_parser("models", parents=[common], help="list, prepare or verify models")
    msub = s.add_subparsers(dest="models_command", parser_class=_Parser, required=True)
    m = msub.add_parser("list", parents=[common], help="k2desk's models and the GGUF models already on this machine "
                        "(Ollama, LM Studio, GPT4All, Jan, the folders of settings' model_folders)")
    m.add_argument("--json", action="store_true")
    m.add_argument("--folder", action="append", type=Path, default=[], help="look in this folder too")
    m = msub.add_parser("use", parents=[common], help="answer with this model from now on (settings.json): a name "
                        "from `k2desk models list` or a GGUF path; checked first against this machine's memory")
    m.add_argument("model")
    m = msub.add_parser("calibrate", parents=[common], help="fit the thresholds that decide answered / cautioned / "
                        "declined for a model, on k2desk's calibration set (resumable; Ctrl-C stops it, answers kept)")
    m.add_argument("model", nargs="?", help="a name from `k2desk models list` or a GGUF path (default: the reading model)")
    m.add_argument("--work", type=Path, help="where its answers are kept by question id (default: in the home folder)")
    m.add_argument("--limit", type=int, help="only the set's first N questions (a quick look; too few to fit on)")
    m.add_argument("--out", type=Path, help="write the record here instead of the home folder's calibrations")
    m.add_argument("--json", action="store_true", help="print the report as JSON")
    m = msub.add_parser("prepare", parents=[common])
    m.add_argument("names", nargs="*", help="models to prepare (default: every non-optional one)")
    m = msub.add_parser("verify", parents=[common])
    m.add_argument("names", nargs="*")
    m = msub.add_parser("export-summarizer", parents=[common])
    m.add_argument("src", type=Path, help="a Hugging Face seq2seq model folder (BART, T5, LED)")
    m.add_argument("--name", help="name of the exported summarizer (default: the folder name)")
    return p


def settings_from(args: argparse.Namespace) -> Settings:
    flags = {k: getattr(args, k, None) for k in ("llm", "llm_url", "store", "gpu_layers", "threads", "summarizer",
                                       "graph_extractor")}
    settings = Settings.load(home=getattr(args, "home", None), **flags)
    if flags["llm"] and getattr(args, "models_command", None) != "use":
        from k2desk.runtime.discover import resolve_llm

        settings = replace(settings, llm=resolve_llm(settings, flags["llm"]))  # "qwen2.5:7b" (Ollama's) → its file
    return settings


def _terminate_like_ctrl_c(signum: int, frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second `kill` ends the process at once
    raise KeyboardInterrupt


def _sigterm_as_interrupt() -> Optional[object]:
    """`kill PID` stops a command the way Ctrl-C does: work done so far is kept and the command
    says how to resume. A job started in the background with `&` ignores SIGINT, so SIGTERM is
    how it gets stopped. Returns the previous handler (None when not on the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _terminate_like_ctrl_c)


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
        if args.command in (None, "open"):
            from k2desk.gui.app import run_app

            return run_app(settings_from(args), open_paths=getattr(args, "paths", None))
        settings = settings_from(args)
        from k2desk import commands

        previous = _sigterm_as_interrupt()
        try:
            return getattr(commands, f"cmd_{args.command}")(args, settings)
        finally:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)
    except K2Error as exc:
        print(f"k2desk: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("k2desk: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of the output went away (`k2desk ask … | head -1`): not an error
        _quiet_stdout()
        return 141  # as a process ended by SIGPIPE


def _quiet_stdout() -> None:
    """Point stdout at the null device, so that Python's last flush at exit does not report the
    broken pipe again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout is no file (captured): nothing to quiet
        pass


if __name__ == "__main__":
    raise SystemExit(main())
