"""Isolation of verification runs: which sandbox contains them, the command
line that starts a process inside it, and the clean-up and redaction that
apply with or without one (docs/security.md).

- bwrap: bubblewrap, new user, PID, network, IPC and UTS namespaces; the
  filesystem read-only except the scratch area, a private /tmp, credential
  files in $HOME hidden.
- unshare: util-linux `unshare`, new user, PID, network and mount
  namespaces; the filesystem stays writable (util-linux has no read-only
  view without a mount script of our own).
- none: no isolation; daemons are still reaped (child subreaper) and the
  caller's secrets redacted from what is reported.

This module is imported by the fork server: keep it free of heavy imports."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Optional

try:  # the CLI prints a ClickException as one line
    from click import ClickException as _ErrorBase
except ImportError:  # pragma: no cover - click is a dependency
    _ErrorBase = RuntimeError  # type: ignore[misc,assignment]

SANDBOXES = ("auto", "bwrap", "unshare", "none")

# Hidden from bwrap runs (inside $HOME): a read-only view would still leak them.
CREDENTIALS = (
    ".ssh", ".aws", ".azure", ".config/gcloud", ".kube", ".docker", ".gnupg", ".netrc", ".git-credentials",
    ".pypirc", ".npmrc", ".config/gh", ".config/hub", ".huggingface", ".cache/huggingface", ".config/autodetach",
    ".terraform.d", ".vault-token", ".boto", ".s3cfg", ".databrickscfg", ".kaggle", ".netrc.gpg",
)


class SandboxUnavailable(_ErrorBase):
    exit_code = 2


@dataclass(frozen=True)
class Isolation:
    kind: str  # bwrap | unshare | none
    reason: str = ""  # for none: why the runs were not isolated

    @property
    def isolated(self) -> bool:
        return self.kind != "none"

    def describe(self) -> str:
        if self.kind == "bwrap":
            return ("runs isolated by bubblewrap: no network, filesystem read-only except the scratch copy "
                    "and a private /tmp, own PID namespace (killed as a whole)")
        if self.kind == "unshare":
            return ("runs isolated by unshare: no network, own PID namespace (killed as a whole); "
                    "the filesystem is NOT read-only")
        return f"runs NOT isolated ({self.reason}): they had your rights, your files and the network"

    def as_dict(self) -> dict:
        return {"kind": self.kind, "isolated": self.isolated, "details": self.describe()}


# ------------------------------------------------------------ command lines

def _tmp_paths() -> list:
    """What a run needs from under /tmp (hidden by the private /tmp): the
    interpreter, its packages, ours."""
    from .sandbox import PKG_PARENT, package_dir

    out = []
    for p in [package_dir(), PKG_PARENT, sys.prefix, sys.base_prefix, os.path.dirname(sys.executable), *sys.path]:
        if p and os.path.isabs(p):
            real = os.path.realpath(p)
            for q in {p, real}:
                # never /tmp as a whole (`python -m` run from /tmp puts it on sys.path): binding it
                # undoes the private /tmp and shows the run torch's caches there
                if q.startswith("/tmp/") and q not in out and os.path.exists(q):
                    out.append(q)
    return out


def _credential_args(home: Optional[str]) -> list:
    out: list = []
    for h in {home, os.path.expanduser("~")}:
        if not h or not os.path.isabs(h):
            continue
        for rel in CREDENTIALS:
            p = os.path.join(h, rel)
            if os.path.isdir(p) and not os.path.islink(p):
                out += ["--tmpfs", p]
            elif os.path.isfile(p) and not os.path.islink(p):
                out += ["--ro-bind", "/dev/null", p]
    return out


def _gpu_nodes() -> list:
    """The device nodes of GPUs (NVIDIA, ROCm) and displays under /dev."""
    try:
        return [n for n in sorted(os.listdir("/dev")) if n.startswith(("nvidia", "dri", "kfd"))]
    except OSError:
        return []


def has_gpu_nodes() -> bool:
    """Whether this machine shows a GPU device node (NVIDIA or ROCm): cheap,
    no torch import."""
    return any(n.startswith(("nvidia", "kfd")) for n in _gpu_nodes())


def _gpu_args() -> list:
    return [a for n in _gpu_nodes() for a in ("--dev-bind-try", f"/dev/{n}", f"/dev/{n}")]


def bwrap_argv(argv: list, writable: list, cwd: str, home: Optional[str] = None, die_with_parent: bool = True) -> list:
    # --die-with-parent fires when the *thread* that started bwrap ends: not
    # for a fork server started from a worker thread (it ends on stdin EOF).
    a = ["bwrap", "--unshare-all", "--unshare-user", "--new-session"]
    if die_with_parent:
        a += ["--die-with-parent"]
    if os.getuid() == 0:
        # Root in a user namespace keeps every capability there; nobody has none.
        a += ["--uid", "65534", "--gid", "65534"]
    if _has_disable_userns():
        a += ["--disable-userns"]
    a += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/dev/shm"]
    a += _gpu_args()
    for p in _tmp_paths():
        a += ["--ro-bind", p, p]
    a += _credential_args(home)
    for p in writable:
        a += ["--bind", p, p]
    a += ["--chdir", cwd, "--", *argv]
    return a


def unshare_argv(argv: list) -> list:
    return ["unshare", "--user", "--map-root-user", "--net", "--pid", "--fork", "--kill-child", "--mount",
            "--mount-proc", "--", *argv]


def reaper_argv(argv: list) -> list:
    """No namespaces: a small parent that adopts and kills what the run leaves."""
    return [sys.executable, "-m", "autodetach.verify.isolate", "reap", "--", *argv]


def wrap(iso: Isolation, argv: list, writable: list, cwd: str, home: Optional[str] = None,
         die_with_parent: bool = True) -> list:
    if iso.kind == "bwrap":
        return bwrap_argv(argv, writable, cwd, home, die_with_parent)
    if iso.kind == "unshare":
        return unshare_argv(argv)
    return argv


_USERNS: Optional[bool] = None


def _has_disable_userns() -> bool:
    global _USERNS
    if _USERNS is None:
        try:
            out = subprocess.run(["bwrap", "--help"], capture_output=True, text=True, timeout=10)
            _USERNS = "--disable-userns" in (out.stdout + out.stderr)
        except (OSError, subprocess.SubprocessError):
            _USERNS = False
    return _USERNS


# ------------------------------------------------------------ choosing one

_PROBED: dict = {}


def _probe(kind: str) -> str:
    """'' when this sandbox starts a Python here, else why not (one line)."""
    if kind in _PROBED:
        return _PROBED[kind]
    why = ""
    if not sys.platform.startswith("linux"):
        why = "not Linux"
    elif shutil.which(kind) is None:
        why = f"{kind} is not installed" + (" (Debian/Ubuntu: apt-get install bubblewrap)" if kind == "bwrap" else "")
    else:
        cmd = [sys.executable, "-S", "-c", "import socket; socket.socket().close()"]
        argv = wrap(Isolation(kind), cmd, [], "/")
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
                               env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
            if p.returncode != 0:
                lines = [x for x in p.stderr.strip().splitlines() if x.strip()]
                why = f"{kind} cannot run here: " + (lines[-1] if lines else f"exit status {p.returncode}")
                if "namespace" in why.lower() or "permission" in why.lower():
                    why += " (user namespaces restricted?)"
        except (OSError, subprocess.SubprocessError) as exc:
            why = f"{kind} cannot run here: {exc}"
    _PROBED[kind] = why
    return why


def resolve(mode: str = "auto") -> Isolation:
    """The sandbox for --sandbox MODE; a named one that cannot run is an error."""
    mode = (mode or "auto").lower()
    if mode not in SANDBOXES:
        raise SandboxUnavailable(f"--sandbox {mode}: choose one of {', '.join(SANDBOXES)}")
    if mode == "none":
        return Isolation("none", "--sandbox none")
    if mode != "auto":
        why = _probe(mode)
        if why:
            raise SandboxUnavailable(f"--sandbox {mode}: {why}")
        return Isolation(mode)
    whys = []
    for kind in ("bwrap", "unshare"):
        why = _probe(kind)
        if not why:
            return Isolation(kind)
        whys.append(why)
    return Isolation("none", "no sandbox available: " + "; ".join(whys))


# ------------------------------------------------------------ secrets

# Caller variables that are not secrets and show up in ordinary messages.
_PLAIN = {
    "PWD", "OLDPWD", "SHELL", "HOSTNAME", "USER", "LOGNAME", "HOME", "PATH", "TERM", "LANG", "LANGUAGE",
    "LC_ALL", "LC_CTYPE", "TZ", "SHLVL", "_", "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX", "TMPDIR", "MAIL",
    "DISPLAY", "EDITOR", "PAGER", "COLUMNS", "LINES", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH",
}
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIALS?|AUTH|COOKIE|SESSION|PRIVATE)",
                          re.IGNORECASE)
REDACTED = "[redacted]"


def secret_values(environ: Optional[dict] = None) -> list:
    """Values of the caller's environment that must never be echoed: every
    secret-named one of 4+ characters, and any other of 8+ characters that is
    not a plain setting. Longest first (so that a value containing another
    goes whole)."""
    env = os.environ if environ is None else environ
    out = set()
    for k, v in env.items():
        if not v:
            continue
        if _SECRET_NAME.search(k):
            if len(v) >= 4:
                out.add(v)
        elif k not in _PLAIN and len(v) >= 8 and not v.isdigit() and v.lower() not in ("true", "false"):
            if not os.path.isabs(v) or not os.path.exists(v):
                out.add(v)
    return sorted(out, key=len, reverse=True)


def redact(obj, secrets: list):
    """obj (str, dict, list) with every secret replaced by [redacted]."""
    if not secrets:
        return obj
    if isinstance(obj, str):
        for s in secrets:
            if s in obj:
                obj = obj.replace(s, REDACTED)
        return obj
    if isinstance(obj, dict):
        return {k: redact(v, secrets) for k, v in obj.items()}
    if isinstance(obj, list):
        return [redact(v, secrets) for v in obj]
    return obj


# Errors an honest script meets only because of the sandbox, and what to say.
_BLOCKED = (
    ("Read-only file system", "bwrap", "the sandbox makes all but the scratch copy and /tmp read-only"),
    ("Network is unreachable", "", "the sandbox has no network"),
    ("Temporary failure in name resolution", "", "the sandbox has no network"),
    ("Name or service not known", "", "the sandbox has no network"),
)


def explain(record: Optional[dict], iso: Isolation) -> Optional[dict]:
    """The record, with a note on an exception the sandbox caused (so that
    the verdict says why a run that works at home failed here)."""
    exc = (record or {}).get("exception")
    if not iso.isolated or not isinstance(exc, dict) or not isinstance(exc.get("message"), str):
        return record
    for text, kind, why in _BLOCKED:
        if text in exc["message"] and kind in ("", iso.kind):
            exc["message"] += f" ({why}; --sandbox none runs unisolated)"
            break
    return record


def hide_environ() -> None:
    """Linux, no sandbox: make this process's /proc/<pid>/environ unreadable
    to the runs (same user, not root): PR_SET_DUMPABLE 0."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
    except (OSError, AttributeError):
        pass


# ------------------------------------------------------------ killing what runs leave

def become_subreaper() -> bool:
    """Orphaned descendants (a double fork) are re-parented to us, not to
    init, so that they can be found and killed."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def pid_namespace() -> str:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


def _children(pid: int) -> list:
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):  # children of every thread
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out += [int(x) for x in fh.read().split()]
    except (OSError, ValueError):
        try:
            names = os.listdir("/proc")
        except OSError:  # no /proc (macOS): nothing to find
            return out
        for name in names:
            if name.isdigit():
                try:
                    with open(f"/proc/{name}/stat") as fh:
                        stat = fh.read()
                    if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(name))
                except (OSError, ValueError, IndexError):
                    continue
    return out


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_descendants(contained: bool = False, rounds: int = 50) -> None:
    """Kill every process this one has left behind. In our own PID namespace
    (`contained`, checked by the caller) that is everything but init and
    us: kill(-1). Otherwise our descendants, found through /proc (a
    subreaper adopts the orphans)."""
    me = os.getpid()
    for _ in range(rounds):
        if contained:
            try:
                os.kill(-1, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            _reap()
            if not [n for n in os.listdir("/proc") if n.isdigit() and int(n) not in (1, me)]:
                return
        else:
            stack, seen = [me], []
            while stack:
                for c in _children(stack.pop()):
                    if c not in seen:
                        seen.append(c)
                        stack.append(c)
            if not seen:
                return
            for pid in seen:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            _reap()
        time.sleep(0.01)


def _reap_main(argv: list) -> int:
    """`python -m autodetach.verify.isolate reap -- CMD...`: run CMD, then
    kill whatever it left; SIGTERM (the timeout) kills it all at once."""
    become_subreaper()
    proc = subprocess.Popen(argv)

    def on_term(signum, frame):
        kill_descendants()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    rc = proc.wait()
    kill_descendants()
    return rc if rc >= 0 else 128 - rc


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "reap" and args[1] == "--":
        sys.exit(_reap_main(args[2:]))
    sys.stderr.write("usage: python -m autodetach.verify.isolate reap -- CMD...\n")
    sys.exit(2)
