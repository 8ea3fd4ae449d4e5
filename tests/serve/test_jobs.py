"""The serve queue: one job at a time in order, a bounded wait (then QueueFull with a Retry-After),
a dropped job never runs or stops at its next check, and a failing job fails its request only."""

import asyncio
import threading

import pytest

from k2desk.errors import Cancelled
from k2desk.serve.jobs import JobQueue, QueueFull


def test_jobs_run_one_at_a_time_in_order_and_a_failure_is_the_jobs_own():
    async def main():
        queue = JobQueue(limit=3)
        order, running = [], []

        def work(n):
            def run(job):
                running.append(n)
                assert len(running) == 1, "two jobs ran at once"
                order.append(n)
                running.pop()
                if n == 1:
                    raise RuntimeError("boom")
                return n * 10
            return run

        loop = asyncio.get_running_loop()
        jobs = [queue.submit(work(n), loop) for n in range(3)]
        results = []
        for job in jobs:
            try:
                results.append(await job.wait())
            except RuntimeError as exc:
                results.append(str(exc))
        queue.close()
        return order, results, queue.served

    order, results, served = asyncio.run(main())
    assert order == [0, 1, 2] and results == [0, "boom", 20] and served == 3


def test_a_full_queue_refuses_with_a_retry_after_and_a_dropped_job_never_runs():
    async def main():
        queue = JobQueue(limit=1)
        release, ran = threading.Event(), []
        loop = asyncio.get_running_loop()
        first = queue.submit(lambda job: release.wait(30) and ran.append("first"), loop)
        while not first.started.is_set():
            await asyncio.sleep(0.01)
        second = queue.submit(lambda job: ran.append("second"), loop)
        with pytest.raises(QueueFull) as full:
            queue.submit(lambda job: ran.append("third"), loop)
        assert full.value.retry_after >= 1 and queue.status() == {"running": 1, "waiting": 1, "limit": 1, "served": 0,
                                                                     "cancelled": 0}
        queue.drop(second)
        await second.wait()
        release.set()
        await first.wait()
        queue.close()
        return ran

    assert asyncio.run(main()) == ["first"]


def test_a_running_job_dropped_stops_at_its_next_check():
    async def main():
        queue = JobQueue(limit=2)
        loop = asyncio.get_running_loop()

        def run(job):
            while True:  # a model's tokens: the cancel is read between them
                job.cancel.check()
                job.emit(("token", "x"))
                job.cancel.wait(0.01)

        job = queue.submit(run, loop)
        assert await job.events.get() == ("token", "x")
        queue.drop(job)
        with pytest.raises(Cancelled):
            await job.wait()
        after = queue.submit(lambda job: "next", loop)
        assert await after.wait() == "next"
        status = queue.status()
        queue.close()
        return status

    assert asyncio.run(main())["cancelled"] == 1
