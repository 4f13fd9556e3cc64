"""The coordinator: stream files through the per-file work, record each
result in the state, then write the fixed file. Only this process writes."""
from __future__ import annotations

import os
import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Optional

from .. import __version__
from ..runner import Settings, run_bytes
from ..textio import block_terminate, content_hash as cas_hash, write_fixed, writers_finish_on_terminate
from .repos import Repos
from .state import State, content_hash
from .work import migrate_file

VERIFY_BATCH = 16  # fixed files verified together (their bytes are held meanwhile)
# Fixed files are written by a few threads: each write waits on its fsync
# (several ms), and one thread writing them in turn would be slower than
# the workers. A bounded number in flight keeps memory flat.
WRITERS = 4
WRITES_IN_FLIGHT = 64


@dataclass
class Run:
    files: list
    settings: Settings
    report_dir: str
    roots: list
    jobs: int = 1
    executor: object = None  # None: the local pool; else one from executors.make
    verify: Optional[dict] = None  # options for verify_results, or None
    on_progress: Optional[Callable[[int], None]] = None  # called with the number of files just done
    warnings: list = field(default_factory=list)
    resumed: int = 0  # files found done by an earlier run
    processed: int = 0


def state_settings(settings: Settings, verify: bool) -> dict:
    return {"version": __version__, "codes": list(settings.codes), "unsafe": settings.unsafe, "verify": verify}


def migrate(run: Run) -> State:
    os.makedirs(run.report_dir, exist_ok=True)
    state = State(run.report_dir, state_settings(run.settings, run.verify is not None))
    if state.moved_aside:
        run.warnings.append(f"the options differ from the last run's: its state was moved to {state.moved_aside}; "
                            f"starting afresh")
    repos = Repos(run.roots)
    lock = threading.Lock()

    def items():  # runs in a pool thread with the local pool and jobs > 1
        for path in run.files:
            key = os.path.abspath(path)
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError as exc:
                yield {"key": key, "in": None, "read_error": str(exc.strerror or exc)}, key, b""
                continue
            digest = content_hash(data)
            with lock:
                done = state.is_done(key, digest)
            if done:
                run.resumed += 1
                if run.on_progress:
                    run.on_progress(1)
                continue
            yield {"key": key, "in": digest}, key, data

    pending = []  # (record, new bytes, old bytes) waiting for verification
    writer = ThreadPoolExecutor(WRITERS, thread_name_prefix="autodetach-write", initializer=block_terminate)
    writes = deque()

    def commit(rec, new):
        while len(writes) >= WRITES_IN_FLIGHT:
            writes.popleft().result()  # also raises what the write raised
        writes.append(writer.submit(_commit, rec, new, run, state, lock))

    # Writes run on other threads: a SIGTERM waits for a rename under way.
    with writers_finish_on_terminate():
        try:
            for tag, (rec, new) in run_bytes(items(), run.settings, jobs=run.jobs, func=migrate_file,
                                             executor=run.executor):
                rec["path"] = tag["key"]
                rec["repo"] = repos.of(tag["key"])
                rec["in"] = tag["in"]
                run.processed += 1
                if tag.get("read_error"):
                    rec.update(status="failed", error=f"cannot read: {tag['read_error']}", fixed={}, left=[], unsafe=[])
                if new is None or rec["status"] != "changed":
                    rec["out"] = rec["in"]
                    with lock:
                        state.append(rec)
                elif run.verify is not None:
                    pending.append((rec, new))
                    if len(pending) >= VERIFY_BATCH:
                        _verify_and_commit(pending, run, state, lock)
                        pending = []
                else:
                    commit(rec, new)
                if run.on_progress:
                    run.on_progress(1)
            if pending:
                _verify_and_commit(pending, run, state, lock)
            while writes:
                writes.popleft().result()
        finally:
            writer.shutdown(wait=True)  # every record appended before the state is closed
            state.close()
    return state


def _commit(rec: dict, new: bytes, run: Run, state: State, lock) -> None:
    """Record the result, then write the file: a kill between the two leaves
    the old bytes, which the next run sees as not done and fixes again."""
    path = rec["path"]
    problem = None
    try:
        with open(path, "rb") as fh:
            current = fh.read()
        now = content_hash(current)
    except OSError as exc:
        now, problem = None, f"not fixed: cannot read: {exc.strerror or exc}"
    if problem is None and now != rec["in"]:
        problem = "not fixed: the file changed while it was being migrated (run again)"
    if problem is None:
        rec["out"] = content_hash(new)
        with lock:
            state.append(rec)
        # The same checks and messages as every other write; a compare-and-swap
        # on what was just read, so an edit since then is never overwritten.
        problem = write_fixed(path, new, run.settings.roots, expect=cas_hash(current))
        if problem is None:
            return
    rec.update(status="failed", error=problem, out=rec["in"], fixed={}, unsafe=[])
    with lock:
        state.append(rec)


def _verify_and_commit(batch: list, run: Run, state: State, lock) -> None:
    from ..findings import FileResult
    from ..verify.integrate import verify_results

    results = []
    for rec, new in batch:
        try:
            with open(rec["path"], "rb") as fh:
                old = fh.read()
        except OSError:
            old = b""  # _commit reports it
        results.append(FileResult(path=rec["path"], old_source=old, new_source=new, fixed=sum(rec["fixed"].values())))
    try:
        verify_results(results, [rec["path"] for rec, _ in batch], run.settings, write=False, **run.verify)
    except Exception as exc:  # verification is an opinion on the fix: never lose the migration over it
        run.warnings.append(f"verification failed: {type(exc).__name__}: {exc}")
    for (rec, new), res in zip(batch, results):
        rec["verify"] = sorted([f.line, f.code, f.verification.get("verdict", "?"),
                                str(f.verification.get("details", ""))] for f in res.findings if f.verification)
        _commit(rec, new, run, state, lock)
