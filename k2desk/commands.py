"""The CLI's commands: thin wrappers over the engine with progress bars and readable output."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Optional

from rich.console import Console

from k2desk.config import DEFAULT_COLLECTION, Settings
from k2desk.console import err, print_answer, progress_bars
from k2desk.engine import Engine, calibration_note
from k2desk.errors import K2Error, UsageError
from k2desk.ingest.document import reading_note
from k2desk.progress import CancelToken


def cmd_index(args: argparse.Namespace, settings: Settings) -> int:
    cancel = CancelToken()
    with Engine(settings, args.collection) as engine, progress_bars(not args.json) as bars:
        try:
            report = engine.index(args.paths, progress=bars, cancel=cancel)
        except KeyboardInterrupt:  # Ctrl-C or `kill`: what is indexed stays, a rerun skips it
            cancel.cancel()
            err.print("k2desk: indexing interrupted; run `k2desk index` again to resume")
            return 130
    if args.json:
        print(json.dumps(report.__dict__, indent=2, default=str))
    else:
        out = Console(highlight=False, soft_wrap=True)
        out.print(f"indexed into collection '{args.collection}' ({engine.where}):")
        out.print(f"  {report.summary()}")
        for key, reason in report.failed:
            out.print(f"  [red]failed[/red]  {reason if key.endswith(reason.split(':')[0]) else key + ': ' + reason}")
        for path, reason in report.unsupported:
            out.print(f"  [yellow]skipped[/yellow] {path}: {reason}")
    if report.cancelled:
        err.print("k2desk: indexing cancelled; run `k2desk index` again to resume")
        return 1
    return 0


def _thread_arg(value: Optional[str]) -> Optional[int]:
    """--thread: None (no conversation), 0 ('new'), or a conversation's id."""
    if value is None:
        return None
    if value.strip().lower() == "new":
        return 0
    try:
        return int(value)
    except ValueError:
        raise UsageError(f"--thread takes 'new' or a conversation's number, not {value!r}") from None


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    streaming = not args.json and sys.stdout.isatty()
    streamed: list[str] = []

    def on_token(token: str) -> None:
        streamed.append(token)
        print(token, end="", flush=True)

    thread = _thread_arg(getattr(args, "thread", None))
    documents = [str(d) for d in args.doc or []]
    if getattr(args, "all", False) and thread is None:
        raise UsageError("--all widens a conversation (--thread ID) to the whole collection")
    with Engine(settings, args.collection) as engine:
        if thread is None:
            answer = engine.ask(args.question, method=args.method or "k2rag", on_token=on_token if streaming else None,
                                remember=True, documents=documents)
        else:
            answer = engine.converse(args.question, thread=thread or None, method=args.method,
                                     documents=[] if args.all else (documents or None),
                                     on_token=on_token if streaming else None)
    if args.json:
        print(json.dumps(answer.to_json(), ensure_ascii=False, indent=2))
        return 0
    print_answer(answer, streamed if streaming else [])
    if answer.verdict.calibration == "defaults":  # the reading model has no calibration: say so, once per answer
        err.print(f"note: {calibration_note(settings)}", highlight=False)
    if thread is not None:
        err.print(f"conversation {answer.conversation.get('thread')}: continue it with --thread "
                  f"{answer.conversation.get('thread')}", highlight=False)
    return 0


def cmd_chat(args: argparse.Namespace, settings: Settings) -> int:
    from k2desk.chat import run_chat

    with Engine(settings, args.collection) as engine:
        documents = [str(d) for d in args.doc or []]
        if documents:
            engine.scope(documents)  # a path that names no document: one line, before the first question
        return run_chat(engine, args.method, documents, args.thread)


def cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    """The collections as MCP tools over stdio: nothing but protocol messages on stdout."""
    from k2desk.methods.registry import method_spec
    from k2desk.serve.mcp_tools import run_stdio
    from k2desk.serve.options import index_folders

    collections = args.collection or (settings.list_collections() if not settings.store else [DEFAULT_COLLECTION])
    if not settings.store:
        missing = [c for c in collections if not settings.collection_path(c).is_file()]
        if missing or not collections:
            raise UsageError(f"no collection {(missing or ['default'])[0]!r} in {settings.collections_dir} "
                             "(`k2desk index -c NAME PATH` makes one)")
    method_spec(args.method)  # an unknown method: one line before the client connects
    folders = index_folders(args.allow_index)
    err.print(f"k2desk mcp: serving {', '.join(collections)} over stdio (Ctrl-D or the client closing it stops it)",
              highlight=False)
    if folders:
        err.print(f"  the index tool may index under: {', '.join(map(str, folders))}", highlight=False)
    run_stdio(settings, collections, args.method, folders)
    return 0


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    from k2desk.serve import ServeOptions
    from k2desk.serve.server import Server, describe

    collections = args.collection or (settings.list_collections() if not settings.store else [DEFAULT_COLLECTION])
    if not settings.store:
        missing = [c for c in collections if not settings.collection_path(c).is_file()]
        if missing:
            raise UsageError(f"no collection {missing[0]!r} in {settings.collections_dir} (see `k2desk doctor`; "
                             "`k2desk index -c NAME PATH` makes one)")
    options = ServeOptions(collections, args.host, args.port, args.token, args.allow_origin, args.allow_host,
                           args.allow_index, queue=args.queue, method=args.method)
    server = Server(settings, options)
    describe(server.options)
    try:
        server.run()
    except KeyboardInterrupt:  # the signal uvicorn took, raised again once it stopped
        pass
    print(f"k2desk serve stopped after {server.served} request(s)")
    return 0


def _reading(meta: dict) -> dict:
    """How a document was read, for `docs list --json`: text layer or OCR, pages OCR'd, confidence."""
    keys = ("reading", "ocr_pages", "ocr_pages_read", "ocr_confidence", "ocr_engine")
    return {k: meta[k] for k in keys if meta.get(k) is not None}


def cmd_docs(args: argparse.Namespace, settings: Settings) -> int:
    with Engine(settings, args.collection) as engine:
        if args.docs_command == "remove":
            removed = engine.remove(args.path)
            if not removed:
                raise K2Error(f"no document matches {args.path} in collection '{args.collection}'; see `k2desk docs list`")
            for key in removed:
                print(f"removed {key}")
            return 0
        docs = engine.documents()
    if args.json:
        print(json.dumps([{"key": d.key, "title": d.title, "kind": d.kind, "status": d.status, "error": d.error,
                           "chunks": d.n_chunks, "stages": d.stages, **_reading(d.meta)} for d in docs],
                         indent=2, ensure_ascii=False))
        return 0
    for d in docs:
        extra = f"  ({d.error})" if d.error else f"  [{reading_note(d.meta)}]" if reading_note(d.meta) else ""
        print(f"{d.status:<10} {d.kind:<5} {d.n_chunks:>4} chunks  {d.key}{extra}")
    print(f"{len(docs)} documents")
    return 0


def cmd_history(args: argparse.Namespace, settings: Settings) -> int:
    from k2desk.history_markdown import history_markdown

    with Engine(settings, args.collection) as engine:
        if args.history_command == "clear":
            print(f"removed {engine.history.clear()} questions from the history of '{args.collection}'")
            return 0
        entries = engine.history.list()
    if args.history_command == "export":
        text = history_markdown(entries, args.collection)
        if str(args.file) == "-":
            sys.stdout.write(text)
        else:
            try:
                args.file.write_text(text, encoding="utf-8")
            except OSError as exc:
                raise K2Error(f"cannot write {args.file}: {exc.strerror or exc}") from exc
            print(f"wrote {len(entries)} question{'s' if len(entries) != 1 else ''} to {args.file}")
        return 0
    if args.json:
        print(json.dumps([asdict(e) for e in entries], indent=2, ensure_ascii=False))
        return 0
    for e in entries:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.asked_at))
        print(f"{when}  {e.method:<10} {e.question}\n    {' '.join(e.answer.split())[:160]}")
    print(f"{len(entries)} question{'s' if len(entries) != 1 else ''}")
    return 0


def cmd_models(args: argparse.Namespace, settings: Settings) -> int:
    from k2desk.runtime.models import ModelStore

    store = ModelStore(settings.models_dir)
    if args.models_command == "list":
        return _models_list(args, settings, store)
    if args.models_command == "use":
        return _models_use(args, settings)
    if args.models_command == "calibrate":
        return _models_calibrate(args, settings, store)
    if args.models_command == "prepare":
        with progress_bars() as bars:
            paths = store.prepare(args.names or None, progress=bars)
        for p in paths:
            print(f"ready {p}")
        return 0
    if args.models_command == "verify":
        bad = 0
        for name, ok, message in store.verify(args.names or None):
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {message}")
            bad += not ok
        return 1 if bad else 0
    if args.models_command == "export-summarizer":
        from k2desk.runtime.export import export_seq2seq

        name = args.name or args.src.name
        out = export_seq2seq(args.src, settings.models_dir / "summarizers" / name)
        print(f"exported {args.src} -> {out}")
        return 0
    raise K2Error(f"unknown models command {args.models_command}")


def _models_list(args: argparse.Namespace, settings: Settings, store) -> int:
    """k2desk's models, then the GGUF models other apps keep on this machine, each with its header's
    facts and whether a calibration is known for it."""
    from k2desk.runtime import calibration
    from k2desk.runtime.discover import discover

    rows = store.status()
    others = discover([*settings.model_folders, *map(str, args.folder)])
    known = {Path(r["path"]).resolve() for r in rows}
    others = [f for f in others if Path(f.path).resolve() not in known]
    marks = {f.path: calibration.find(Path(f.path), settings.home, store).calibrated if f.usable else False for f in others}
    if args.json:
        print(json.dumps({"k2desk": rows, "on_this_machine": [{**f.to_json(), "calibrated": marks[f.path]} for f in others]},
                         indent=2, default=str))
        return 0
    for r in rows:
        mark = "ready  " if r.get("present") else "missing"
        print(f"{mark} {r['name']:<22} {r['role']:<9} {r.get('purpose', '')}  {r.get('path', '')}")
    if others:
        print(f"\nalready on this machine ({len(others)}; `k2desk models use NAME` answers with one):")
    for f in others:
        if f.broken:
            print(f"broken  {f.name:<28} {f.app:<9} {f.broken}  {f.path}")
            continue
        facts = " ".join(x for x in (f.architecture, f.params_text(), f.quantization) if x)
        extra = f"{f.context_length:,} ctx" + ("" if f.chat_template else ", no chat template")
        print(f"ready   {f.name:<28} {f.app:<9} {facts}, {extra}, {f.size / (1 << 30):.1f} GiB"
              f"{', calibrated' if marks[f.path] else ''}  {f.path}")
    return 0


def _models_use(args: argparse.Namespace, settings: Settings) -> int:
    """Answer with another model from now on: resolved, checked against this machine's memory,
    written to settings.json; says whether a calibration is known for it."""
    from k2desk.engine import calibration_note
    from k2desk.runtime.discover import check_memory, resolve_llm
    from k2desk.runtime.models import ModelStore

    chosen = resolve_llm(settings, args.model)
    path = ModelStore(settings.models_dir).resolve_llm(chosen)  # ModelError: unknown, missing, no GGUF
    check_memory(path, settings.n_ctx, settings.gpu_layers)
    new = replace(settings, llm=chosen, reader_llm="auto", check_llm="auto")
    new.save()
    print(f"k2desk answers with {chosen} from now on ({path}; settings: {new.settings_file})")
    print(calibration_note(new))
    return 0


def _models_calibrate(args: argparse.Namespace, settings: Settings, store) -> int:
    """Fit a model's calibration on k2desk's set, report both halves, keep the record."""
    from k2desk.engine import reader_llm_name
    from k2desk.eval.calibrate import calibrate_model, report_lines, summary
    from k2desk.runtime.discover import resolve_llm

    name = resolve_llm(settings, args.model) if args.model else reader_llm_name(settings)
    with progress_bars() as bars:
        run = calibrate_model(settings, name, args.work, bars, limit=args.limit, out=args.out,
                              announce=lambda line: err.print(line, highlight=False))
    if args.json:
        print(json.dumps({"record": str(run.saved), **run.record}, indent=2, ensure_ascii=False))
        return 0
    print("\n".join(report_lines(run.report, "before" if run.before.calibrated else "defaults")))
    print(f"\n{run.name}: {summary(run.report)}\nthresholds: "
          + ", ".join(f"{k} {v}" for k, v in run.fitted.values().items()) + f"\nrecord: {run.saved}")
    return 0


def collection_at(settings: Settings, text: str) -> Path | str:
    """A collection named on the command line: a server's address, a .k2db file (or any path), or
    a collection's name (in the home folder, or on the server of --store)."""
    from k2desk.store.address import is_server_address

    if is_server_address(text):
        return text
    if text.endswith(".k2db") or "/" in text or "\\" in text:
        return Path(text).expanduser()
    return settings.collection_address(text)


def cmd_collection(args: argparse.Namespace, settings: Settings) -> int:
    from k2desk.store.address import open_database, shown_address
    from k2desk.store.copy import copy_collection
    from k2desk.store.db import migrations

    src_at, dst_at = collection_at(settings, args.src), collection_at(settings, args.dst)
    if isinstance(src_at, Path) and not src_at.is_file():
        raise K2Error(f"no collection {src_at}")
    src = open_database(src_at, readonly=True)  # never creates the source
    dst = None
    new_file = isinstance(dst_at, Path) and not dst_at.exists()
    copied = False
    try:
        if src.schema_version < migrations()[-1][0]:  # an older collection: migrated, as any command would
            src.close()
            src = open_database(src_at)
        dst = open_database(dst_at)
        with progress_bars() as bars:
            try:
                report = copy_collection(src, dst, replace=args.replace, progress=bars)
            except KeyboardInterrupt:
                err.print("k2desk: copy interrupted; the destination is as it was")
                return 130
        copied = True
    finally:
        src.close()
        if dst is not None:
            dst.close()
        if new_file and not copied:  # the file made for a copy that did not happen
            for leftover in (dst_at, dst_at.with_name(dst_at.name + "-wal"), dst_at.with_name(dst_at.name + "-shm")):
                leftover.unlink(missing_ok=True)
    print(f"copied {shown_address(src_at)} -> {shown_address(dst_at)}: {report.summary()}")
    return 0


def cmd_doctor(args: argparse.Namespace, settings: Settings) -> int:
    from k2desk.doctor import run

    settings.collection_address(args.collection)  # a bad name is a usage error (exit 2), not a finding
    report = run(settings, args.collection)
    print(json.dumps(report.to_json(), indent=2, ensure_ascii=False) if args.json else report.text())
    if not report.ok:  # the report is on stdout; the one-line reason goes to stderr (exit 1)
        raise K2Error(f"the main job cannot run: {report.reason}")
    return 0


def cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    if getattr(args, "retrieval", False):  # retrieval metrics only, no LLM
        from k2desk.eval.retrieval import retrieval_command

        return retrieval_command(args, settings)
    from k2desk.eval.runner import eval_command

    return eval_command(args, settings)
