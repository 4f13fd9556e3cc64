"""What the session-38 audit of 230 never-seen repositories (audit51) found
in the tool, each reproduced in code of our own.

- An internal error: a caller file that libcst parses but the stdlib `ast`
  does not (`x.cuda(async=True)`) reached `summaries.parse_text` as bytes,
  which raised SyntaxError out of the AD101 rule.
- A SAFE AD101: a function keeps every batch's probabilities with their
  graphs and returns them; the caller, in another file, backwards them. The
  cut broke it ("element 0 of tensors does not require grad"). What an
  unseen caller does with a returned value is inferred: the fix is unsafe."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

METERS = textwrap.dedent("""
    class Average:
        def __init__(self):
            self.total = 0.0
            self.n = 0

        def update(self, value):
            self.total += value
            self.n += 1
""")

ASYNC_CALLER = textwrap.dedent("""
    import torch
    from meters import Average

    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    avg = Average()
    for step in range(3):
        x = torch.randn(4, 3).cuda(async=True)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        avg.update(loss)
""")

CORE = textwrap.dedent("""
    import torch
    import torch.nn.functional as F


    def pretrain(x, y, n_classes=5, iters=4):
        model = torch.nn.Linear(x.shape[-1], n_classes)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        probs_all = []
        for _ in range(iters):
            scores = model(x)
            loss = F.nll_loss(F.log_softmax(scores, dim=1), y)
            optimizer.zero_grad()
            loss.backward(retain_graph=True)
            optimizer.step()
            probs_all.append(F.softmax(scores, dim=1))
        return model, torch.cat(probs_all)
""")

CALLER = textwrap.dedent("""
    import torch
    from core import pretrain

    torch.manual_seed(0)
    x, y = torch.randn(6, 3), torch.randint(0, 5, (6,))
    model, probs = pretrain(x, y)
    entropy = -(probs * probs.clamp_min(1e-6).log()).sum(1).mean()
    entropy.backward()
    print("%.6f" % model.weight.grad.abs().sum().item())
""")


def _run(tmp_path, *args):
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run([sys.executable, "-m", "autodetach", "--no-cache", "--output-format", "json", *args,
                           str(tmp_path)], capture_output=True, text=True, cwd=tmp_path, env=env)
    return json.loads(done.stdout)


def test_caller_that_ast_cannot_parse_is_no_internal_error(tmp_path):
    (tmp_path / "meters.py").write_text(METERS)
    (tmp_path / "train.py").write_text(ASYNC_CALLER)
    report = _run(tmp_path)
    assert report["errors"] == []


def test_returned_store_an_unseen_caller_backwards_is_unsafe(tmp_path):
    (tmp_path / "core.py").write_text(CORE)
    (tmp_path / "main.py").write_text(CALLER)
    found = [f for f in _run(tmp_path)["findings"] if f["code"] == "AD101"]
    assert found and all(f["fix"] != "safe" for f in found)
    assert all("inferred" in f["message"] for f in found if f["fix"] == "unsafe")


@pytest.mark.slow
def test_returned_store_safe_fixes_keep_the_caller_running(tmp_path):
    (tmp_path / "core.py").write_text(CORE)
    (tmp_path / "main.py").write_text(CALLER)
    _run(tmp_path, "--fix")
    done = subprocess.run([sys.executable, "main.py"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-400:]


EPOCHS = textwrap.dedent("""
    import torch
    import torch.nn.functional as F


    def pretrain(model, x, y, epochs=2, batch_size=2):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        for epoch in range(epochs):
            pointer = 0
            y_pred_all = []
            while pointer + batch_size <= len(x):
                scores = model(x[pointer:pointer + batch_size])
                loss = F.cross_entropy(scores, y[pointer:pointer + batch_size])
                optimizer.zero_grad()
                loss.backward(retain_graph=True)
                optimizer.step()
                y_pred_all.append(F.softmax(scores, dim=1))
                pointer = pointer + batch_size
        return model, torch.cat(y_pred_all)
""")


def test_returned_store_reset_each_epoch_is_unsafe():
    # natnij's seqGAN: the list is set anew each epoch and the last epoch's is returned; the
    # first epoch's pass is not the returned one, but the same store's cut reaches what is
    from autodetach import check_code

    found = [f for f in check_code(EPOCHS) if f.code == "AD101"]
    assert found and all(f.fix != "safe" for f in found)
