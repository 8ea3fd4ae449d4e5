"""One model job at a time: a worker thread answers the requests in the order they came, a bounded
number wait, and a request gone (its client disconnected, the server stopping) is cancelled —
waiting, it is dropped; running, its generation stops at the next token."""

from __future__ import annotations

import asyncio
import collections
import statistics
import threading
import time
from typing import Any, Callable, Optional

from k2desk.errors import Cancelled
from k2desk.progress import CancelToken

DONE = object()  # the end of a job's events
STOPPING = "the server is stopping"


class QueueFull(Exception):
    """Every place in the queue is taken; ``retry_after`` is the seconds a client should wait."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"the model is busy with {retry_after} s of answers; try again later")
        self.retry_after = retry_after


class Job:
    """A request's work: ``run(job)`` on the worker thread; what it emits (tokens) and its result
    or error reach the request's event loop through ``events``."""

    def __init__(self, run: Callable[["Job"], Any], loop: asyncio.AbstractEventLoop) -> None:
        self.run = run
        self.loop = loop
        self.cancel = CancelToken()
        self.events: asyncio.Queue = asyncio.Queue()
        self.result: Any = None
        self.error: Optional[BaseException] = None
        self.started = threading.Event()
        self.finished = threading.Event()

    def emit(self, item: Any) -> None:
        """From the worker thread: pass ``item`` to the request (dropped once the loop is closed)."""
        try:
            self.loop.call_soon_threadsafe(self.events.put_nowait, item)
        except RuntimeError:  # the loop is closed: the server has stopped
            pass

    async def wait(self) -> Any:
        """The job's result (its error raised), its emitted items skipped."""
        while True:
            item = await self.events.get()
            if item is DONE:
                break
        if self.error is not None:
            raise self.error
        return self.result


class JobQueue:
    """A worker thread and at most ``limit`` waiting jobs behind the running one."""

    def __init__(self, limit: int, on_exit: Optional[Callable[[], None]] = None) -> None:
        self.limit = limit
        self.on_exit = on_exit  # run on the worker thread as it stops (closes what belongs to it)
        self._waiting: collections.deque[Job] = collections.deque()
        self._cond = threading.Condition()
        self._running: Optional[Job] = None
        self._closed = False
        self._seconds: collections.deque[float] = collections.deque(maxlen=20)  # the last jobs' durations
        self.served = 0  # jobs finished (answered or failed), for the app's count
        self.cancelled = 0  # jobs stopped by a cancel (their client gone, the server stopping)
        self._thread = threading.Thread(target=self._work, name="k2desk-serve-worker", daemon=True)
        self._thread.start()

    def submit(self, run: Callable[[Job], Any], loop: asyncio.AbstractEventLoop) -> Job:
        with self._cond:
            if self._closed:
                raise Cancelled(STOPPING)
            if len(self._waiting) >= self.limit:
                raise QueueFull(self.retry_after())
            job = Job(run, loop)
            self._waiting.append(job)
            self._cond.notify()
            return job

    def retry_after(self) -> int:
        """Seconds until a place is likely free: the waiting jobs and the running one at the
        recent median duration (at least 1)."""
        typical = statistics.median(self._seconds) if self._seconds else 10.0
        return max(1, round(typical * (len(self._waiting) + 1)))

    def status(self) -> dict[str, int]:
        with self._cond:
            return {"running": int(self._running is not None), "waiting": len(self._waiting), "limit": self.limit,
                    "served": self.served, "cancelled": self.cancelled}

    def drop(self, job: Job) -> None:
        """Cancel ``job``: out of the queue if it waits, stopped at its next token if it runs."""
        job.cancel.cancel()
        with self._cond:
            if job in self._waiting:
                self._waiting.remove(job)
                job.emit(DONE)

    def close(self, timeout: float = 5.0) -> None:
        """Cancel every job and stop the worker (after the running job notices, ``timeout`` at most)."""
        with self._cond:
            self._closed = True
            jobs = list(self._waiting) + ([self._running] if self._running else [])
            self._waiting.clear()
            self._cond.notify_all()
        for job in jobs:
            job.cancel.cancel()
            job.error = Cancelled(STOPPING)
            job.emit(DONE)
        self._thread.join(timeout)

    def _work(self) -> None:
        try:
            self._serve()
        finally:
            if self.on_exit is not None:
                self.on_exit()

    def _serve(self) -> None:
        while True:
            with self._cond:
                while not self._waiting and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                job = self._running = self._waiting.popleft()
            started = time.monotonic()
            job.started.set()
            try:
                job.cancel.check()
                job.result = job.run(job)
            except BaseException as exc:  # noqa: BLE001 (a job's failure is its request's, never the worker's)
                job.error = Cancelled(STOPPING) if self._closed and isinstance(exc, Cancelled) else exc
            finally:
                with self._cond:
                    self._running = None
                    self.served += 1
                    self.cancelled += isinstance(job.error, Cancelled)
                self._seconds.append(time.monotonic() - started)
                job.finished.set()
                job.emit(DONE)
