"""The verifier's parts: growth detection, entry points, line mapping, the
environment allow-list, the instrumentation's faithfulness, and the fork
server against a fresh interpreter."""
import textwrap

import pytest

from autodetach.verify import compare
from autodetach.verify.forkserver import ServerPool
from autodetach.verify.integrate import Verifier, diff_spans, entry_point, map_span
from autodetach.verify.probe import measure, run_plain
from autodetach.verify.sandbox import child_env, find_tree_root


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return str(p)


def test_grows_needs_a_clear_steady_increase():
    assert compare.grows([10, 20, 30, 40, 50], 8)
    assert not compare.grows([10, 10, 10, 10, 10], 8)
    assert not compare.grows([10, 22, 22, 22, 22], 8)  # one step of warm-up, then flat
    assert not compare.grows([10, 12, 11, 13, 12], 8)  # noise below the margin
    assert not compare.grows([50, 40, 30, 20], 8)
    assert not compare.grows([1, 100], 8)  # too few points


def test_entry_points():
    assert entry_point(b"def f():\n    pass\nif __name__ == '__main__':\n    f()\n") == "main guard"
    assert entry_point(b"import torch\nfor i in range(3):\n    pass\n") == "top-level code"
    assert entry_point(b"import torch\nmodel = 1\nloss.backward()\n") == "top-level code"
    assert entry_point(b"import torch\n\ndef train():\n    loss.backward()\n\nX = 3\n") is None
    assert entry_point(b"x = f(async=True)\n") is None  # does not parse


def test_line_mapping_follows_inserted_lines():
    old = b"a\nb\nc\nd\n"
    new = b"a\nwith x:\n    b\nc\nd\n"
    assert map_span(old, new, 2, 2) == {2, 3}
    assert map_span(old, new, 4, 4) == {5}
    spans = diff_spans(old, new)
    assert len(spans) == 1 and spans[0].old == {2} and spans[0].new == {2, 3}


def test_environment_is_an_allow_list(monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "hunter2")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_x")
    env = child_env(["/tmp/x"], "cpu")
    assert "AWS_SECRET_ACCESS_KEY" not in env and "GITHUB_TOKEN" not in env
    assert env["CUDA_VISIBLE_DEVICES"] == "" and env["OMP_NUM_THREADS"] == "1"
    assert "hunter2" not in repr(env)


def test_secrets_do_not_reach_the_user_code(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_API_TOKEN", "s3cret")
    script = write(tmp_path, "show_env.py", """\
        import os
        print(sorted(os.environ))
        print(os.environ.get("MY_API_TOKEN"))
    """)
    out = run_plain(script, env=child_env([], "cpu"))
    assert out.returncode == 0
    assert "s3cret" not in out.stdout and "MY_API_TOKEN" not in out.stdout


def test_tree_root_is_above_packages(tmp_path):
    pkg = tmp_path / "proj" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "train.py").write_text("")
    assert find_tree_root(str(pkg / "train.py")) == str(tmp_path / "proj")


GROWING = """\
    import torch
    torch.manual_seed(0)
    m = torch.nn.Linear(4, 4)
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    kept = []
    for i in range(40):
        out = m(torch.randn(8, 4))
        kept.append(out{detach})
        loss = out.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


def test_probe_sees_graphs_kept_alive(tmp_path):
    leak = measure(write(tmp_path, "leak.py", GROWING.format(detach="")), steps=8)
    flat = measure(write(tmp_path, "flat.py", GROWING.format(detach=".detach()")), steps=8)
    assert leak.status == "budget" and len(leak.live_nodes) == 8
    assert leak.grows(), leak
    assert not flat.grows(), flat


def test_probe_sees_saved_tensors_kept_alive(tmp_path):
    # Graphs that are never backwarded keep their saved tensors.
    script = write(tmp_path, "saved.py", """\
        import torch
        m = torch.nn.Linear(16, 16)
        opt = torch.optim.SGD(m.parameters(), lr=0.1)
        extra = []
        for i in range(30):
            extra.append(torch.tanh(m(torch.randn(32, 16))))
            loss = m(torch.randn(4, 16)).sum()
            opt.zero_grad(); loss.backward(); opt.step()
    """)
    m = measure(script, steps=8)
    assert m.live_bytes[-1] > m.live_bytes[1] > 0
    assert m.grows()


def test_instrumentation_keeps_autograd_checks(tmp_path):
    # Saved-tensor hooks would hide the in-place error; the runner restores it.
    script = write(tmp_path, "inplace.py", """\
        import torch
        w = torch.randn(3, requires_grad=True)
        b = w * 2
        c = b.sin()
        b.add_(1)
        c.sum().backward()
    """)
    plain = run_plain(script)
    assert "modified by an inplace operation" in plain.stderr
    m = measure(script, steps=3)
    assert m.status == "error" and "modified by an inplace operation" in m.error


def test_reference_run_forces_retain_graph(tmp_path):
    script = write(tmp_path, "twice.py", """\
        import torch
        torch.manual_seed(0)
        m = torch.nn.Linear(3, 1)
        opt = torch.optim.SGD(m.parameters(), lr=0.1)
        for i in range(4):
            loss = m(torch.randn(5, 3)).tanh().sum()
            opt.zero_grad()
            loss.backward()
            torch.autograd.grad(loss, m.weight)
            opt.step()
    """)
    old = open(script, "rb").read()
    with Verifier(steps=3) as v:
        scratch, reqs = v.plan({script: (old, old, [])}, str(tmp_path), script)
        runs = v.execute([reqs])[0]
    assert runs["before"].status == "error"
    assert "second time" in runs["before"].exception["message"]
    # The budget ends the loop, not the process: the run completes.
    assert runs["reference"].status == "ok"
    assert runs["reference"].record["stopped_by"] == "loops"
    assert runs["reference"].record["opt_steps"] == 3


@pytest.mark.slow
def test_fork_server_and_fresh_interpreter_agree(tmp_path):
    script = write(tmp_path, "s.py", GROWING.format(detach=".detach()"))
    old = open(script, "rb").read()
    recs = []
    for use_fork in (True, False):
        with ServerPool(1, use_fork=use_fork) as pool, Verifier(steps=3, pool=pool) as v:
            scratch, reqs = v.plan({script: (old, old, [])}, str(tmp_path), script)
            recs.append(v.execute([{"after": reqs["after"]}])[0]["after"])
    fork, fresh = recs
    assert fork.status == fresh.status == "ok"
    assert fork.record["stopped_by"] == fresh.record["stopped_by"] == "loops"
    assert compare.divergence(fork, fresh) is None
    assert fork.series("live_nodes") == fresh.series("live_nodes")


@pytest.mark.slow
def test_a_pool_runs_as_many_at_once_as_its_size(tmp_path):
    # Three runs of 3 s through a pool of two: the second run finds the first
    # server busy and starts another (the old rule, "more than 4 waiting per
    # server", never held under run_many's limit: one server, runs in turn).
    script = write(tmp_path, "nap.py", """\
        import time
        time.sleep(3)
    """)
    old = open(script, "rb").read()
    with ServerPool(2, use_fork=True) as pool, Verifier(steps=3, pool=pool, sandbox="none") as v:
        scratch, reqs = v.plan({script: (old, old, [])}, str(tmp_path), script)
        runs = v.execute([reqs])[0]
        assert len(pool.servers) == 2
    assert all(r.status == "ok" for r in runs.values()), {n: r.status for n, r in runs.items()}


def test_cuda_shim_maps_devices(tmp_path):
    script = write(tmp_path, "legacy.py", """\
        import torch
        m = torch.nn.Linear(2, 2).cuda()
        x = torch.zeros(3, 2, device="cuda") + torch.ones(3, 2).cuda()
        y = x.to("cuda:0").to(torch.device("cuda"))
        z = torch.cuda.FloatTensor(2).zero_()
        assert not torch.cuda.is_available()
        loss = m(y).sum() + z.sum()
        loss.backward()
        print("ok", y.device, m.weight.device)
    """)
    m = measure(script, steps=3)
    assert m.status == "ok", m.error


def test_copy_tree_skips_its_own_destination(tmp_path):
    """A file right in the temp directory: the scratch copy lives inside the
    tree being copied and must not copy itself."""
    from autodetach.verify.sandbox import copy_tree

    (tmp_path / "a.py").write_text("x = 1\n")
    dst = tmp_path / "autodetach-verify-xyz" / "pristine"
    copy_tree(str(tmp_path), str(dst))
    assert (dst / "a.py").read_text() == "x = 1\n"
    assert not (dst / "autodetach-verify-xyz").exists()


def _failed_run(name, message):
    from autodetach.verify.compare import Run

    return Run(name, {"status": "error", "exception": {"type": "FileNotFoundError", "message": message}},
               returncode=1)


def test_all_three_failing_alike_is_unverifiable_not_regressed():
    """A package whose data lies outside the copied tree fails the same way in
    every run: nothing got worse, nothing was shown."""
    from autodetach.verify.compare import judge

    runs = [_failed_run(n, "No such file or directory: '../data/train.txt'") for n in ("before", "after", "reference")]
    assert judge(*runs).verdict == "unverifiable"
    # the reference passes where after still fails: the fix did not remove the error
    from autodetach.verify.compare import Run

    ok = Run("reference", {"status": "ok", "events": []}, returncode=0)
    assert judge(runs[0], runs[1], ok).verdict == "regressed"


def test_a_failure_shared_by_every_run_is_named_at_the_original_line():
    """A fix that adds a helper shifts the fixed file's lines: the same error
    is named where the user's file has it."""
    from autodetach.verify.compare import Run, judge

    def failed(name, line):
        return Run(name, {"status": "error", "exception": {"type": "ValueError", "message": "too many values",
                                                           "file": "lm.py", "line": line}}, returncode=1)

    j = judge(failed("before", 15), failed("after", 24), failed("reference", 15))
    assert j.verdict == "unverifiable"
    assert "ValueError at lm.py:15: too many values" in j.details, j.details
    ok = Run("reference", {"status": "ok", "events": []}, returncode=0)
    j = judge(failed("before", 15), failed("after", 24), ok)
    assert j.verdict == "regressed" and "lm.py:15" in j.details, j.details


def test_a_repair_without_a_reference_is_repaired_not_fixed():
    # `fixed` claims the reference's numbers. When the original fails and the
    # retain_graph reference fails too (an in-place update of a retained
    # graph), the after run's numbers were compared with nothing: say so.
    from autodetach.verify.compare import Run, judge

    def failed(name, kind, message):
        return Run(name, {"status": "error", "exception": {"type": "RuntimeError", "message": message,
                                                           "file": "train.py", "line": 11}}, returncode=1)

    before = failed("before", "RuntimeError", "Trying to backward through the graph a second time")
    reference = failed("reference", "RuntimeError", "one of the variables needed for gradient computation "
                                                    "has been modified by an inplace operation")
    after = Run("after", {"status": "ok", "events": []}, returncode=0)
    j = judge(before, after, reference)
    assert j.verdict == "repaired" and j.equivalent is False, j.details
    assert "could not be compared" in j.details and "modified by an inplace operation" in j.details, j.details
    assert judge(before, after, None).verdict == "repaired"


def test_all_three_dying_alike_is_unverifiable_whatever_their_process_ids():
    """On a GPU machine with Open MPI, Lightning's MPI probe aborted every run
    of a Lightning program, each message naming its own process id: the fix
    was judged regressed although the reference died the same way."""
    from autodetach.verify.compare import Run, judge

    def died(name, pid):
        return Run(name, None, returncode=1,
                   stderr=f"*** An error occurred in MPI_Init_thread\n[vm:{pid:05d}] Local abort before MPI_INIT\n")

    runs = [died("before", 3), died("after", 9), died("reference", 15)]
    j = judge(*runs)
    assert j.verdict == "unverifiable", j.details
    # a different crash after the fix is still a regression
    other = Run("after", None, returncode=-11, stderr="Segmentation fault\n")
    assert judge(runs[0], other, runs[2]).verdict == "regressed"
    # and so is after dying where the reference ran
    ok = Run("reference", {"status": "ok", "events": []}, returncode=0)
    assert judge(runs[0], runs[1], ok).verdict == "regressed"


def test_a_fix_whose_run_stops_in_another_file_is_not_regressed():
    """A legacy package: fixing utils.py removes its error, and the run then
    stops at model.py's own legacy error, which this fix does not touch."""
    from autodetach.verify.integrate import moved_on

    d = {"verdict": "regressed", "details": "after fails differently",
         "runs": {"before": {"error": "TypeError at pkg/utils.py:10: iteration over a 0-d tensor"},
                  "after": {"error": "RuntimeError at pkg/model.py:29: Legacy autograd function"}}}
    out = moved_on(d, "/x/pkg/utils.py")
    assert out["verdict"] == "unverifiable"
    assert "utils.py (line 10)" in out["details"] and "pkg/model.py:29" in out["details"]
    # after failing in the rewritten file itself stays a regression
    d["runs"]["after"]["error"] = "RuntimeError at pkg/utils.py:12: boom"
    assert moved_on(d, "/x/pkg/utils.py")["verdict"] == "regressed"
    # and so does an original that stopped elsewhere
    d["runs"]["before"]["error"] = "TypeError at pkg/train.py:3: x"
    d["runs"]["after"]["error"] = "RuntimeError at pkg/model.py:29: y"
    assert moved_on(d, "/x/pkg/utils.py")["verdict"] == "regressed"


def test_a_script_that_needs_arguments_says_so():
    """A training script with a required argparse option exits with status 2
    in every run: the details named only `SystemExit ...: 2`, not argparse's
    message nor how to pass arguments."""
    from autodetach.verify.compare import Run, judge

    def exited(name):
        return Run(name, {"status": "error", "exception": {"type": "SystemExit", "message": "2",
                                                           "file": "run.py", "line": 12}}, returncode=1,
                   stderr="usage: run.py [-h] --lr LR\nrun.py: error: the following arguments are required: --lr\n")

    j = judge(exited("before"), exited("after"), exited("reference"))
    assert j.verdict == "unverifiable", j.details
    assert "the following arguments are required: --lr" in j.details, j.details
    assert "--run" in j.details, j.details
    assert "the following arguments are required" in j.runs["before"]["error"]


def test_an_after_run_ended_by_the_backstop_is_not_fixed():
    """Lightning's loop runs in library code: the backstop ended the after
    run, so `print(model.total)` in main never ran, and the verdict was
    `fixed` (uses outside the class are not followed)."""
    from autodetach.verify.compare import Judgement
    from autodetach.verify.integrate import span_verdict

    j = Judgement("fixed", "after completes, stays flat", equivalent=True)
    d = span_verdict(j, True, "AD102", [], {"before": None, "after": "backstop", "reference": "backstop"})
    assert d["verdict"] == "partial" and d["file_verdict"] == "fixed", d
    assert "did not reach the program's end" in d["details"] and "backstop" in d["details"]
    d = span_verdict(j, True, "AD102", [], {"before": None, "after": "loops", "reference": "backstop"})
    assert d["verdict"] == "fixed", d


def _stepped(name, value, device="cpu", shim=False):
    from autodetach.verify.compare import Run

    ev = {"kind": "step", "opt": 0, "params": [["0.0", "w", value, [value, 1.0]]]}
    return Run(name, {"status": "ok", "events": [ev], "device": device, "cpu_shim": shim}, returncode=0)


def test_cpu_runs_must_agree_to_a_millionth():
    # A cut worth 2e-6 on a CPU run is a change (a GradScaler project's AD101 fix passed as "matches" at 1e-4).
    assert compare.divergence(_stepped("after", 0.500002), _stepped("reference", 0.5)) is not None
    assert compare.divergence(_stepped("after", 0.5000000001), _stepped("reference", 0.5)) is None


def test_gpu_runs_keep_the_looser_bound():
    assert compare.divergence(_stepped("after", 0.500002, "cuda"), _stepped("reference", 0.5, "cuda")) is None
    shim = compare.divergence(_stepped("after", 0.500002, "cuda", True), _stepped("reference", 0.5, "cuda", True))
    assert shim is not None  # the cuda->cpu shim runs on the CPU


def test_verdict_follows_the_findings_own_fix_safety():
    # AD102's class says safe, but a detach whose graph was inferred is an unsafe fix: when it repairs a
    # crash and diverges from the reference it is "repaired" (not equivalent), not "changed", and never
    # "fixed", which claims the reference's numbers. An AD101 detach
    # marked safe (nothing backwards the value) claims equivalence: diverging is "changed".
    from autodetach.verify.compare import Divergence, Judgement
    from autodetach.verify.integrate import span_verdict

    j = Judgement("changed", "params differ at step 2", repair="the original's error is gone",
                  divergence=Divergence(2, "w", "0.5 vs 0.6"))
    assert span_verdict(j, True, "AD102", [], None, "unsafe")["verdict"] == "repaired"
    assert span_verdict(j, True, "AD102", [], None, "unsafe")["equivalent"] is False
    assert span_verdict(j, True, "AD102", [], None, "safe")["verdict"] == "changed"
    assert span_verdict(j, True, "AD101", [], None, "safe")["verdict"] == "changed"
    assert span_verdict(j, True, "AD101", [], None, "unsafe")["verdict"] == "repaired"
    assert span_verdict(j, True, "AD106", [], None, "safe")["verdict"] == "repaired"  # a truncation


def _backstopped(name, progress, opt_steps=50):
    from autodetach.verify.compare import Run

    rec = {"status": "budget", "stopped_by": "backstop", "stopped_by_budget": True, "opt_steps": opt_steps,
           "progress": progress, "events": []}
    return Run(name, rec, returncode=0)


def test_no_longer_try_where_the_trainer_cannot_finish_within_it():
    # A Lightning fit of 1600 steps, ended by the backstop at 50: the ten times longer try (500) was ended
    # there too, and doubled --verify's time for nothing. A fit of 160 steps can finish in it: tried.
    from autodetach.verify.integrate import beyond_reach

    far = {n: _backstopped(n, [50, 1600]) for n in ("before", "after", "reference")}
    why = beyond_reach(far, 10)
    assert why and "plans 1600 optimizer steps" in why and "500" in why, why
    endless = {n: _backstopped(n, [50, None]) for n in ("before", "after")}
    assert "trains without end" in beyond_reach(endless, 10)
    near = {n: _backstopped(n, [50, 160]) for n in ("before", "after")}
    assert beyond_reach(near, 10) is None
    unknown = {n: _backstopped(n, None) for n in ("before", "after")}  # a loop that does not say: tried
    assert beyond_reach(unknown, 10) is None
    mixed = {"before": _backstopped("before", [50, 1600]), "after": _backstopped("after", None)}
    assert beyond_reach(mixed, 10) is None


def test_every_run_timed_out_is_unverifiable_not_regressed():
    # A Lightning project on a busy machine: before, after and reference all hit --timeout, and the rewrite
    # was "regressed: the fix does not remove the error: timed out", although nothing got worse.
    from autodetach.verify.compare import Run, judge

    def slow(name):
        return Run(name, None, returncode=None, timed_out=True, wall=120.0)

    j = judge(slow("before"), slow("after"), slow("reference"))
    assert j.verdict == "unverifiable" and "every run timed out" in j.details and "--timeout" in j.details, j
    ok = Run("reference", {"status": "ok", "events": []}, returncode=0)
    assert judge(slow("before"), slow("after"), ok).verdict == "regressed"  # the reference ran: the fix did not


def test_a_longer_try_cut_by_the_timeout_does_not_replace_the_first_runs():
    # A Lightning fit: the first runs ended at the backstop (50 steps, the after run flat); the longer try
    # (500 steps) ran past --timeout in all three, replaced them, and the verdict became "regressed: the fix
    # does not remove the error: timed out".
    from autodetach.verify.compare import Run
    from autodetach.verify.integrate import longer_kept

    first = {n: _backstopped(n, None) for n in ("before", "after", "reference")}
    late = {n: Run(n, None, timed_out=True, wall=120.0) for n in first}
    keep, note = longer_kept(first, late, False, 50)
    assert not keep and "ran past --timeout" in note, note
    ended = {n: Run(n, {"status": "ok", "events": []}, returncode=0) for n in first}
    keep, note = longer_kept(first, ended, False, 50)
    assert keep and note == "tried again with a budget of 50 steps", note
