"""Measure one script's live autograd graph per iteration, and run scripts
plainly through the pre-imported fork server (for the corpus tests).

    m = measure("corpus/AD101/ema_statistic.py", steps=12)
    m.grows()   # True: the graph kept alive grows every iteration
"""
from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Optional

from .compare import Run, grows
from .forkserver import shared_pool
from .sandbox import Limits, RunRequest, child_env


@dataclass
class Measurement:
    path: str
    status: str
    live_nodes: list = field(default_factory=list)  # autograd nodes reachable from live tensors, per step
    live_bytes: list = field(default_factory=list)  # bytes held by live saved tensors, per step
    error: Optional[str] = None
    peak_memory: Optional[dict] = None

    def grows(self) -> bool:
        """The live graph keeps growing: clearly more at the last step than
        after the first couple of steps (see compare.grows)."""
        return grows(self.live_nodes, 8) or grows(self.live_bytes, 4096)

    def __str__(self) -> str:
        err = f", error {self.error}" if self.error else ""
        return (f"Measurement({os.path.basename(self.path)}: {self.status}, nodes {self.live_nodes}, "
                f"saved bytes {self.live_bytes}{err})")


def measure(path: str, steps: int = 12, device: str = "cpu", timeout: float = 120) -> Measurement:
    """Run the script under the instrumentation for `steps` optimizer steps
    (or backward calls) and return the live graph after each."""
    path = os.path.abspath(path)
    with tempfile.TemporaryDirectory(prefix="autodetach-probe-") as tmp:
        cfg = {"mode": "probe", "argv": [path], "cwd": tmp, "root": os.path.dirname(path), "steps": steps,
               "device": device, "record": os.path.join(tmp, "record.json"), "threads": 1}
        with open(path, "rb") as fh:
            cfg["cpu_shim"] = b"cuda" in fh.read()
        env = child_env([], device, steps)
        env["AUTODETACH_ITERS"] = str(steps + 2)
        env["TMPDIR"] = tmp
        req = RunRequest(cfg, env, tmp, os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr"),
                         Limits(timeout=timeout))
        out = shared_pool().run(req)
    run = Run("probe", out.record, out.returncode, out.timed_out, out.stdout, out.stderr, out.wall)
    return Measurement(path, run.status, run.series("live_nodes"), run.series("live_bytes"),
                       run.failure() if run.failed else None, (out.record or {}).get("peak_memory"))


def run_plain(path: str, timeout: float = 180, args=(), env: Optional[dict] = None) -> subprocess.CompletedProcess:
    """Run a script as `python path args...` would, from a forked child of the
    pre-imported server (no instrumentation): cwd is the script's directory."""
    path = os.path.abspath(path)
    with tempfile.TemporaryDirectory(prefix="autodetach-run-") as tmp:
        cfg = {"plain": True, "argv": [path, *args], "cwd": os.path.dirname(path),
               "record": os.path.join(tmp, "record.json")}
        run_env = dict(env) if env is not None else child_env([], "cpu")
        run_env.pop("AUTODETACH_ITERS", None) if env is None else None
        req = RunRequest(cfg, run_env, os.path.dirname(path), os.path.join(tmp, "stdout"),
                         os.path.join(tmp, "stderr"), Limits(timeout=timeout, memory=None))
        out = shared_pool().run(req)
        with open(req.stdout, encoding="utf-8", errors="replace") as fh:
            stdout = fh.read()
        with open(req.stderr, encoding="utf-8", errors="replace") as fh:
            stderr = fh.read()
    if out.timed_out:
        raise subprocess.TimeoutExpired([path, *args], timeout, stdout, stderr)
    return subprocess.CompletedProcess([path, *args], out.returncode, stdout, stderr)
