"""A parent that has imported torch once and forks each verification run.

Importing torch costs seconds and every verified file needs three runs. The
server (`python -m autodetach.verify.forkserver`) imports torch, numpy and
the child module, freezes the GC heap, then reads one JSON request per line on
stdin; for each it forks a child that resets its session, limits and
environment, redirects its output and runs the script under the
instrumentation. The server waits for the child (killing its process group
at the timeout) and answers one JSON line on stdout. It never runs a torch
operation itself and never initialises CUDA, so forking stays safe.

The client side, `ForkServer`, starts one and talks to it; `ServerPool`
keeps a few so that the three runs of a file go in parallel.

Isolation: each server starts inside the sandbox (isolate.py), so the
torch import is paid once per server, not per run. All runs of the server
share that sandbox (its scratch area, its PID namespace); one runs at a
time, and after each (and at its timeout) the server kills every other
process of its namespace, daemons included. Without a sandbox the server
is a child subreaper and kills every descendant a run leaves behind."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from typing import Optional

from . import isolate
from .isolate import Isolation
from .sandbox import (PKG_PARENT, ENV_FIXED, package_dir, RunOutcome, RunRequest, finish, kill_group, not_run,
                      run_fresh, scratch_base, stopped)


# ------------------------------------------------------------------ server

WARM_IMPORTS = ("torch._dynamo", "torch.utils.data", "torch.nn.functional", "torch.distributions")


def _die_with_parent() -> None:
    """Linux: the run is killed when the server goes (say, on Ctrl-C)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _child(req: dict) -> None:
    """In the forked child. Never returns."""
    code = 4
    try:
        import signal

        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.setsid()
        _die_with_parent()
        from .sandbox import Limits, may_use_cuda

        lim = req.get("limits") or {}
        Limits(**lim).apply(may_use_cuda(req["cfg"].get("device")))
        os.environ.clear()
        os.environ.update(req["env"])
        extra = [p for p in req["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.path[0:0] = [p for p in extra if p not in sys.path]
        fd_in = os.open(os.devnull, os.O_RDONLY)
        fd_out = os.open(req["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        fd_err = os.open(req["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd_in, 0)
        os.dup2(fd_out, 1)
        os.dup2(fd_err, 2)
        for fd in (fd_in, fd_out, fd_err):
            os.close(fd)
        os.chdir(req["cwd"])
        from . import child

        code = child.run_script(req["cfg"])
    except BaseException:  # pragma: no cover - reported through the record
        try:
            import traceback

            traceback.print_exc()
        except BaseException:
            pass
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
        os._exit(code)


def _wait(pid: int, timeout: float):
    """(exit code, timed out, stopped): the client closing our stdin (it was
    interrupted, or it died) stops the run at once."""
    import select

    deadline = time.monotonic() + timeout
    delay = 0.002
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status), False, False
        late = time.monotonic() > deadline
        if late or _STOP or select.select([0], [], [], delay)[0]:
            kill_group(pid)
            _, status = os.waitpid(pid, 0)
            return os.waitstatus_to_exitcode(status), late and not _STOP, bool(not late or _STOP)
        delay = min(delay * 1.5, 0.05)


_STOP: list = []  # set by SIGTERM: stop the run and leave
_BUSY: list = []  # a run is going


def _on_term(signum, frame) -> None:
    _STOP.append(signum)
    if not _BUSY:
        os._exit(128 + signum)


def serve(client_ns: str = "") -> None:
    """client_ns: the client's PID namespace when it started us in a sandbox;
    only in another one does the clean-up kill everything but init and us."""
    t0 = time.perf_counter()
    mine = isolate.pid_namespace()
    contained = bool(client_ns and mine and mine != client_ns)
    if not contained:
        isolate.become_subreaper()
    for k, v in ENV_FIXED.items():
        os.environ.setdefault(k, v)
    import gc

    import torch  # noqa: F401  (the point of the server)

    try:
        import numpy  # noqa: F401
    except ImportError:
        pass
    import torch.nn  # noqa: F401
    import torch.optim  # noqa: F401

    # The first optimizer step imports torch._dynamo (seconds): do it once here.
    for name in WARM_IMPORTS:
        try:
            __import__(name)
        except Exception:
            pass

    from . import child  # noqa: F401

    gc.collect()
    gc.freeze()
    import signal

    # A terminal's Ctrl-C is the client's to handle; it ends us by closing stdin.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_term)
    out = sys.stdout
    out.write(json.dumps({"ready": True, "import_s": time.perf_counter() - t0}) + "\n")
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        if req.get("quit"):
            break
        out.flush()
        sys.stderr.flush()
        t = time.perf_counter()
        _BUSY.append(True)
        pid = os.fork()
        if pid == 0:
            _child(req)
        rc, timed_out, stopped = _wait(pid, float((req.get("limits") or {}).get("timeout", 120)))
        isolate.kill_descendants(contained)  # daemons the run left (double fork, setsid)
        _BUSY.clear()
        out.write(json.dumps({"rc": rc, "timed_out": timed_out, "wall": time.perf_counter() - t,
                              "interrupted": stopped}) + "\n")
        out.flush()
        if stopped:
            break


# ------------------------------------------------------------------ client

class ForkServerError(RuntimeError):
    pass


class ForkServer:
    def __init__(self, start_timeout: float = 120.0, iso: Optional[Isolation] = None) -> None:
        self.iso = iso or Isolation("none", "--sandbox none")
        env = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "LC_ALL", "LD_LIBRARY_PATH",
                                          "CUDA_HOME", "CUDA_VISIBLE_DEVICES") if k in os.environ}
        env.update(ENV_FIXED)
        env["PYTHONPATH"] = package_dir()
        argv = [sys.executable, "-m", "autodetach.verify.forkserver"]
        if self.iso.isolated:
            argv = isolate.wrap(self.iso, argv + [isolate.pid_namespace()], [scratch_base()], PKG_PARENT,
                                env.get("HOME"), die_with_parent=False)
        # Its own session: a terminal's Ctrl-C or `timeout`'s SIGTERM to our group reaches the client,
        # which stops the runs and still writes its report (closing stdin ends a server).
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
            cwd=PKG_PARENT, text=True, bufsize=1, start_new_session=True)
        self.lock = threading.Lock()
        self.import_s: Optional[float] = None
        self._ready = False
        self._start_timeout = start_timeout

    def _await_ready(self) -> None:
        if self._ready:
            return
        line = self._readline(self._start_timeout)
        if not line:
            raise ForkServerError("the fork server did not start")
        self.import_s = json.loads(line).get("import_s")
        self._ready = True

    def _readline(self, timeout: float) -> str:
        box: list = []
        t = threading.Thread(target=lambda: box.append(self.proc.stdout.readline()), daemon=True)
        t.start()
        t.join(timeout)
        if not box:
            self.close()
            raise ForkServerError("the fork server stopped answering")
        return box[0]

    def run(self, req: RunRequest) -> RunOutcome:
        if req.command is not None:
            return run_fresh(req, self.iso)
        with self.lock:
            self._await_ready()
            msg = {"cfg": req.cfg, "env": req.env, "cwd": req.cwd, "stdout": req.stdout, "stderr": req.stderr,
                   "limits": {"timeout": req.limits.timeout, "memory": req.limits.memory,
                              "cpu_seconds": req.limits.cpu_seconds, "file_size": req.limits.file_size,
                              # Outside a user namespace the count would include all the caller's processes.
                              "processes": req.limits.processes if self.iso.isolated else None}}
            t0 = time.perf_counter()
            try:
                self.proc.stdin.write(json.dumps(msg) + "\n")
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError) as exc:  # ValueError: stdin closed by stop()
                raise ForkServerError(f"the fork server is gone: {exc}") from exc
            line = self._readline(req.limits.timeout + 30)
            if not line:
                raise ForkServerError("the fork server exited")
            ans = json.loads(line)
            out = finish(req, ans["rc"], ans["timed_out"], time.perf_counter() - t0)
            out.interrupted = bool(ans.get("interrupted"))
            out.record = isolate.explain(out.record, self.iso)
            return out

    def stop(self) -> None:
        """Interrupted: closing stdin makes the server kill its run (its
        process group and what it left) and exit. From a signal handler too."""
        try:
            self.proc.stdin.close()
        except (OSError, ValueError):
            pass

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(json.dumps({"quit": True}) + "\n")
                self.proc.stdin.flush()
                self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


def fork_available() -> bool:
    return hasattr(os, "fork") and sys.platform != "win32" and os.environ.get("AUTODETACH_NO_FORKSERVER") != "1"


class ServerPool:
    """Up to `size` fork servers, started lazily; runs go in parallel, one
    per server. Without fork (or when a server fails) runs start fresh."""

    def __init__(self, size: int = 2, use_fork: Optional[bool] = None, iso: Optional[Isolation] = None) -> None:
        self.iso = iso or Isolation("none", "--sandbox none")
        self.size = max(1, size)
        self.use_fork = fork_available() if use_fork is None else use_fork
        self.servers: list = []
        self.free: list = []
        self.cv = threading.Condition()
        self.waiting = 0
        self.stopping = False

    def _acquire(self) -> Optional[ForkServer]:
        with self.cv:
            while True:
                if self.stopping:
                    return None
                if self.free:
                    return self.free.pop()
                # Every server busy: another one (a torch import) up to `size`. run_many lets at most `size`
                # runs in, so the old test for a long queue (more than 4 waiting per server) never passed
                # and every run went through one server, one at a time.
                if len(self.servers) < self.size:
                    s = ForkServer(iso=self.iso)
                    self.servers.append(s)
                    return s
                self.cv.wait()

    def _release(self, s: ForkServer) -> None:
        with self.cv:
            if s.proc.poll() is None:
                self.free.append(s)
            else:
                self.servers.remove(s)
            self.cv.notify()

    def run(self, req: RunRequest) -> RunOutcome:
        if self.stopping or stopped():
            return not_run()
        if not self.use_fork or req.command is not None:
            return run_fresh(req, self.iso)
        with self.cv:
            self.waiting += 1
        try:
            s = self._acquire()
        finally:
            with self.cv:
                self.waiting -= 1
        if s is None:
            return not_run()
        try:
            if self.stopping:
                return not_run()
            return s.run(req)
        except ForkServerError:
            return not_run() if self.stopping else run_fresh(req, self.iso)
        finally:
            self._release(s)

    def stop(self) -> None:
        """Interrupted: no new run starts, the runs in flight are killed
        (each comes back `interrupted`), the servers exit."""
        with self.cv:
            self.stopping = True
            self.cv.notify_all()
        for s in list(self.servers):
            s.stop()

    def run_many(self, reqs: list, done=None) -> list:
        """Each request's outcome, in order; `done(i, outcome)` as each ends."""
        out: list = [None] * len(reqs)
        if len(reqs) <= 1:
            for i, r in enumerate(reqs):
                out[i] = self.run(r)
                if done is not None:
                    done(i, out[i])
            return out

        sem = threading.Semaphore(self.size)

        def go(i):
            with sem:
                out[i] = self.run(reqs[i])
            if done is not None:
                done(i, out[i])

        threads = [threading.Thread(target=go, args=(i,)) for i in range(len(reqs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return out

    def close(self) -> None:
        for s in self.servers:
            s.close()
        self.servers = []
        self.free = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


_SHARED: dict = {}  # sandbox kind -> pool
_SHARED_LOCK = threading.Lock()


def shared_pool(iso: Optional[Isolation] = None, size: Optional[int] = None) -> ServerPool:
    """One pool per process and sandbox, closed at exit: repeated
    verifications (tests, a batch) pay the torch import once. `size`: the
    runs at once from now on (default: up to 3, within the cores)."""
    iso = iso or Isolation("none", "--sandbox none")
    with _SHARED_LOCK:
        pool = _SHARED.get(iso.kind)
        if pool is None:
            import atexit

            pool = _SHARED[iso.kind] = ServerPool(size=max(1, min(3, os.cpu_count() or 1)), iso=iso)
            atexit.register(pool.close)
        if size:
            pool.size = max(1, size)
        return pool


if __name__ == "__main__":
    from .child import drop_launch_dir

    drop_launch_dir()  # before torch is imported: the runs behave like `python script.py`
    serve(sys.argv[1] if len(sys.argv) > 1 else "")
