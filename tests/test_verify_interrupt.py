"""An interrupted `--verify` keeps the work done: a real CLI process, sent
SIGTERM (as `timeout` does) while a run is in flight, writes the report with
the finished verdicts and the rest `interrupted`, leaves no process behind,
and exits 143 (130 for SIGINT)."""
import json
import os
import signal
import subprocess
import sys
import time
import uuid

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytestmark = pytest.mark.slow  # runs torch programs

# A stored activation's graph freed by the last backward: an AD101 fix.
BODY = """
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
history = []
for it in range(4):
    z = net(torch.randn(8, 4))
    loss = z.pow(2).mean()
    if history:
        loss = loss + (z - history[-1]).pow(2).mean()
    history.append(z)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""

# Each run of fast.py notes that it ran; slow.py waits for the three (at most
# 30 s), then records its pid, its parent's (the fork server) and a child's,
# and sleeps. Both files are in /tmp: a bubblewrap server's runs share its
# private /tmp, and the test sees the real one's only without a sandbox.
FAST = "import os\nwith open({marks!r}, 'a') as fh:\n    fh.write('run\\n')\n" + BODY
SLOW = """import os, subprocess, time
for _ in range(300):
    if os.path.exists({marks!r}) and open({marks!r}).read().count('run') >= 3:
        break
    time.sleep(0.1)
time.sleep(1)
kid = subprocess.Popen(['sleep', {nap!r}])
with open({pids!r}, 'w') as fh:
    fh.write(f'{{os.getpid()}} {{os.getppid()}} {{kid.pid}}')
time.sleep(300)
""" + BODY


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _sleepers(nap: str) -> list:
    """Processes running `sleep NAP` (a token unique to the test), seen from here."""
    out = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/cmdline", "rb") as fh:
                if fh.read().split(b"\0")[:2] == [b"sleep", nap.encode()] and _alive(int(name)):
                    out.append(int(name))
        except (OSError, ValueError):
            continue
    return out


def _start(tmp_path, marks, pids, nap, sandbox):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "fast.py").write_text(FAST.format(marks=marks))
    (tree / "slow.py").write_text(SLOW.format(marks=marks, pids=pids, nap=nap))
    out = tmp_path / "out.json"
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.Popen(
        [sys.executable, "-m", "autodetach", "--no-cache", "--verify", "--unsafe-fixes", "--sandbox", sandbox,
         "--output-format", "json", "-o", str(out), str(tree)],
        cwd=str(tmp_path), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while not _sleepers(nap):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the slow run never started"
        time.sleep(0.2)
    return proc, out


# Without a sandbox the pids are ours to check; bubblewrap's are another namespace's.
@pytest.mark.parametrize("sig,code,sandbox", [(signal.SIGTERM, 143, "none"), (signal.SIGINT, 130, "auto")])
def test_signal_mid_verify_writes_the_report_and_kills_the_runs(tmp_path, sig, code, sandbox):
    token = uuid.uuid4().hex
    marks, pids = f"/tmp/autodetach-test-{token}-marks", f"/tmp/autodetach-test-{token}-pids"
    nap = f"{300 + int(token[:6], 16) % 1000 / 1000:.3f}"
    try:
        proc, out = _start(tmp_path, marks, pids, nap, sandbox)
        _stop_and_check(proc, out, sig, code, nap, pids if sandbox == "none" else None)
    finally:
        for p in (marks, pids):
            if os.path.exists(p):
                os.remove(p)


def _stop_and_check(proc, out, sig, code, nap, pids):
    if pids is not None:
        for _ in range(100):  # written just after the sleeper starts
            if os.path.exists(pids) and len(open(pids).read().split()) == 3:
                break
            time.sleep(0.1)
        with open(pids) as fh:
            run_pid, server_pid, kid_pid = (int(x) for x in fh.read().split())
    t0 = time.monotonic()
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=60)
    assert time.monotonic() - t0 < 30, "stopping took too long"
    assert proc.returncode == code, stderr
    assert "interrupted" in stderr
    doc = json.loads(out.read_text())
    verdicts = {os.path.basename(f["path"]): f["verification"] for f in doc["findings"] if f.get("verification")}
    assert verdicts["fast.py"]["verdict"] in ("fixed", "equivalent", "repaired"), verdicts["fast.py"]
    assert verdicts["slow.py"]["verdict"] == "interrupted", verdicts["slow.py"]
    assert "interrupted" in verdicts["slow.py"]["details"]
    assert set(verdicts["fast.py"]["run_seconds"]) == {"before", "after", "reference", "total"}
    time.sleep(0.5)
    assert not _sleepers(nap), "the run's child outlived the interrupted verify"
    if pids is not None:
        for pid in (run_pid, server_pid, kid_pid):
            assert not _alive(pid), f"process {pid} outlived the interrupted verify"
