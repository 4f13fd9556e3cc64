"""Where the per-file work runs: the local process pool (the default, no
extra dependency) or a dask cluster (`pip install 'autodetach[dask]'`).

An executor maps a picklable module-level function over picklable items
and yields the results as they complete. With the local pool the workers
read and write the files themselves; a cluster gets each file as bytes and
returns a result as a value, and only the coordinator touches the files."""
from __future__ import annotations

import multiprocessing
import os
from itertools import islice
from typing import Callable, Iterable, Iterator, Optional, Protocol

KINDS = ("local", "dask")


class ExecutorError(Exception):
    """A one-line reason the executor cannot run."""


class Executor(Protocol):
    shares_files: bool  # workers read and write the files themselves

    def map_unordered(self, fn: Callable, items: Iterable) -> Iterator: ...

    def close(self) -> None: ...


class LocalPool:
    """A process pool on this machine; `init(*initargs)` runs in each worker."""

    shares_files = True

    def __init__(self, jobs: int, init: Optional[Callable] = None, initargs: tuple = ()) -> None:
        self.jobs = max(1, jobs)
        self.init, self.initargs = init, initargs

    def map_unordered(self, fn, items) -> Iterator:
        items = list(items)
        ctx = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
        with ctx.Pool(self.jobs, initializer=self.init, initargs=self.initargs) as pool:
            chunk = max(1, min(16, len(items) // (self.jobs * 8)))
            yield from pool.imap_unordered(fn, items, chunksize=chunk)

    def close(self) -> None:
        pass


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
        self.batch = max(1, batch)
        self.cluster = None
        try:
            if scheduler:
                self.client = Client(scheduler, timeout="30s")
            else:
                self.cluster = LocalCluster(n_workers=max(1, jobs), threads_per_worker=1, processes=True,
                                            dashboard_address=None)
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


def make(kind: str, jobs: int, scheduler: Optional[str] = None):
    """The executor for `--executor KIND`; None is the local pool."""
    if kind == "local":
        if scheduler:
            raise ExecutorError("--scheduler needs --executor dask")
        return None
    if kind == "dask":
        return DaskExecutor(jobs, scheduler)
    raise ExecutorError(f"unknown executor '{kind}' (choose from {', '.join(KINDS)})")
