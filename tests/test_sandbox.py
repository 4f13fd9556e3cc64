"""The verification sandbox: hostile scripts under `autodetach verify` are
contained, and the verdict says how.

Each hostile script trains a small model after its hostile part; its
"patched" version only changes `zero_grad()` to `zero_grad(set_to_none=True)`
(equivalent), so a run that went through prints `equivalent`. The slow tests
run real torch programs in every sandbox that works on this machine; the
network test talks only to a server it starts on 127.0.0.1."""
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import pytest

from autodetach.cli import main
from autodetach.verify import isolate
from autodetach.verify.isolate import Isolation, SandboxUnavailable, redact, resolve, secret_values
from autodetach.verify.sandbox import Limits, child_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TRAIN = '''
torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4)
for step in range(5):
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
'''


def available(kind):
    try:
        resolve(kind)
        return True
    except SandboxUnavailable:
        return False


KINDS = [k for k in ("bwrap", "unshare", "none") if available(k)]
ISOLATED = [k for k in KINDS if k != "none"]


def scripts(tmp_path, hostile):
    d = tmp_path / "proj"
    d.mkdir()
    src = "import os\nimport sys\nimport time\nimport torch\n" + hostile + TRAIN
    (d / "train.py").write_text(src)
    (d / "train_patched.py").write_text(src.replace("opt.zero_grad()", "opt.zero_grad(set_to_none=True)"))
    return str(d / "train.py"), str(d / "train_patched.py")


def verify(capsys, kind, original, patched, *extra):
    """`autodetach verify` in this process (the fork servers are shared)."""
    try:
        main(["verify", original, patched, "--sandbox", kind, *extra])
        code = 0
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def verify_json(capsys, kind, original, patched, *extra):
    code, out, err = verify(capsys, kind, original, patched, "--output-format", "json", *extra)
    assert out.strip(), err
    return code, json.loads(out)


def processes_with(marker):
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/cmdline", "rb") as fh:
                    if marker.encode() in fh.read():
                        found.append(int(name))
            except OSError:
                pass
    return found


def wait_gone(marker, seconds=5.0):
    deadline = time.monotonic() + seconds
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    return processes_with(marker)


# ---------------------------------------------------------------- units (no torch runs)

def test_sandbox_secret_values_and_redaction():
    env = {"GITHUB_TOKEN": "ghp_abcdef123456", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG",
           "MY_API_KEY": "k-12", "PATH": "/usr/bin:/bin", "PWD": "/home/me/project", "SHLVL": "1",
           "SOME_SETTING": "a-long-opaque-value-xyz", "DEBUG": "true", "PORT": "80808080"}
    secrets = secret_values(env)
    assert {"ghp_abcdef123456", "wJalrXUtnFEMI/K7MDENG", "k-12", "a-long-opaque-value-xyz"} <= set(secrets)
    assert "/usr/bin:/bin" not in secrets and "/home/me/project" not in secrets and "true" not in secrets
    rec = {"exception": {"message": "leaked ghp_abcdef123456 and k-12"}, "losses": [1.0],
           "x": ["wJalrXUtnFEMI/K7MDENG"]}
    out = redact(rec, secrets)
    assert out["exception"]["message"] == "leaked [redacted] and [redacted]"
    assert out["x"] == ["[redacted]"] and out["losses"] == [1.0]


def test_sandbox_child_env_is_an_allow_list(monkeypatch):
    for k, v in {"GITHUB_TOKEN": "t0k3n-value", "AWS_SECRET_ACCESS_KEY": "s3cr3t", "OPENAI_API_KEY": "sk-1",
                 "HF_TOKEN": "hf_x", "MY_SECRET": "x", "GOOGLE_APPLICATION_CREDENTIALS": "/k.json"}.items():
        monkeypatch.setenv(k, v)
    env = child_env(["/scratch"])
    assert not [k for k in env if k.endswith(("_KEY", "_TOKEN", "_SECRET", "_CREDENTIALS"))], env
    assert "t0k3n-value" not in env.values()
    assert env["PYTHONPATH"].endswith("/scratch")


def test_sandbox_child_env_keeps_the_mpi_settings_of_gpu_images(monkeypatch):
    # Without OMPI_MCA_plm=isolated, Open MPI could not start its daemon in the
    # sandbox on the H200 image and every Lightning run aborted in MPI_Init.
    for k, v in {"OMPI_MCA_plm": "isolated", "PMIX_MCA_gds": "hash", "OPAL_PREFIX": "/opt/hpcx/ompi",
                 "UCX_TLS": "self", "NCCL_DEBUG": "WARN", "OMPI_SECRET": "x"}.items():
        monkeypatch.setenv(k, v)
    env = child_env([])
    assert env["OMPI_MCA_plm"] == "isolated" and env["PMIX_MCA_gds"] == "hash"
    assert env["OPAL_PREFIX"] == "/opt/hpcx/ompi" and env["UCX_TLS"] == "self" and env["NCCL_DEBUG"] == "WARN"
    assert "OMPI_SECRET" not in env


def test_sandbox_resolve_modes():
    assert resolve("none") == Isolation("none", "--sandbox none")
    with pytest.raises(SandboxUnavailable):
        resolve("chroot")
    auto = resolve("auto")
    assert auto.kind == (ISOLATED[0] if ISOLATED else "none")
    assert ("NOT isolated" in auto.describe()) == (auto.kind == "none")


def test_sandbox_bwrap_command_line(tmp_path):
    home = tmp_path / "home"
    (home / ".aws").mkdir(parents=True)
    (home / ".netrc").write_text("machine x password y\n")
    argv = isolate.bwrap_argv(["python", "x.py"], ["/scratch/run"], "/scratch/run", str(home))
    joined = " ".join(argv)
    assert argv[0] == "bwrap" and argv[-2:] == ["python", "x.py"]
    for flag in ("--unshare-all", "--unshare-user", "--ro-bind / /", "--tmpfs /tmp", "--proc /proc",
                 "--bind /scratch/run /scratch/run", f"--tmpfs {home}/.aws", f"--ro-bind /dev/null {home}/.netrc"):
        assert flag in joined, flag
    # The writable bind comes after the read-only root and the private /tmp.
    assert joined.index("--bind /scratch/run") > joined.index("--tmpfs /tmp") > joined.index("--ro-bind / /")


def test_sandbox_unknown_choice_is_a_one_line_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["verify", __file__, __file__, "--sandbox", "chroot"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--sandbox" in err and "Traceback" not in err


@pytest.mark.skipif(not available("bwrap"), reason="bubblewrap cannot run here")
def test_sandbox_bwrap_is_the_auto_choice_here():
    assert resolve("auto").kind == "bwrap"


# ---------------------------------------------------------------- hostile scripts

SECRET_PROBE = '''
found = []
for k, v in os.environ.items():
    if k.endswith(("_TOKEN", "_KEY", "_SECRET")):
        found.append(f"own environment {k}={v}")
pid = os.getppid()
while pid > 1:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            for item in fh.read().split(b"\\0"):
                if item.startswith(b"AUTODETACH_TEST_TOKEN="):
                    found.append(f"environ of pid {pid}: {item.decode()}")
        with open(f"/proc/{pid}/stat") as fh:
            pid = int(fh.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError):
        break
if found:
    print("LEAK", found)
    raise RuntimeError("leaked " + "; ".join(found))
'''


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_sandbox_secret_from_own_and_parent_environment(tmp_path, kind):
    # A fresh `autodetach` process: /proc/PID/environ shows the environment a
    # process started with, so the secret must be there from the start.
    secret = "adtest-" + uuid.uuid4().hex
    original, patched = scripts(tmp_path, SECRET_PROBE)
    env = dict(os.environ, AUTODETACH_TEST_TOKEN=secret, SERVICE_API_KEY=secret + "k", PYTHONPATH=ROOT)
    p = subprocess.run([sys.executable, "-m", "autodetach", "verify", original, patched, "--sandbox", kind,
                        "--timeout", "60"], capture_output=True, text=True, env=env, timeout=300)
    out = p.stdout + p.stderr
    assert secret not in out, out
    if kind == "none":
        # Not isolated: the script finds the secret in the parent's /proc
        # (this test runs as the same user), and the report redacts it.
        assert "NOT isolated" in out, out
        if os.geteuid() == 0:
            assert "leaked" in out and "[redacted]" in out, out
    else:
        # Isolated: its own environment is clean and no ancestor is visible.
        assert "leaked" not in out, out
        assert "equivalent" in out and "Sandbox: runs isolated by" in out, out


def outside_writer(paths):
    return '''
for d in %r:
    try:
        with open(os.path.join(d, "marker-" + str(os.getpid())), "w") as fh:
            fh.write("escaped")
    except OSError as exc:
        print("blocked:", exc)
''' % (paths,)


@pytest.mark.slow
@pytest.mark.parametrize("kind", [k for k in KINDS if k != "unshare"])
def test_sandbox_writes_outside_the_scratch_copy(tmp_path, capsys, kind):
    in_tmp = tmp_path / "users-dir"
    in_tmp.mkdir()
    not_tmp = tempfile.mkdtemp(prefix=".sandbox-test-", dir=ROOT)  # outside /tmp: the read-only view
    try:
        original, patched = scripts(tmp_path, outside_writer([str(in_tmp), not_tmp]))
        code, out, err = verify(capsys, kind, original, patched)
        written = os.listdir(in_tmp) + os.listdir(not_tmp)
        if kind == "none":
            assert len(written) == 6 and "NOT isolated" in out, (written, out)  # before, after, reference x 2
        else:
            assert written == [], written
            assert "equivalent" in out and "read-only except the scratch copy" in out, out
            assert code == 0, out + err
    finally:
        for name in os.listdir(not_tmp):
            os.remove(os.path.join(not_tmp, name))
        os.rmdir(not_tmp)


def daemon_spawner(marker, then=""):
    # Double fork + setsid: the grandchild escapes the run's process group.
    return '''
import subprocess
ready = os.path.abspath("daemon-ready-" + str(os.getpid()))
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        open(ready, "w").close()
        os.execvp("sleep", ["sleep", "%s"])
    os._exit(0)
os.wait()
for _ in range(400):
    if os.path.exists(ready):
        break
    time.sleep(0.025)
else:
    raise RuntimeError("the daemon did not start")
%s
''' % (marker, then)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_sandbox_daemon_is_killed_after_the_run(tmp_path, capsys, kind):
    marker = f"{4000 + os.getpid() % 1000}.{uuid.uuid4().int % 10**9}"
    original, patched = scripts(tmp_path, daemon_spawner(marker))
    try:
        code, out, err = verify(capsys, kind, original, patched)
        # equivalent: every run saw its daemon start, then trained.
        assert "equivalent" in out, out + err
        assert wait_gone(marker) == []
    finally:
        for pid in processes_with(marker):
            os.kill(pid, 9)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_sandbox_timeout_kills_the_whole_tree(tmp_path, capsys, kind):
    marker = f"{5000 + os.getpid() % 1000}.{uuid.uuid4().int % 10**9}"
    original, patched = scripts(tmp_path, daemon_spawner(marker, then="time.sleep(600)"))
    try:
        code, doc = verify_json(capsys, kind, original, patched, "--timeout", "4")
        runs = doc["file"]["runs"]
        assert all(r["status"] == "timeout" for r in runs.values()), runs
        assert wait_gone(marker) == []
        assert doc["sandbox"]["kind"] == kind
    finally:
        for pid in processes_with(marker):
            os.kill(pid, 9)


class Listener:
    """A TCP server on 127.0.0.1 that counts the connections it accepts."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.stop = False
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self):
        self.stop = True
        self.thread.join()
        self.sock.close()


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_sandbox_network_connection_to_loopback(tmp_path, capsys, kind):
    srv = Listener()
    try:
        probe = '''
import socket
try:
    socket.create_connection(("127.0.0.1", %d), timeout=3).close()
    print("connected")
except OSError as exc:
    print("no network:", exc)
''' % srv.port
        original, patched = scripts(tmp_path, probe)
        code, out, err = verify(capsys, kind, original, patched)
        assert "equivalent" in out, out + err
        if kind == "none":
            assert srv.accepted == 3 and "NOT isolated" in out  # the probe works: without a sandbox it connects
        else:
            assert srv.accepted == 0
    finally:
        srv.close()


UNBOUNDED = '''
blocks = []
while True:
    blocks.append(bytearray(16 << 20))  # zero-filled: really touched
'''


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_sandbox_unbounded_allocation_hits_the_memory_limit(tmp_path, kind):
    from autodetach.verify.compare import judge
    from autodetach.verify.integrate import Verifier, diff_spans

    original, patched = scripts(tmp_path, UNBOUNDED)
    with open(original, "rb") as fh:
        old = fh.read()
    with open(patched, "rb") as fh:
        new = fh.read()
    with Verifier(sandbox=kind, timeout=60) as v:
        v.limits = Limits(timeout=60, memory=384 << 20)
        scratch, reqs = v.plan({original: (old, new, diff_spans(old, new))}, os.path.dirname(original), original)
        runs = v.execute([reqs])[0]
    for name, run in runs.items():
        assert not run.timed_out, name
        assert run.record and run.record["exception"]["type"] == "MemoryError", (name, run.record)
    j = judge(runs["before"], runs["after"], runs["reference"]).as_dict()
    assert "MemoryError" in json.dumps(j["runs"]), j


def test_sandbox_named_but_unavailable_is_a_one_line_error(tmp_path, capsys, monkeypatch):
    # As on a machine without bubblewrap (the probe's answer is cached per process).
    monkeypatch.setitem(isolate._PROBED, "bwrap", "bwrap is not installed")
    original, patched = scripts(tmp_path, "")
    with pytest.raises(SystemExit) as exc:
        main(["verify", original, patched, "--sandbox", "bwrap"])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert err.strip() == "autodetach: error: --sandbox bwrap: bwrap is not installed", err


def test_sandbox_auto_without_any_says_not_isolated(monkeypatch):
    monkeypatch.setitem(isolate._PROBED, "bwrap", "bwrap is not installed")
    monkeypatch.setitem(isolate._PROBED, "unshare", "unshare cannot run here: Operation not permitted")
    iso = resolve("auto")
    assert iso.kind == "none" and not iso.isolated
    assert iso.describe().startswith("runs NOT isolated (no sandbox available: bwrap is not installed; unshare")
    from autodetach.verify.report import isolation_line

    assert isolation_line([iso.as_dict(), resolve("none").as_dict()]).startswith("Sandbox: runs NOT isolated")


def test_sandbox_explains_errors_it_caused():
    def rec(msg):
        return {"exception": {"type": "OSError", "message": msg}}

    bw, un, no = Isolation("bwrap"), Isolation("unshare"), Isolation("none", "x")
    ro = "[Errno 30] Read-only file system: '/data/ckpt.pt'"
    assert "read-only" in isolate.explain(rec(ro), bw)["exception"]["message"].split(ro)[1]
    assert isolate.explain(rec(ro), un)["exception"]["message"] == ro  # unshare leaves files writable
    assert isolate.explain(rec(ro), no)["exception"]["message"] == ro
    net = "[Errno -3] Temporary failure in name resolution"
    assert "no network" in isolate.explain(rec(net), un)["exception"]["message"]
    assert isolate.explain(None, bw) is None


@pytest.mark.slow
@pytest.mark.skipif("bwrap" not in KINDS, reason="bubblewrap cannot run here")
def test_sandbox_honest_checkpoint_outside_the_tree_is_explained(tmp_path, capsys):
    not_tmp = tempfile.mkdtemp(prefix=".sandbox-test-", dir=ROOT)
    try:
        original, patched = scripts(tmp_path, "open(%r, 'w').write('ckpt')\n" % os.path.join(not_tmp, "c.pt"))
        code, doc = verify_json(capsys, "bwrap", original, patched)
        err = doc["file"]["runs"]["before"]["error"]
        assert "Read-only file system" in err and "the sandbox makes" in err, err
        assert os.listdir(not_tmp) == []
    finally:
        for name in os.listdir(not_tmp):
            os.remove(os.path.join(not_tmp, name))
        os.rmdir(not_tmp)


SEES_PATH = '''
import json, sys
try:
    import fc_shadow
    where = fc_shadow.__file__
except ImportError:
    where = None
print(json.dumps({"path": sys.path, "shadow": where}))
'''


def _path_probe(tmp_path):
    prog = tmp_path / "prog"
    clutter = tmp_path / "clutter"
    prog.mkdir()
    clutter.mkdir()
    (prog / "sees_path.py").write_text(SEES_PATH)
    (clutter / "fc_shadow.py").write_text("X = 1\n")
    return prog, clutter


@pytest.mark.slow
def test_fresh_child_does_not_put_its_working_directory_on_sys_path(tmp_path):
    # `python -m` would put the directory it starts in on sys.path; a run must
    # import like `python script.py`: its own directory, never the cwd.
    prog, clutter = _path_probe(tmp_path)
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"plain": True, "argv": [str(prog / "sees_path.py")]}))
    env = child_env([], "cpu")
    out = subprocess.run([sys.executable, "-m", "autodetach.verify.child", str(cfg)], cwd=clutter, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["shadow"] is None
    assert seen["path"][0] == str(prog)
    assert str(clutter) not in seen["path"]


@pytest.mark.slow
def test_fork_server_runs_do_not_see_the_servers_directory(tmp_path):
    from autodetach.verify.probe import run_plain
    from autodetach.verify.sandbox import PKG_PARENT, package_dir

    prog, _ = _path_probe(tmp_path)
    out = run_plain(str(prog / "sees_path.py"), timeout=120)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["path"][0] == str(prog)
    if PKG_PARENT != package_dir():  # the server starts in PKG_PARENT; only the link directory is ours
        assert PKG_PARENT not in seen["path"]


def test_tmp_itself_is_never_bound_into_the_sandbox(monkeypatch):
    # `python -m autodetach` run from /tmp puts /tmp on sys.path; binding it read-only undid the
    # private /tmp and showed torch its own caches there (every fork-server run failed in dynamo)
    from autodetach.verify.isolate import _tmp_paths

    sub = tempfile.mkdtemp(dir="/tmp")
    try:
        monkeypatch.setattr(sys, "path", ["/tmp", sub, *sys.path])
        paths = _tmp_paths()
        assert "/tmp" not in paths
        assert sub in paths
    finally:
        os.rmdir(sub)
