"""Where and how verification runs execute: scratch copies of the user's
tree, an environment allow-list, resource limits, and the plain
fresh-interpreter launcher (the fork server is the fast path).

Each run goes through the sandbox chosen in isolate.py (bubblewrap where
it can run); without one, this is containment for honest code that
misbehaves, not a security boundary: see docs/security.md."""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Optional

PKG_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Passed through from the caller's environment, when set. Everything else
# (tokens, keys, passwords, cloud credentials) stays behind.
ENV_ALLOW = (
    "PATH", "HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TERM", "TZ",
    "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES",
    "VIRTUAL_ENV", "CONDA_PREFIX", "SYSTEMROOT",
)
# Settings of the MPI, UCX and NCCL stacks that GPU images carry: Lightning's
# cluster probe imports mpi4py, and without e.g. OMPI_MCA_plm=isolated Open MPI
# cannot start its singleton daemon in the sandbox, so every run aborts.
ENV_PREFIXES = ("OMPI_MCA_", "PMIX_MCA_", "PRTE_MCA_", "OPAL_PREFIX", "UCX_", "NCCL_")
# Set for every run: one thread (reproducible, and two runs share the cores),
# hash seed, deterministic cuBLAS, small loops for scripts that read it.
ENV_FIXED = {
    "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0",
    "CUBLAS_WORKSPACE_CONFIG": ":4096:8", "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1", "PYTHONWARNINGS": "ignore", "MPLBACKEND": "Agg",
    "WANDB_MODE": "disabled", "HF_HUB_OFFLINE": "1",
}

# Not copied into the scratch tree.
SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", "env", "node_modules", ".tox",
             ".mypy_cache", ".pytest_cache", ".ruff_cache", ".autodetach_cache", "build", "dist", ".eggs"}
MAX_FILE = 64 << 20  # larger files (datasets, checkpoints) are not copied
MAX_TREE = 512 << 20

DEFAULT_MEMORY = 8 << 30  # address space per run on the CPU, beyond the interpreter's own


@dataclass
class Limits:
    timeout: float = 120.0
    memory: Optional[int] = DEFAULT_MEMORY  # bytes of address space added (None: no limit)
    cpu_seconds: Optional[int] = None  # default: timeout + 30
    file_size: int = 2 << 30
    processes: int = 512  # RLIMIT_NPROC: threads count too; root outside a sandbox is exempt

    def apply(self, cuda: bool = False) -> None:
        """In the child, before the user code: rlimits. CUDA reserves huge
        virtual ranges, so no address-space limit on a GPU run."""
        import resource

        def setl(which, value):
            try:
                soft, hard = resource.getrlimit(which)
                value = value if hard == resource.RLIM_INFINITY else min(value, hard)
                resource.setrlimit(which, (value, hard))
            except (ValueError, OSError):
                pass

        setl(resource.RLIMIT_CPU, int(self.cpu_seconds or self.timeout + 30))
        setl(resource.RLIMIT_FSIZE, int(self.file_size))
        setl(resource.RLIMIT_CORE, 0)
        if self.processes:
            setl(resource.RLIMIT_NPROC, int(self.processes))
        if self.memory and not cuda:
            setl(resource.RLIMIT_AS, _vm_size() + int(self.memory))


def may_use_cuda(device: Optional[str]) -> bool:
    """Whether a run may initialise CUDA, so must not get an address-space
    limit: CUDA reserves huge virtual ranges and fails with 'out of memory'
    under one. With --device auto that is any machine with a GPU: a program
    (Lightning's accelerator probe) touches CUDA even where we would not."""
    from .isolate import has_gpu_nodes

    return device == "cuda" or (device in (None, "auto") and has_gpu_nodes())


def _vm_size() -> int:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 2 << 30


def child_env(extra_path=(), device: str = "auto", steps: int = 5) -> dict:
    env = {k: os.environ[k] for k in ENV_ALLOW if k in os.environ}
    env.update((k, v) for k, v in os.environ.items() if k.startswith(ENV_PREFIXES))
    env.update(ENV_FIXED)
    if device == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""
    # Our package first (the runner must be ours), alone in its directory so
    # that nothing else next to it shadows the user's modules; then the tree.
    env["PYTHONPATH"] = os.pathsep.join([package_dir(), *extra_path])
    return env


_PKG_DIR: Optional[str] = None


def package_dir() -> str:
    """A directory holding only a link to this autodetach package."""
    global _PKG_DIR
    if _PKG_DIR is None or not os.path.isdir(_PKG_DIR):
        import atexit

        d = tempfile.mkdtemp(prefix="autodetach-pkg-")
        try:
            os.symlink(os.path.join(PKG_PARENT, "autodetach"), os.path.join(d, "autodetach"))
        except OSError:
            shutil.rmtree(d, ignore_errors=True)
            return PKG_PARENT
        atexit.register(shutil.rmtree, d, True)
        _PKG_DIR = d
    return _PKG_DIR


def find_tree_root(path: str) -> str:
    """The directory to copy for a script: its own, or above its package."""
    d = os.path.dirname(os.path.abspath(path))
    while os.path.exists(os.path.join(d, "__init__.py")) and os.path.dirname(d) != d:
        d = os.path.dirname(d)
    return d


def copy_tree(src: str, dst: str) -> bool:
    """Copy src to dst, skipping VCS and cache directories, virtualenvs and
    big data files; past MAX_TREE bytes only Python files are copied.
    Returns whether any Python file mentions cuda (then the CPU shim is on)."""
    total = 0
    cuda = False
    dst_abs = os.path.abspath(dst)
    for dirpath, dirnames, filenames in os.walk(src):
        # Never copy the scratch area into itself (a file right in /tmp).
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.endswith(".egg-info")
                             and not d.startswith(("autodetach-verify-", "autodetach-pkg-"))
                             and not dst_abs.startswith(os.path.abspath(os.path.join(dirpath, d)) + os.sep)
                             and os.path.abspath(os.path.join(dirpath, d)) != dst_abs)
        rel = os.path.relpath(dirpath, src)
        out_dir = os.path.join(dst, rel) if rel != "." else dst
        os.makedirs(out_dir, exist_ok=True)
        for name in filenames:
            s = os.path.join(dirpath, name)
            if os.path.islink(s) and not os.path.exists(s):
                continue
            try:
                size = os.path.getsize(s)
            except OSError:
                continue
            if size > MAX_FILE or (total + size > MAX_TREE and not name.endswith(".py")):
                continue
            total += size
            try:
                shutil.copyfile(s, os.path.join(out_dir, name))
            except OSError:
                continue
            if not cuda and name.endswith(".py"):
                try:
                    with open(s, "rb") as fh:
                        cuda = b"cuda" in fh.read()
                except OSError:
                    pass
    return cuda


_BASE: Optional[str] = None


def scratch_base() -> str:
    """One directory per process holding every scratch tree: the only place
    a sandboxed run may write (besides its private /tmp)."""
    global _BASE
    if _BASE is None or not os.path.isdir(_BASE):
        import atexit

        _BASE = tempfile.mkdtemp(prefix="autodetach-verify-")
        atexit.register(shutil.rmtree, _BASE, True)
    return _BASE


class Scratch:
    """A temporary directory holding one pristine copy of the tree and a
    fresh copy of it per run. Removed on close."""

    def __init__(self, tree_root: str) -> None:
        self.tree_root = os.path.abspath(tree_root)
        self.dir = tempfile.mkdtemp(prefix="autodetach-verify-", dir=scratch_base())
        self.pristine = os.path.join(self.dir, "pristine")
        self.mentions_cuda = copy_tree(self.tree_root, self.pristine)
        self.n = 0
        self.times: dict = {}  # run name -> wall seconds

    def new_run(self, name: str, replace: Optional[dict] = None) -> str:
        """A fresh copy of the tree; `replace` maps paths (inside the original
        tree) to the bytes to put there instead."""
        self.n += 1
        root = os.path.join(self.dir, f"{self.n:03d}-{name}")
        shutil.copytree(self.pristine, root, symlinks=True)
        for path, data in (replace or {}).items():
            self.mentions_cuda = self.mentions_cuda or b"cuda" in data
            target = self.map(path, root)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as fh:
                fh.write(data)
        os.makedirs(os.path.join(root, ".autodetach-tmp"), exist_ok=True)
        return root

    def map(self, path: str, root: str) -> str:
        rel = os.path.relpath(os.path.abspath(path), self.tree_root)
        return os.path.join(root, rel)

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


@dataclass
class RunRequest:
    """One run: the runner config, where its output goes, its limits."""
    cfg: dict
    env: dict
    cwd: str
    stdout: str
    stderr: str
    limits: Limits = field(default_factory=Limits)
    command: Optional[str] = None  # --run: a shell command instead of the script


@dataclass
class RunOutcome:
    returncode: Optional[int]
    timed_out: bool
    wall: float
    record: Optional[dict]
    stdout: str = ""
    stderr: str = ""
    interrupted: bool = False  # stopped (or never started) because verification was interrupted


# Interrupted (SIGTERM, Ctrl-C): no run starts any more; the fresh ones in flight are killed.
_STOPPED: list = []
_LIVE: dict = {}  # pid -> (Popen, isolated) of the fresh runs in flight


def stopped() -> bool:
    return bool(_STOPPED)


def not_run() -> RunOutcome:
    return RunOutcome(None, False, 0.0, None, interrupted=True)


def stop_fresh() -> None:
    """Stop every fresh run (from a signal handler too): their outcomes come
    back interrupted, and nothing starts after."""
    _STOPPED.append(True)
    for proc, isolated in list(_LIVE.values()):
        _end(proc, isolated)


def _end(proc, isolated: bool) -> None:
    """Kill a fresh run: without a sandbox its reaper first kills what the run
    left (SIGTERM), then the process group goes."""
    if not isolated:
        try:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
    kill_group(proc.pid)


def _tail(path: str, n: int = 4000) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - n))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


def read_record(req: RunRequest) -> Optional[dict]:
    path = req.cfg["record"]
    if not req.cfg.get("per_pid"):
        try:
            with open(path, encoding="utf-8") as fh:
                return json.load(fh)
        except (OSError, ValueError):
            return None
    # --run: one record per Python process; the one that did the most work.
    d, base = os.path.split(path)
    best = None
    try:
        names = os.listdir(d)
    except OSError:
        return None
    for name in names:
        if name.startswith(base + ".") and not name.endswith(".tmp"):
            try:
                with open(os.path.join(d, name), encoding="utf-8") as fh:
                    rec = json.load(fh)
            except (OSError, ValueError):
                continue
            score = (rec.get("opt_steps", 0) + rec.get("backward_calls", 0), rec.get("status") == "error")
            if best is None or score > best[0]:
                best = (score, rec)
    return best[1] if best else None


def finish(req: RunRequest, rc, timed_out, wall) -> RunOutcome:
    """The outcome, with the caller's secrets redacted from everything the
    run wrote (a run without a sandbox can read them from /proc)."""
    from .isolate import redact, secret_values

    secrets = secret_values()
    return RunOutcome(rc, timed_out, wall, redact(read_record(req), secrets), redact(_tail(req.stdout), secrets),
                      redact(_tail(req.stderr), secrets))


def run_fresh(req: RunRequest, iso=None) -> RunOutcome:
    """A fresh interpreter: `python -m autodetach.verify.child cfg.json`, or
    the --run command with the instrumentation installed by sitecustomize;
    inside the sandbox `iso` (isolate.Isolation), or under a reaper."""
    from .isolate import Isolation, explain, reaper_argv, wrap

    iso = iso or Isolation("none", "--sandbox none")
    cfg_path = req.cfg["record"] + ".cfg.json"
    with open(cfg_path, "w", encoding="utf-8") as fh:
        json.dump(req.cfg, fh)
    env = dict(req.env)
    if req.command is not None:
        site = os.path.join(os.path.dirname(cfg_path), "site")
        os.makedirs(site, exist_ok=True)
        with open(os.path.join(site, "sitecustomize.py"), "w", encoding="utf-8") as fh:
            fh.write("from autodetach.verify.child import install_for_command\ninstall_for_command()\n")
        env["PYTHONPATH"] = os.pathsep.join([site, env.get("PYTHONPATH", "")])
        env["AUTODETACH_VERIFY_CONFIG"] = cfg_path
        argv = ["/bin/sh", "-c", req.command]
    else:
        argv = [sys.executable, "-m", "autodetach.verify.child", cfg_path]
    root = req.cfg.get("root") or req.cwd
    if iso.isolated:
        # The process count is per user namespace: set it inside, where it
        # counts only the run's processes (set outside, it would also cap the
        # namespace itself against all of the caller's processes).
        if req.limits.processes and shutil.which("prlimit"):
            argv = ["prlimit", f"--nproc={req.limits.processes}", "--", *argv]
        argv = wrap(iso, argv, [root], req.cwd, env.get("HOME"))
    else:
        argv = reaper_argv(argv)
    req = dataclasses.replace(req, limits=dataclasses.replace(req.limits, processes=None))
    cuda = may_use_cuda(req.cfg.get("device"))
    t0 = time.perf_counter()
    if stopped():
        return not_run()
    with open(req.stdout, "wb") as out, open(req.stderr, "wb") as err:
        proc = subprocess.Popen(argv, cwd=req.cwd, env=env, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=lambda: req.limits.apply(cuda))
        _LIVE[proc.pid] = (proc, iso.isolated)
        try:
            if stopped():  # interrupted while it started
                _end(proc, iso.isolated)
            rc = proc.wait(timeout=req.limits.timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            _end(proc, iso.isolated)  # the reaper kills what the run left, then exits
            rc = proc.wait()
            timed_out = True
        except BaseException:  # Ctrl-C: the run is in its own session; end it too
            kill_group(proc.pid)
            proc.wait()
            raise
        finally:
            _LIVE.pop(proc.pid, None)
    out = finish(req, rc, timed_out, time.perf_counter() - t0)
    out.interrupted = stopped()
    out.record = explain(out.record, iso)
    return out


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
