"""Issue 8 (AD102 recall on real code): a statistic of the training step kept
for the log (analysis/logged_stats.py).

A whole reduction (`.mean()`, `.sum()`, `torch.mean(x)`, no dim, perhaps
scaled by a number) of a value computed from the output of a module that the
step's backward walks carries that graph; appended to a list or added to a
total that outlives the step, it is kept for its value, as a loss total is:
AD102, not AD101. The backward frees what it walks, not the statistic's own
saved tensors. Values a backward reaches (a meta-loss), statistics taken
under `torch.no_grad()` or from a detached output, and values that are not
one number (`outs.append(out)`) are not such statistics."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _found(src: str, codes=("AD101", "AD102"), path: str = "train.py"):
    rules = [r for r in all_rules() if r.code in codes]
    found, _, _ = check_source(textwrap.dedent(src), path, rules, Options())
    return [(f.code, f.line, f.fix, f.message) for f in found]


def _fixed(src: str, path: str = "train.py", unsafe: bool = False):
    rules = [r for r in all_rules() if r.code == "AD102"]
    _, new, _ = check_source(textwrap.dedent(src), path, rules, Options(fix=True, unsafe=unsafe))
    return new


SCRIPT = """
import torch
from torch import nn
net = nn.Linear(4, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
seen = []
total = 0.0
for i in range(3):
    x = torch.randn(5, 4)
    logits = net(x)
    probs = logits.softmax(-1)
    loss = logits.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    {body}
print(sum(seen) / 3, total / 3)
"""


def test_reduced_statistics_of_the_output_are_kept_like_a_loss_total():
    body = "seen.append(probs.max(-1)[0].mean())\n    total += -0.5 * torch.mean(probs.log())"
    found = _found(SCRIPT.format(body=body))
    assert [(code, line, fix) for code, line, fix, _ in found] == [("AD102", 16, "safe"), ("AD102", 17, "safe")]
    assert "`seen` accumulates `probs.max(-1)[0].mean()` with its graph" in found[0][3]
    new = _fixed(SCRIPT.format(body=body))
    assert "seen.append(probs.max(-1)[0].mean().item())" in new
    assert "total += (-0.5 * torch.mean(probs.log())).item()" in new


def test_a_statistic_bound_to_a_name_first():
    body = "spread = probs.std() * 2\n    seen.append(spread)"
    found = _found(SCRIPT.format(body=body))
    assert [(code, line) for code, line, _, _ in found] == [("AD102", 17)]


def test_not_one_number_stays_ad101():
    # the whole output, or a reduction over a dim: kept as tensors for later use, not a logged number
    for body in ("seen.append(probs)", "seen.append(probs.mean(0))", "seen.append(probs.sum(dim=-1))",
                 "seen.append(probs.mean() - probs)"):
        found = _found(SCRIPT.format(body=body))
        assert [code for code, _, _, _ in found] == ["AD101"], (body, found)


def test_a_name_bound_otherwise_somewhere_in_the_loop_is_not_followed():
    body = "spread = probs.std()\n    if i:\n        spread = probs\n    seen.append(spread)"
    found = _found(SCRIPT.format(body=body))
    assert [code for code, _, _, _ in found] == ["AD101"]


def test_negatives():
    for body in ("seen.append(probs.max(-1)[0].mean().item())",
                 "seen.append(probs.detach().mean())",
                 "with torch.no_grad():\n        seen.append(probs.mean())",
                 "seen.append(x.mean())",
                 "total += float(probs.mean())"):
        assert _found(SCRIPT.format(body=body)) == [], body


def test_a_penalty_summed_and_backwarded_after_the_inner_loop_is_a_meta_loss():
    src = """
    import torch
    from torch import nn
    net = nn.Linear(5, 5)
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    for step in range(3):
        penalty = 0.0
        for chunk in torch.randn(6, 4, 5):
            out = net(chunk)
            penalty += (out[1:] - out[:-1]).abs().mean()
        opt.zero_grad()
        (penalty + net(torch.randn(2, 5)).pow(2).mean()).backward()
        opt.step()
    """
    assert _found(src) == []


METHOD = """
import torch
import torch.nn.functional as F


class PPO:
    def __init__(self, policy, lr):
        self.policy = policy
        self.opt = torch.optim.Adam(policy.parameters(), lr=lr)

    def update(self, batches, epochs):
        log = {{"pg": [], "drift": []}}
        for _ in range(epochs):
            for obs, act, adv, old_logp in batches:
                logp = F.log_softmax(self.policy(obs), -1).gather(1, act[:, None]).squeeze(1)
                ratio = (logp - old_logp).exp()
                pg = -torch.min(ratio * adv, ratio.clamp(0.8, 1.2) * adv).mean()
                self.opt.zero_grad()
                pg.backward()
                self.opt.step()
                log["pg"].append(pg.item())
                log["drift"].append({drift})
        return {{k: sum(v) / len(v) for k, v in log.items()}}
"""


def test_a_ppo_method_logging_the_policy_drift_in_a_local_dict():
    found = _found(METHOD.format(drift="(ratio - 1).abs().mean()"))
    assert [(code, line, fix) for code, line, fix, _ in found] == [("AD102", 22, "unsafe")]
    assert "`log['drift']` accumulates `(ratio - 1).abs().mean()`" in found[0][3]
    assert "inferred: that nothing else reads `log`'s lists" in found[0][3]
    assert _found(METHOD.format(drift="(ratio - 1).abs().mean().item()")) == []


def test_a_free_function_with_the_model_as_an_argument_is_unsafe(tmp_path):
    (tmp_path / "criteria.py").write_text("import torch\n\ndef hinge(s, y):\n"
                                          "    return torch.clamp(1 - s.gather(1, y[:, None]) + s, min=0).mean()\n")
    src = textwrap.dedent("""
    from criteria import hinge


    def fit(model, batches, optimizer):
        gaps = []
        for x, y in batches:
            scores = model(x)
            loss = hinge(scores, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            gaps.append(scores.max(1)[0].mean() - scores.min(1)[0].mean() * 1)
        return len(gaps)
    """)
    path = tmp_path / "train.py"
    path.write_text(src)
    found = _found(src, path=str(path))
    assert [(code, fix) for code, _, fix, _ in found] == [("AD102", "unsafe")]
    assert "`model` is a module (called on tensors in a training function)" in found[0][3]
