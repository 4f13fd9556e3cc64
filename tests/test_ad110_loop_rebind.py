"""AD110: `grad = grad.detach()` that rebinds a loop variable nothing reads
afterwards throws the detached tensor away (MLNT's meta step: the container
keeps the gradients with their second-order graph). Reported without a fix;
any later read of the new value keeps it silent."""
from autodetach.engine import Options, check_source
from autodetach.findings import NONE
from autodetach.registry import all_rules

META = '''
import torch


def meta_step(net, fast_loss, lr):
    grads = torch.autograd.grad(fast_loss, net.parameters(), create_graph=True)
    for grad in grads:
        grad = grad.detach()
        grad.requires_grad = False
    return [p - lr * grad for p, grad in zip(net.parameters(), grads)]
'''


def _ad110(source: str):
    findings, _, _ = check_source(source, "train.py", all_rules(), Options())
    return [f for f in findings if f.code == "AD110"]


def test_the_rebound_loop_variable_is_reported_without_a_fix():
    found = _ad110(META)
    assert [(f.line, f.fix) for f in found] == [(8, NONE)], [(f.line, f.fix, f.message) for f in found]
    assert "rebinds the loop variable of `for grad in grads`" in found[0].message


def test_a_read_of_the_new_value_keeps_it_silent():
    for read in ("        grad.mul_(0.5)\n", "        total = grad.sum()\n"):
        source = META.replace("        grad.requires_grad = False\n", read)
        assert _ad110(source) == [], read


def test_a_read_after_the_loop_keeps_it_silent():
    source = META.replace("    return [", "    print(grad)\n    return [")
    assert _ad110(source) == []


def test_a_loop_around_the_loop_keeps_it_silent():
    source = META.replace("    for grad in grads:\n        grad = grad.detach()\n        grad.requires_grad = False\n",
                          "    for k in range(2):\n        print(grad)\n        for grad in grads:\n"
                          "            grad = grad.detach()\n")
    assert source != META and _ad110(source) == [], source
