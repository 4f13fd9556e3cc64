"""Verification end to end, with real torch runs: `autodetach verify ORIGINAL
PATCHED` on right and wrong fixes, and `autodetach --verify` on rule fixes.

The runs go through the per-process fork server (torch imported once per
test worker), so each verification costs a fraction of a second after the
first."""
import json
import os
import shutil

import pytest

from .cli_helper import invoke
from .legacy_tree import snapshot

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "verify")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytestmark = pytest.mark.slow  # every test runs torch programs


def cli(*args, cwd=None):
    res = invoke(args, cwd)
    return res.code, res.out, res.err


def verify_json(original, patched, *extra):
    code, out, err = cli("verify", os.path.join(DATA, original), os.path.join(DATA, patched),
                         "--output-format", "json", *extra)
    assert out.strip(), err
    return code, json.loads(out)


# ---------------------------------------------------------------- wrong fixes

def test_detach_between_two_models_with_one_optimizer_is_changed():
    code, doc = verify_json("two_models.py", "two_models.wrong.py")
    assert doc["verdict"] == "changed", doc["details"]
    div = doc["file"]["divergence"]
    # model1 stops learning from loss2: its first parameter diverges at the first step.
    assert div["parameter"].startswith("model1."), div
    assert div["step"] == 1 and div["unit"] == "optimizer step"
    assert doc["rewrites"][0]["verdict"] == "changed"
    assert code == 1


def test_retain_graph_in_two_models_case_is_fixed_and_equivalent():
    code, doc = verify_json("two_models.py", "two_models.right.py")
    assert doc["verdict"] == "fixed", doc["details"]
    assert doc["file"]["equivalent"] is True
    runs = doc["file"]["runs"]
    assert runs["before"]["status"] == "error"
    assert "backward through the graph a second time" in runs["before"]["error"]
    assert runs["reference"]["status"] in ("ok", "budget")  # retain_graph forced: it runs
    assert code == 0


def test_detach_in_generator_step_is_changed():
    code, doc = verify_json("gan.py", "gan.wrong.py")
    assert doc["verdict"] == "changed", doc["details"]
    # G never learns: the first diverging parameter is the generator's.
    assert doc["file"]["divergence"]["parameter"].startswith("netG."), doc["file"]["divergence"]
    assert code == 1


def test_detach_in_discriminator_step_is_fixed():
    code, doc = verify_json("gan.py", "gan.right.py")
    assert doc["verdict"] == "fixed" and doc["file"]["equivalent"] is True, doc["details"]
    assert code == 0


def test_a_fix_that_fails_differently_is_regressed():
    code, doc = verify_json("two_models.py", "two_models.regressed.py")
    assert doc["verdict"] == "regressed"
    assert "does not require grad" in doc["details"]
    assert code == 1


def test_rewrite_in_code_that_never_runs_is_unreached():
    code, doc = verify_json("unreached.py", "unreached.patched.py")
    assert [r["verdict"] for r in doc["rewrites"]] == ["unreached"]
    assert doc["rewrites"][0]["reached"] is False
    assert code == 1


# ---------------------------------------------------------------- after the loop (issue 9)

@pytest.mark.slow
def test_wrong_type_change_failing_after_the_loop_is_regressed():
    """losses.append(loss) -> losses.append(loss.item()): fine in the loop, an
    AttributeError at `losses[-1].item()` after it. The budget ends the loops,
    the tail runs, and the fix is regressed, at the user's line."""
    code, doc = verify_json("after_loop.py", "after_loop.wrong.py")
    assert doc["verdict"] == "regressed", doc["details"]
    assert "AttributeError at after_loop.py:18" in doc["details"]
    runs = doc["file"]["runs"]
    assert runs["before"]["status"] == "ok" and runs["reference"]["status"] == "ok"
    assert runs["before"]["steps"] == 10  # inner loop: 5 steps; outer loop: 2 rounds
    assert doc["rewrites"][0]["budget"]["before"] == "loops"
    assert code == 1


@pytest.mark.slow
def test_right_fix_with_uses_after_the_loop_is_fixed():
    code, doc = verify_json("after_loop.py", "after_loop.right.py")
    assert doc["verdict"] == "fixed" and doc["file"]["equivalent"] is True, doc["details"]
    assert [r["verdict"] for r in doc["rewrites"]] == ["fixed"]
    assert code == 0


@pytest.mark.slow
def test_rewrite_whose_use_never_ran_is_partial():
    """`total = total + loss.item()`: the read `total.item()` in a branch the
    short run never takes (line 16) would now fail; the rewrite is partial."""
    code, doc = verify_json("after_loop_branch.py", "after_loop_branch.patched.py")
    assert doc["verdict"] == "fixed", doc["details"]  # the runs themselves are fine
    rw = doc["rewrites"][0]
    assert rw["verdict"] == "partial", rw["details"]
    assert rw["unreached_uses"] == ["16"]
    assert code == 1


@pytest.mark.slow
def test_long_running_code_after_the_loop_is_bounded_by_the_timeout():
    code, out, _ = cli("verify", os.path.join(DATA, "slow_tail.py"), os.path.join(DATA, "slow_tail.patched.py"),
                       "--timeout", "3", "--output-format", "json")
    doc = json.loads(out)
    assert doc["file"]["runs"]["after"]["status"] == "timeout"
    assert all(r["wall_s"] < 30 for r in doc["file"]["runs"].values())
    # every run timed out, the reference too: nothing got worse, nothing was shown (it was "regressed")
    assert doc["verdict"] == "unverifiable" and "every run timed out" in doc["details"], doc["details"]
    assert code == 1


@pytest.mark.slow
def test_backstop_is_named_and_the_unrun_use_makes_it_partial():
    code, doc = verify_json("backstop.py", "backstop.patched.py")
    rw = doc["rewrites"][0]
    assert rw["budget"]["after"] == "backstop"
    assert "backstop" in rw["details"]
    assert rw["verdict"] == "partial" and rw["unreached_uses"] == ["14"], rw["details"]
    assert code == 1


@pytest.mark.slow
def test_a_backstopped_run_is_tried_longer_and_runs_to_its_end(tmp_path):
    """60 steps in a loop the rewrite cannot wrap (as in Lightning's fit):
    the backstop ended the runs at 50 steps and the print after never ran.
    The longer try runs it to its end: fixed."""
    body = ("import torch\ntorch.manual_seed(0)\nm = torch.nn.Linear(3, 1)\n"
            "opt = torch.optim.SGD(m.parameters(), lr=0.01)\ntotal = 0\n"
            "def step():\n    global total\n    loss = m(torch.randn(4, 3)).pow(2).mean()\n    opt.zero_grad()\n"
            "    loss.backward()\n    opt.step()\n    total += loss\n"
            "exec('for i in range(60):\\n    step()\\n')\nprint(float(total))\n")
    orig, patched = tmp_path / "long.py", tmp_path / "long.patched.py"
    orig.write_text(body)
    patched.write_text(body.replace("total += loss\n", "total += loss.item()\n"))
    code, out, err = cli("verify", str(orig), str(patched), "--output-format", "json", cwd=str(tmp_path))
    doc = json.loads(out)
    rw = doc["rewrites"][0]
    assert rw["verdict"] in ("fixed", "equivalent"), rw["details"]
    assert "backstop" not in set(rw["budget"].values()), rw


LIGHTNING_FIT = """\
import torch
import pytorch_lightning as pl
from torch.utils.data import DataLoader, TensorDataset


class Net(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 1)
        self.running = 0.0

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.layer(x), y)
        self.running = self.running + loss
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)


if __name__ == "__main__":
    torch.manual_seed(0)
    ds = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    net = Net()
    trainer = pl.Trainer(max_epochs=EPOCHS, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False, accelerator="cpu")
    trainer.fit(net, DataLoader(ds, batch_size=4))
    print("done", float(net.running))
"""


@pytest.mark.slow
def test_a_lightning_fit_beyond_the_longer_budget_is_not_tried_again(tmp_path):
    """trainer.fit's loop is library code: the backstop ends it at 50 steps.
    A fit of 4000 steps cannot end within the longer try's 500 either; it
    doubled --verify's time for nothing. Not tried, and the verdict says why."""
    pytest.importorskip("pytorch_lightning")
    body = LIGHTNING_FIT.replace("EPOCHS", "1000")
    orig, patched = tmp_path / "fit.py", tmp_path / "fit.patched.py"
    orig.write_text(body)
    patched.write_text(body.replace("self.running + loss", "(self.running + loss).detach()"))
    code, out, err = cli("verify", str(orig), str(patched), "--output-format", "json", cwd=str(tmp_path))
    rw = json.loads(out)["rewrites"][0]
    assert rw["budget"]["after"] == "backstop", rw
    assert rw["longer_budget"].startswith("not tried with a longer budget: the Trainer plans 4000"), rw
    assert rw["verdict"] == "partial" and "not tried" in rw["details"], rw


def _long_corpus_case(tmp_path, case, old_text, new_text):
    """A corpus case with 500 iterations (far past the budget), and a patch of it."""
    with open(os.path.join(ROOT, "corpus", case), encoding="utf-8") as fh:
        text = fh.read().replace('"AUTODETACH_ITERS", "4"', '"AUTODETACH_ITERS", "500"')
    assert old_text in text
    orig, patched = tmp_path / "case.py", tmp_path / "case.patched.py"
    orig.write_text(text)
    patched.write_text(text.replace(old_text, new_text))
    return str(orig), str(patched)


@pytest.mark.slow
@pytest.mark.parametrize("case,old,new,verdict,where", [
    # A wrong type change: torch.stack of floats fails after the loop.
    pytest.param("AD102/kl_stack.py", "kls.append(kl)", "kls.append(kl.item())", "regressed", "case.py:32",
                 id="AD102/kl_stack-item-regressed"),
    # The rule's own fix: the tail runs and it is still fixed.
    pytest.param("AD102/kl_stack.py", "kls.append(kl)", "kls.append(kl.detach())", "fixed", None,
                 id="AD102/kl_stack-detach-fixed"),
    pytest.param("AD102/metric_append.py", "maes.append(F.l1_loss(pred, y))",
                 "maes.append(F.l1_loss(pred, y).detach())", "fixed", None, id="AD102/metric_append-fixed"),
])
def test_corpus_fixes_with_long_loops(tmp_path, case, old, new, verdict, where):
    orig, patched = _long_corpus_case(tmp_path, case, old, new)
    code, out, err = cli("verify", orig, patched, "--output-format", "json", cwd=str(tmp_path))
    doc = json.loads(out)
    assert doc["verdict"] == verdict, doc["details"]
    assert [r["verdict"] for r in doc["rewrites"]] == [verdict]
    if where:
        assert f"at {where}:" in doc["details"]
    # The budget ended the loop in every run; nothing reached the backstop.
    assert set(doc["rewrites"][0]["budget"].values()) == {"loops"}
    assert code == (0 if verdict == "fixed" else 1)


def test_module_without_entry_point_is_unverifiable():
    code, doc = verify_json("library.py", "library.patched.py")
    assert doc["verdict"] == "unverifiable"
    assert "entry point" in doc["details"]
    assert code == 1


def test_text_output_is_a_table():
    code, out, _ = cli("verify", os.path.join(DATA, "gan.py"), os.path.join(DATA, "gan.wrong.py"))
    lines = out.splitlines()
    assert lines[1].split()[:4] == ["Rewrite", "Rule", "Verdict", "Details"]
    assert any(" changed " in ln and "netG." in ln for ln in lines)
    assert "\x1b[" not in out  # no colour codes when piped
    assert code == 1


def test_timeout_is_regressed(tmp_path):
    src = os.path.join(DATA, "two_models.py")
    hang = tmp_path / "hang.py"
    with open(os.path.join(DATA, "two_models.right.py"), encoding="utf-8") as fh:
        hang.write_text(fh.read().replace("    opt.step()\n", "    opt.step()\n    while True:\n        pass\n"))
    code, out, _ = cli("verify", src, str(hang), "--timeout", "3", "--output-format", "json")
    doc = json.loads(out)
    assert doc["verdict"] == "regressed"
    assert doc["file"]["runs"]["after"]["status"] == "timeout"


# ---------------------------------------------------------------- --verify

def test_verify_diff_gives_verdicts_and_leaves_the_tree_alone(tmp_path):
    for case in ("AD101/ema_statistic.py", "AD203/reductions.py"):
        shutil.copy(os.path.join(ROOT, "corpus", case), tmp_path / os.path.basename(case))
    before = snapshot(tmp_path)
    code, out, err = cli("--verify", "--diff", "--no-cache", "--unsafe-fixes", "--select", "AD101,AD203",
                         "--output-format", "json", "-o", str(tmp_path / "report.json"), ".", cwd=str(tmp_path))
    after = snapshot(tmp_path)
    report = after.pop("report.json")
    assert after == before  # nothing written, no scratch files left in the tree
    doc = json.loads(report)
    got = {(f["path"], f["code"]): f["verification"]["verdict"] for f in doc["findings"]}
    assert got[("ema_statistic.py", "AD101")] == "fixed"  # grew before, flat after
    # IndexError before; the reference (the same `loss.data[0]`) fails too, so
    # the numbers were compared with nothing
    assert got[("reductions.py", "AD203")] == "repaired"
    ema = next(f for f in doc["findings"] if f["path"] == "ema_statistic.py")["verification"]
    assert ema["runs"]["before"]["grows"] is True and ema["runs"]["after"]["grows"] is False
    assert "--- a/ema_statistic.py" in out
    assert code == 1


def test_verify_text_report_has_the_table(tmp_path):
    shutil.copy(os.path.join(ROOT, "corpus", "AD101", "ema_statistic.py"), tmp_path / "ema.py")
    code, out, err = cli("--verify", "--no-cache", "--unsafe-fixes", "--select", "AD101", "ema.py",
                         cwd=str(tmp_path))
    assert "Verification" in out and "ema.py:20" in out and " fixed " in out
    assert "Verdicts: 1 fixed." in out


def test_fix_verified_only_writes_only_verified_fixes(tmp_path):
    # Two files with an AD205 fix: one runs the fixed line, one never does.
    ran = tmp_path / "ran.py"
    ran.write_text(
        "import torch\n"
        "w = torch.ones(3, requires_grad=True)\n"
        "if __name__ == '__main__':\n"
        "    for _ in range(3):\n"
        "        y = (w * w).sum()\n"
        "        y.backward(retain_variables=True)\n"
        "        print(w.grad.sum().item())\n")
    never = tmp_path / "never.py"
    never.write_text(
        "import torch\n"
        "w = torch.ones(3, requires_grad=True)\n"
        "def unused():\n"
        "    (w * w).sum().backward(retain_variables=True)\n"
        "if __name__ == '__main__':\n"
        "    print((w * 2).sum().item())\n")
    original_never = never.read_bytes()
    code, out, err = cli("--fix", "--verified-only", "--no-cache", "--select", "AD205",
                         "--output-format", "json", "-o", "r.json", ".", cwd=str(tmp_path))
    doc = json.loads((tmp_path / "r.json").read_text())
    verdicts = {f["path"]: f["verification"]["verdict"] for f in doc["findings"]} if doc["findings"] else {}
    assert "retain_graph=True" in ran.read_text()  # fixed: written
    assert never.read_bytes() == original_never  # unreached: left alone
    assert verdicts.get("never.py") == "unreached"


def test_run_command_verifies_library_code(tmp_path):
    proj = tmp_path / "proj"
    shutil.copytree(os.path.join(DATA, "runproj"), proj)
    code, out, err = cli("--verify", "--no-cache", "--select", "AD205", "--run", "python train.py",
                         "--output-format", "json", ".", cwd=str(proj))
    doc = json.loads(out)
    [f] = doc["findings"]
    v = f["verification"]
    # the reference reads 0.3's `retain_variables=True` as the retain it forces anyway, so it runs
    assert v["verdict"] == "fixed" and v["equivalent"] is True, v["details"]
    assert "lib.py:9" in v["runs"]["before"]["error"]
    assert v["runs"]["after"]["steps"] >= 3
    assert v["entry_point"] == "the --run command: python train.py"  # it said nothing of what ran


def test_legacy_cuda_code_runs_under_the_cpu_shim(tmp_path):
    shutil.copy(os.path.join(DATA, "legacy_cuda.py"), tmp_path / "legacy_cuda.py")
    code, out, err = cli("--verify", "--no-cache", "--select", "AD203", "--device", "cpu",
                         "--output-format", "json", ".", cwd=str(tmp_path))
    [f] = json.loads(out)["findings"]
    v = f["verification"]
    assert v["verdict"] == "repaired", v["details"]  # the reference has the same loss.data[0]
    assert "IndexError" in v["runs"]["before"]["error"]  # loss.data[0], not a CUDA error
    assert v["runs"]["after"]["device"] == "cpu (cuda->cpu shim)"
    assert v["runs"]["after"]["steps"] == 5


@pytest.mark.cuda
def test_gpu_runs_report_cuda_memory(tmp_path):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("CUDA is not available")
    # two_models.py keeps its tensors on the CPU: CUDA is there but unused, so the peak is the RSS, said so.
    code, doc = verify_json("two_models.py", "two_models.right.py", "--device", "cuda")
    assert doc["verdict"] == "fixed", doc["details"]
    after = doc["file"]["runs"]["after"]
    assert after["device"] == "cuda"
    assert after["peak_memory"]["kind"] == "rss_peak" and "nothing was allocated on the GPU" in \
        after["peak_memory"]["note"]
    # The same program with its models and batches on the GPU reports CUDA memory.
    paths = []
    for name in ("two_models.py", "two_models.right.py"):
        with open(os.path.join(DATA, name)) as fh:
            text = fh.read()
        for old, new in (("nn.Tanh())", "nn.Tanh()).cuda()"), ("nn.Linear(8, 1)\n", "nn.Linear(8, 1).cuda()\n"),
                         ("torch.randn(16, 6)", "torch.randn(16, 6, device='cuda')")):
            assert old in text, (name, old)
            text = text.replace(old, new)
        paths.append(tmp_path / name)
        paths[-1].write_text(text)
    code, out, err = cli("verify", str(paths[0]), str(paths[1]), "--output-format", "json", "--device", "cuda")
    doc = json.loads(out)
    assert doc["verdict"] == "fixed", doc["details"]
    peak = doc["file"]["runs"]["after"]["peak_memory"]
    assert peak["kind"] == "cuda_max_allocated" and peak["bytes"] > 0, peak
    code, doc = verify_json("gan.py", "gan.wrong.py", "--device", "cuda")
    assert doc["verdict"] == "changed"


@pytest.mark.cuda
def test_gpu_auto_runs_may_probe_cuda_themselves(tmp_path):
    """With --device auto on a GPU machine, a program that asks CUDA how many
    devices there are (Lightning's accelerator probe does) must not die with
    'out of memory' under the address-space limit meant for CPU runs."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("CUDA is not available")
    with open(os.path.join(DATA, "two_models.py")) as fh:
        before = "import torch\nassert torch.cuda.device_count() > 0\n" + fh.read()
    with open(os.path.join(DATA, "two_models.right.py")) as fh:
        after = "import torch\nassert torch.cuda.device_count() > 0\n" + fh.read()
    (tmp_path / "a.py").write_text(before)
    (tmp_path / "b.py").write_text(after)
    code, out, err = cli("verify", str(tmp_path / "a.py"), str(tmp_path / "b.py"), "--output-format", "json")
    doc = json.loads(out)
    assert doc["verdict"] == "fixed", doc["details"]


def test_address_space_limit_only_where_cuda_cannot_start():
    from autodetach.verify.isolate import has_gpu_nodes
    from autodetach.verify.sandbox import may_use_cuda

    assert may_use_cuda("cuda") and not may_use_cuda("cpu")
    assert may_use_cuda("auto") == has_gpu_nodes() == may_use_cuda(None)


# ---------------------------------------------------------------- the corpus

from .corpus import cases as corpus_cases  # noqa: E402

AD1_POSITIVES = [pytest.param(c, id=f"{c.code}/{c.name}") for c in corpus_cases("AD1") if c.positive]


@pytest.mark.parametrize("case", AD1_POSITIVES)
def test_corpus_positive_verifies(case):
    """Every AD1xx positive verifies as fixed, equivalent or repaired, and as
    equivalent where the rule claims it (its reference run completes and the
    rule does not cut gradients on purpose)."""
    from autodetach.verify.compare import judge
    from autodetach.verify.integrate import Verifier, allows_change, find_tree_root

    case.skip_if_missing()
    with open(case.before, "rb") as fh:
        old = fh.read()
    with open(case.after, "rb") as fh:
        new = fh.read()
    with Verifier() as v:
        scratch, reqs = v.plan({case.before: (old, new, [])}, find_tree_root(case.before), case.before)
        runs = v.execute([reqs])[0]
    j = judge(runs["before"], runs["after"], runs["reference"])
    # the findings' own fix safety, as --verify judges them
    from autodetach.engine import fix_code

    _, found = fix_code(old.decode("utf-8"), select=[case.code], unsafe=True, path=case.before)
    cuts = any(allows_change(f.code, f.fix) for f in found if f.code == case.code and f.fixed)
    if cuts:
        j = j.accepting_change()
    assert j.verdict in ("fixed", "equivalent", "repaired"), j.details
    if not cuts and runs["reference"].completed:
        assert j.equivalent, j.details
    # `repaired` only where the numbers could not be the reference's: a
    # declared cut, or a reference that fails too
    assert j.verdict != "repaired" or cuts or not runs["reference"].completed, j.details


def test_library_file_is_run_through_the_script_that_imports_it(tmp_path):
    # `train()` in engine.py, called from main.py's main guard: engine.py has
    # no entry point of its own, so its fix is verified by running main.py,
    # as `python main.py` would (the caller's `.item()` on the result included).
    src = os.path.join(ROOT, "benchmarks", "fixcheck_cases", "f1_total_loss_returned")
    for name in ("engine.py", "main.py"):
        shutil.copy(os.path.join(src, name), tmp_path / name)
    code, out, err = cli("--verify", "--no-cache", "--unsafe-fixes", "--select", "AD102", "--output-format", "json",
                         "engine.py", cwd=str(tmp_path))
    [f] = json.loads(out)["findings"]
    v = f["verification"]
    assert v["verdict"] == "fixed", v["details"]
    assert v["entry_point"] == "run through main.py, which imports it"
    assert v["equivalent"] is True


def test_package_modules_run_as_python_m_would(tmp_path):
    # pkg/train.py imports `.engine` and `.losses`: run as a script it stops at
    # its first relative import, so every fix was "unverifiable". It runs as
    # `python -m pkg.train`; pkg/engine.py, with no entry point, through it.
    proj = tmp_path / "proj"
    shutil.copytree(os.path.join(DATA, "pkgproj"), proj)
    code, out, err = cli("--verify", "--no-cache", "--unsafe-fixes", "--select", "AD102", "--output-format", "json",
                         "pkg", cwd=str(proj))
    got = {f["path"]: f["verification"] for f in json.loads(out)["findings"]}
    assert set(got) == {os.path.join("pkg", "engine.py"), os.path.join("pkg", "train.py")}, out
    for path, v in got.items():
        # each fix is judged alone, the other file's leak still in its run: equivalent, not fixed
        assert v["verdict"] == "equivalent" and v["equivalent"] is True, (path, v["details"])
        assert v["runs"]["after"]["status"] == "ok" and v["runs"]["after"]["steps"] == 8, (path, v["runs"])
    assert got[os.path.join("pkg", "train.py")]["entry_point"] == "main guard, run as `python -m pkg.train`"
    assert got[os.path.join("pkg", "engine.py")]["entry_point"] == \
        "run through train.py, which imports it, run as `python -m pkg.train`"


def test_findings_that_need_the_project_are_verified(tmp_path):
    # trainer.py alone gives no finding: the losses come from losses.py and the
    # loop from main.py. --verify must judge the fixes the report shows, so it
    # analyses the file in its project as the report did.
    proj = tmp_path / "proj"
    shutil.copytree(os.path.join(DATA, "trainerproj"), proj)
    code, out, err = cli("--verify", "--no-cache", "--unsafe-fixes", "--output-format", "json", ".",
                         cwd=str(proj))
    found = {(f["path"], f["line"], f["code"]): f for f in json.loads(out)["findings"]}
    assert ("trainer.py", 19, "AD103") in found, sorted(found)
    for f in found.values():
        v = f.get("verification") or {}
        assert v.get("verdict") == "fixed", (f["line"], f["code"], v.get("details"))
    assert (proj / "trainer.py").read_text() == open(os.path.join(DATA, "trainerproj", "trainer.py")).read()


TWO_FIXES = """import torch

torch.manual_seed(0)
net = torch.nn.Linear(8, 4)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(16, 8)
prev, running = None, 0.0
for i in range(4):
    opt.zero_grad()
    h = net(x)
    loss = h.pow(2).mean()
    if prev is not None:
        loss = loss + 0.1 * (h.mean() - prev.mean()) ** 2
    loss.backward()
    opt.step()
    prev = h
    running += loss
print(float(running))
"""


def test_a_fix_alone_leaving_the_error_another_fix_removes_is_not_regressed(tmp_path):
    """AD101 (prev) removes the crash and changes the numbers by a small cut
    (2e-6: `changed` on the CPU's tight bound); AD102 (running) alone leaves
    the crash, which is AD101's to remove: unverifiable, not regressed."""
    path = tmp_path / "two.py"
    path.write_text(TWO_FIXES)
    code, out, err = cli("--no-cache", "--verify", "--unsafe-fixes", "--output-format", "json", str(path),
                         cwd=str(tmp_path))
    verdicts = {f["code"]: f["verification"] for f in json.loads(out)["findings"]}
    assert verdicts["AD101"]["verdict"] == "changed", verdicts["AD101"]
    assert verdicts["AD102"]["verdict"] == "unverifiable", verdicts["AD102"]
    assert "which the other fixes in this file remove" in verdicts["AD102"]["details"]
