"""AD104 on first-order meta-gradients: `grads = autograd.grad(loss, fast, retain_graph=True)`
in an inner loop whose inputs the loop makes anew (`fast = [p + 0. for p in params]`, then
`fast[i] = fast[i] - lr * grads[i]`): the grad stops at its inputs, so it walks only the
forward this step built on them (flow's `captured`, fresh_inputs' loop case)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

INNER = """
import torch
import torch.nn.functional as F


def forward(x, params):
    return torch.tanh(x @ params[0]) @ params[1]


class Learner:
    def __init__(self, first_order):
        self.first_order = first_order

    def adapt(self, x, y, params, lr):
        fast = [p + 0. for p in params]
        for _ in range(3):
            loss = F.mse_loss(forward(x, fast), y)
            if self.first_order:
                grads = torch.autograd.grad(loss, fast, retain_graph=True)
            else:
                grads = torch.autograd.grad(loss, fast, create_graph=True)
            for i in range(len(fast)):
                fast[i] = fast[i] - lr * grads[i]
        return fast


def train(params, opt, batches):
    learner = Learner(True)
    for x, y in batches:
        fast = learner.adapt(x[:8], y[:8], params, 0.1)
        meta = F.mse_loss(forward(x[8:], fast), y[8:])
        opt.zero_grad()
        meta.backward()
        opt.step()
"""


def _ad104(src):
    findings, _, _ = check_source(textwrap.dedent(src), "case.py", all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


def test_first_order_inner_grad_retains_for_nothing_unsafe():
    found = _ad104(INNER)
    assert [(f.line, f.fix) for f in found] == [(19, "unsafe")]
    assert "made anew on each iteration" in found[0].message and "inferred" in found[0].message
    assert "(line 19) backwards a value whose graph is not seen" not in found[0].message


def test_inner_losses_handed_back_keep_the_retain():
    step = "            for i in range(len(fast)):"
    meta = "meta = F.mse_loss(forward(x[8:], fast), y[8:])"
    src = INNER.replace("fast = [p + 0. for p in params]", "fast = [p + 0. for p in params]\n        seen = []") \
        .replace(step, "            seen.append(loss)\n" + step) \
        .replace("        return fast", "        return fast, seen") \
        .replace("fast = learner.adapt(", "fast, seen = learner.adapt(") \
        .replace(meta, meta + " + sum(seen)")
    assert _ad104(src) == []


def test_inputs_handed_in_keep_the_retain():
    src = INNER.replace("fast = [p + 0. for p in params]", "fast = params")
    assert _ad104(src) == []
    src = INNER.replace("def adapt(self, x, y, params, lr):\n        fast = [p + 0. for p in params]",
                        "def adapt(self, x, y, fast, lr):")
    assert _ad104(src) == []


def test_an_element_stored_from_outside_keeps_the_retain():
    src = INNER.replace("fast[i] = fast[i] - lr * grads[i]", "fast[i] = self.kept[i]")
    assert _ad104(src) == []
    src = INNER.replace("fast[i] = fast[i] - lr * grads[i]", "fast[i] -= lr * grads[i]")
    assert _ad104(src) == []


def test_a_later_walk_of_the_step_loss_keeps_the_retain():
    src = INNER.replace("            for i in range(len(fast)):",
                        "            (loss * 0.1).backward()\n            for i in range(len(fast)):")
    assert _ad104(src) == []


def test_loss_carried_to_the_next_step_keeps_the_retain():
    step = "            for i in range(len(fast)):"
    src = INNER.replace("fast = [p + 0. for p in params]", "fast = [p + 0. for p in params]\n        prev = 0") \
        .replace("loss = F.mse_loss(forward(x, fast), y)", "loss = F.mse_loss(forward(x, fast), y) + prev") \
        .replace(step, "            prev = loss * 0.5\n" + step)
    assert _ad104(src) == []


def test_grads_into_the_other_arm_only_without_the_if_are_shared():
    # with no `if`, a create_graph grad after the retained one walks the same loss: needed
    arms = ("            if self.first_order:\n"
            "                grads = torch.autograd.grad(loss, fast, retain_graph=True)\n"
            "            else:\n"
            "                grads = torch.autograd.grad(loss, fast, create_graph=True)")
    src = INNER.replace(arms,
                        "            g1 = torch.autograd.grad(loss, fast, retain_graph=True)\n"
                        "            grads = torch.autograd.grad(loss, fast, create_graph=True)")
    assert "g1 = torch" in src
    assert _ad104(src) == []


def test_grad_stops_at_its_inputs_so_the_encoder_backward_needs_no_retain():
    # sa-vae: the grad for the encoder's outputs walks only the decoder side; the backward of
    # `var_params` walks the encoder, behind those inputs, which the grad never ran
    src = """
        import torch
        enc = torch.nn.Linear(4, 6)
        dec = torch.nn.Linear(3, 4)
        opt = torch.optim.SGD([*enc.parameters(), *dec.parameters()], lr=0.1)
        for it in range(3):
            img = torch.randn(5, 4)
            mean, logvar = enc(img).chunk(2, 1)
            preds = dec(mean + torch.randn_like(mean) * (0.5 * logvar).exp())
            vae_loss = (preds - img).pow(2).mean() + (mean.pow(2) + logvar.exp() - logvar).mean()
            var_params = torch.cat([mean, logvar], 1)
            opt.zero_grad()
            g = torch.autograd.grad(vae_loss, [mean, logvar], retain_graph=True)
            var_params.backward(torch.cat(g, 1))
            opt.step()
    """
    assert [(f.line, f.fix) for f in _ad104(src)] == [(13, "safe")]
    # the same backward through `vae_loss` itself walks what the grad freed: needed
    assert _ad104(src.replace("var_params.backward(torch.cat(g, 1))", "vae_loss.backward()")) == []
