"""Where the per-file work runs: the local process pool (the default, no
extra dependency) or a dask cluster (`pip install 'autodetach[dask]'`).

An executor maps a picklable module-level function over picklable items
and yields the results as they complete. With the local pool the workers
read and write the files themselves; a cluster gets each file as bytes and
returns a result as a value, and only the coordinator touches the files."""
from __future__ import annotations

import multiprocessing
import os
import time
from functools import partial
from itertools import islice
from typing import Callable, Iterable, Iterator, Optional, Protocol

KINDS = ("local", "dask")


class ExecutorError(Exception):
    """A one-line reason the executor cannot run."""


class Executor(Protocol):
    shares_files: bool  # workers read and write the files themselves

    def map_unordered(self, fn: Callable, items: Iterable) -> Iterator: ...

    def close(self) -> None: ...


WORKER_DIED_RUN = ("a worker process died (killed by the system, out of memory?); what was done "
                   "so far is kept: run again to go on")


class WorkerDied(RuntimeError):
    """A pool worker died with work in flight: that work never comes back."""


class LocalPool:
    """A process pool on this machine; `init(*initargs)` runs in each worker.
    Items go out `batch` at a time with at most `window` batches in flight,
    taken from `items` as slots free up, so memory stays flat. A worker that
    dies (the OOM killer) loses its task and multiprocessing.Pool would wait
    for it for ever; map_unordered raises WorkerDied instead."""

    shares_files = True

    def __init__(self, jobs: int, init: Optional[Callable] = None, initargs: tuple = (), batch: int = 1,
                 window: int = 0) -> None:
        self.jobs = max(1, jobs)
        self.init, self.initargs = init, initargs
        self.batch = max(1, batch)
        self.window = window or self.jobs * 16

    def map_unordered(self, fn, items) -> Iterator:
        import threading

        slots = threading.Semaphore(self.window)
        stop = threading.Event()
        it = iter(items)

        def feed():  # consumed by the pool's task thread
            while True:
                while not slots.acquire(timeout=0.1):
                    if stop.is_set():
                        return
                batch = list(islice(it, self.batch))
                if stop.is_set() or not batch:
                    return
                yield batch

        ctx = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
        with ctx.Pool(self.jobs, initializer=self.init, initargs=self.initargs) as pool:
            start = _workers(pool)
            # One batch per task: only then is the iterator Pool's own, with next(timeout).
            results = pool.imap_unordered(partial(_call_batch, fn), feed())
            try:
                while True:
                    try:
                        out = results.next(timeout=1.0)
                    except StopIteration:
                        break
                    except multiprocessing.TimeoutError:
                        if _workers(pool) != start:  # Pool replaced a dead worker: its task is lost
                            _abandon(pool)
                            raise WorkerDied(WORKER_DIED_RUN) from None
                        continue
                    slots.release()
                    yield from out
            finally:
                stop.set()  # the feeding thread ends before the pool is terminated

    def close(self) -> None:
        pass


def _workers(pool) -> set:
    return {p.pid for p in getattr(pool, "_pool", ())}


def _abandon(pool) -> None:
    """Stop a pool one of whose workers died. A worker killed while holding
    the pool's queue locks leaves them held for ever, and Pool.terminate
    waits on them: stop the replacing of workers, kill the rest (nothing of
    theirs is half-written: write_atomic renames whole files), free the locks
    their holders can no longer free, then terminate."""
    from multiprocessing import pool as mp_pool

    pool._worker_handler._state = mp_pool.TERMINATE
    time.sleep(0.3)  # the handler's next round sees it (it polls every 0.1 s)
    for proc in list(pool._pool):
        proc.kill()
    for proc in list(pool._pool):
        proc.join(5)
    for lock in (pool._inqueue._rlock, getattr(pool._outqueue, "_wlock", None)):
        if lock is not None and not lock.acquire(False):
            lock.release()  # held by a dead worker
        elif lock is not None:
            lock.release()
    try:
        pool.terminate()
    except ValueError:
        pass  # "released too many times": a lock a dying worker left half-released; the workers are gone


def _call_batch(fn, batch: list) -> list:
    return [fn(x) for x in batch]


class DaskExecutor:
    """Tasks on a dask.distributed cluster: the one at `scheduler`
    (tcp://host:8786), or a local cluster of `jobs` single-threaded worker
    processes started for this run. A bounded number of batches is in
    flight, so memory stays flat however many files there are."""

    shares_files = False

    def __init__(self, jobs: int, scheduler: Optional[str] = None, batch: int = 8, window: int = 4) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ExecutorError("--executor dask needs the dask extra: pip install 'autodetach[dask]'") from None
        import logging

        # Dask logs to stderr (workers killed at shutdown, a slow event
        # loop); our stderr carries one line per problem, nothing else.
        for name in ("distributed", "dask", "tornado"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        # The same in the worker processes of a local cluster: they read
        # their log levels from the environment when they import distributed,
        # and a worker whose heartbeat meets the closed scheduler at shutdown
        # logs a traceback. Kept until close(): the nanny may restart one.
        self._env = {}
        for key in ("DASK_LOGGING__DISTRIBUTED", "DASK_LOGGING__TORNADO"):
            if key not in os.environ:
                self._env[key] = None
                os.environ[key] = "critical"
        self.batch = max(1, batch)
        self.cluster = None
        try:
            if scheduler:
                self.client = Client(scheduler, timeout="30s")
            else:
                import dask

                # The scheduler's HTTP server on a free loopback port: the
                # default, *:8787, warns on stderr when another run holds it.
                # No statistical profiler in the workers: sampling libcst's
                # deep stacks every 10 ms cost a quarter more CPU per file.
                with dask.config.set({"distributed.worker.profile.enabled": False}):
                    self.cluster = LocalCluster(n_workers=max(1, jobs), threads_per_worker=1, processes=True,
                                                dashboard_address=None, scheduler_kwargs={
                                                    "dashboard": False, "dashboard_address": "127.0.0.1:0"})
                self.client = Client(self.cluster)
        except (OSError, TimeoutError) as exc:
            self.close()
            where = scheduler or "a local cluster"
            raise ExecutorError(f"cannot connect to the dask scheduler at {where}: {exc}") from None
        workers = len(self.client.scheduler_info().get("workers", {})) or max(1, jobs)
        self.window = max(2, workers * window)

    def map_unordered(self, fn, items) -> Iterator:
        from distributed import as_completed

        it = iter(items)

        def submit():
            batch = list(islice(it, self.batch))
            return self.client.submit(_call_batch, fn, batch, pure=False) if batch else None

        running = as_completed()
        for _ in range(self.window):
            fut = submit()
            if fut is None:
                break
            running.add(fut)
        for fut in running:
            out = fut.result()
            fut.release()
            nxt = submit()
            if nxt is not None:
                running.add(nxt)
            yield from out

    def close(self) -> None:
        for thing in (getattr(self, "client", None), self.cluster):
            if thing is not None:
                try:
                    thing.close()
                except Exception:  # closing a half-started cluster: nothing more to do
                    pass
        for key in self._env:
            os.environ.pop(key, None)
        self._env = {}


def make(kind: str, jobs: int, scheduler: Optional[str] = None):
    """The executor for `--executor KIND`; None is the local pool."""
    if kind == "local":
        if scheduler:
            raise ExecutorError("--scheduler needs --executor dask")
        return None
    if kind == "dask":
        return DaskExecutor(jobs, scheduler)
    raise ExecutorError(f"unknown executor '{kind}' (choose from {', '.join(KINDS)})")
