"""``k2desk chat``: a conversation with a collection on the terminal.

Each line is a message of the current conversation (answered through Engine.converse, streamed,
with "Understood as" where a follow-up was rewritten, and its sources); lines starting with "/"
are commands. Ctrl-C while an answer is written stops that answer and keeps the conversation;
Ctrl-D (or /quit) ends it. Line editing and a history of what was typed come from readline where
the platform has it (kept in the home folder). While the next line is typed, the model reads what
a follow-up's rewrite reads before the follow-up (``Engine.read_ahead``), stopped when the line comes.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Optional, TextIO

from k2desk.console import print_answer
from k2desk.conversation import turns_from_history
from k2desk.engine import Engine
from k2desk.errors import Cancelled, K2Error
from k2desk.methods.registry import METHOD_NAMES
from k2desk.progress import CancelToken
from k2desk.types import Answer

HELP = """Type a question; follow-ups may say "it", "she", "that report" or leave the subject out, or
name a source of the last answer by its number: "What does [2] say about …?" asks that document alone.
  /new           a new conversation (the documents chosen with --doc, else the collection)
  /doc PATH      ask about this document (or the documents under a folder) from now on
  /all           ask the whole collection again
  /method M      answer with method M from now on ({methods})
  /sources N     show passage N of the last answer in full
  /threads       the conversations of this collection, the last continued first
  /open ID       continue conversation ID (its turns are shown)
  /help          this text;  /quit or Ctrl-D ends;  Ctrl-C stops an answer"""
HISTORY_FILE = "chat_history"
HISTORY_LINES = 1000


def _readline(home: Path) -> Optional[Path]:
    """Line editing and the typed history, where the platform has readline."""
    try:
        import readline
    except ImportError:  # Windows without pyreadline: plain input()
        return None
    path = home / HISTORY_FILE
    try:
        readline.read_history_file(path)
    except OSError:
        pass
    readline.set_history_length(HISTORY_LINES)
    return path


def _save_history(path: Optional[Path]) -> None:
    if path is None:
        return
    try:
        import readline

        path.parent.mkdir(parents=True, exist_ok=True)
        readline.write_history_file(path)
    except (ImportError, OSError):
        pass


class ChatSession:
    def __init__(self, engine: Engine, method: Optional[str] = None, documents: Optional[list[str]] = None,
                 thread: Optional[int] = None, out: TextIO = sys.stdout) -> None:
        self.engine = engine
        self.out = out
        self.method = method
        self.start_documents = list(documents or [])
        self.documents: Optional[list[str]] = self.start_documents or None  # None: the thread's own
        self.thread = thread
        self.last: Optional[Answer] = None
        self._ahead: Optional[tuple[threading.Thread, CancelToken]] = None  # the read-ahead, while a line is typed
        if thread is not None:
            self.open(str(thread))

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    # -- one line ---------------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """One typed line; False when the conversation ends."""
        self.stop_reading_ahead()
        line = line.strip()
        if not line:
            return True
        if line.startswith("/"):
            name, _, arg = line[1:].partition(" ")
            command: Optional[Callable[[str], Optional[bool]]] = {
                "new": self.new, "doc": self.doc, "all": self.all, "method": self.set_method, "sources": self.sources,
                "threads": self.threads, "open": self.open, "help": lambda _: self.say(self.help()),
                "quit": lambda _: False, "exit": lambda _: False}.get(name.lower())
            if command is None:
                self.say(f"k2desk: no command /{name}; /help lists them")
                return True
            try:
                return command(arg.strip()) is not False
            except K2Error as exc:
                self.say(f"k2desk: {exc}")
                return True
        self.ask(line)
        return True

    def help(self) -> str:
        return HELP.format(methods=", ".join(METHOD_NAMES))

    def ask(self, message: str) -> None:
        token = CancelToken()
        streamed: list[str] = []
        step = [""]  # the step shown after "… " while it reads (a terminal only), until the answer's first word
        terminal = hasattr(self.out, "isatty") and self.out.isatty()

        def on_progress(stage: str, done: int, total: int) -> None:
            if terminal and not streamed:
                self.out.write("\r… " + stage.ljust(len(step[0])))
                self.out.flush()
                step[0] = stage

        def clear_step() -> None:  # the last step shown gives way to the answer
            if step[0] and not streamed:
                self.out.write("\r… " + " " * len(step[0]) + "\r… ")

        def on_token(piece: str) -> None:
            clear_step()
            streamed.append(piece)
            self.out.write(piece)
            self.out.flush()

        previous = signal.getsignal(signal.SIGINT)
        main = _in_main_thread()
        if main:
            signal.signal(signal.SIGINT, lambda *_: token.cancel())
        self.out.write("… ")  # reading the documents; from here Ctrl-C stops this answer only
        self.out.flush()
        try:
            answer = self.engine.converse(message, thread=self.thread, method=self.method, documents=self.documents,
                                          cancel=token, on_token=on_token, progress=on_progress)
        except Cancelled:
            self.say(("\n" if streamed or step[0] else "") + "(answer stopped; the conversation goes on)")
            return
        except K2Error as exc:
            self.say(("\n" if streamed or step[0] else "") + f"k2desk: {exc}")
            return
        finally:
            if main:
                signal.signal(signal.SIGINT, previous)
        self.thread = answer.conversation.get("thread", self.thread)
        self.documents = None  # kept with the thread
        self.last = answer
        clear_step()
        stdout, sys.stdout = sys.stdout, self.out
        try:
            print_answer(answer, streamed)
        finally:
            sys.stdout = stdout
        self.read_ahead()

    def read_ahead(self) -> None:
        """While the next line is typed, the model reads the conversation as a follow-up's rewrite
        will (Engine.read_ahead), in a thread of its own: a follow-up then reads its own words only."""
        if self.thread is None:
            return
        turns = turns_from_history(self.engine.history.turns(self.thread))  # read here: the database stays in this thread
        token = CancelToken()

        def run() -> None:
            try:
                self.engine.read_ahead(turns=turns, cancel=token)
            except Exception:  # noqa: BLE001 - only a head start: the next message reads it anyway, and says what fails
                pass

        worker = threading.Thread(target=run, name="k2desk-read-ahead", daemon=True)
        worker.start()
        self._ahead = (worker, token)

    def stop_reading_ahead(self) -> None:
        """Stop the read-ahead (within one piece, ~0.2 s) and wait for it: the model is the line's."""
        if self._ahead is not None:
            worker, token = self._ahead
            token.cancel()
            worker.join()
            self._ahead = None

    # -- commands ---------------------------------------------------------------------------
    def new(self, _: str = "") -> None:
        self.thread, self.last = None, None
        self.documents = self.start_documents or None
        self.say("(a new conversation" + (f" about {', '.join(Path(d).name for d in self.start_documents)})"
                                          if self.start_documents else ")"))

    def doc(self, path: str) -> None:
        if not path:
            raise K2Error("/doc needs a document's path (or a folder's)")
        keys = self.engine.scope([path])  # one clear line when no document is there
        self.documents = sorted(keys.values())
        self.say(f"(asking about {len(keys)} document{'s' if len(keys) != 1 else ''} from now on)")

    def all(self, _: str = "") -> None:
        self.documents = []
        self.say("(asking the whole collection from now on)")

    def set_method(self, name: str) -> None:
        if name not in METHOD_NAMES:
            raise K2Error(f"no method {name!r}; the methods: {', '.join(METHOD_NAMES)}")
        self.method = name
        self.say(f"(answering with {name} from now on)")

    def sources(self, arg: str) -> None:
        if self.last is None or not self.last.sources:
            raise K2Error("no answer with sources yet in this conversation")
        try:
            n = int(arg)
            source = self.last.sources[n - 1]
            if n < 1:
                raise IndexError
        except (ValueError, IndexError):
            raise K2Error(f"/sources takes a number from 1 to {len(self.last.sources)}") from None
        where = f", {source.where()}" if source.where() else ""
        self.say(f"[{n}] {source.document}{where}\n{source.text}")

    def threads(self, _: str = "") -> None:
        threads = self.engine.threads.list(limit=30)
        if not threads:
            self.say("(no conversation yet in this collection)")
        for t in threads:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(t.updated_at))
            mark = "*" if t.id == self.thread else " "
            self.say(f"{mark}{t.id:>4}  {when}  {t.turns:>2} turn{'s' if t.turns != 1 else ' '}  {t.title}")

    def open(self, arg: str) -> None:
        try:
            thread_id = int(arg)
        except ValueError:
            raise K2Error("/open takes a conversation's number (/threads lists them)") from None
        thread = self.engine.threads.get(thread_id)
        if thread is None:
            raise K2Error(f"no conversation {thread_id} in this collection (/threads lists them)")
        self.thread, self.last, self.documents = thread_id, None, None
        self.say(f"(conversation {thread_id}: {thread.title})")
        for turn in self.engine.history.turns(thread_id):
            self.say(f"> {turn.asked}\n{' '.join(turn.answer.split())}")


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def run_chat(engine: Engine, method: Optional[str], documents: list[str], thread: Optional[int],
             read: Callable[[str], str] = input) -> int:
    """The loop: a prompt, a line, until Ctrl-D or /quit."""
    history = _readline(engine.settings.home)
    session = ChatSession(engine, method, documents, thread)
    session.say(f"k2desk chat · collection '{engine.collection}' · /help for commands, Ctrl-D to end")
    try:
        while True:
            try:
                line = read("> ")
            except KeyboardInterrupt:  # Ctrl-C at the prompt: the line is dropped, not the conversation
                session.say("^C (Ctrl-D ends the conversation)")
                continue
            except EOFError:
                session.say()
                break
            try:
                if not session.handle(line):
                    break
            except KeyboardInterrupt:  # Ctrl-C in the instant before an answer's own handler is in place
                session.say("(answer stopped; the conversation goes on)")
    finally:
        session.stop_reading_ahead()
        _save_history(history)
    if session.thread is not None:
        session.say(f"(conversation {session.thread} kept: `k2desk chat --thread {session.thread}` continues it)")
    return 0
