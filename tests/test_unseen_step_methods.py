"""AD104 on a method whose loss the walk alone cannot see (it comes from a
helper object of this file, not a module): its walk as one call of a loop
its caller runs judges the retain, when the method returns nothing of the
graph and the helper keeps nothing from one call to the next
(analysis/retained.py, _judged_as_step)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

CAM = """
import torch


class Tap:
    def __init__(self, model):
        self.model = model
        self.grad = None

    def keep(self, grad):
        self.grad = grad

    def run(self, x):
        h = self.model[0](x)
        h.register_hook(self.keep)
        return h, self.model[1](h)


class Cam:
    def __init__(self, model):
        self.model = model
        self.tap = Tap(model)

    def explain(self, x):
        h, out = self.tap.run(x)
        self.model.zero_grad()
        out[0, 0].backward(retain_graph=True)
        return (self.tap.grad * h.detach()).sum(dim=1)
"""


def _ad104(src):
    findings, _, _ = check_source(textwrap.dedent(src), "case.py", all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


def test_single_backward_of_a_helper_graph_is_unneeded_and_unsafe():
    found = _ad104(CAM)
    assert [(f.line, f.fix) for f in found] == [(27, "unsafe")]
    assert "shows no graph in the loss on its own" in found[0].message


def test_returned_graph_keeps_the_retain():
    src = CAM.replace("return (self.tap.grad * h.detach()).sum(dim=1)", "return out")
    assert src != CAM
    assert _ad104(src) == []


def test_helper_keeping_state_between_calls_keeps_the_retain():
    # the next call may read this call's graph through `self.last`
    src = CAM.replace("        return h, self.model[1](h)", "        self.last = h\n        return h, self.model[1](h)")
    assert src != CAM
    assert _ad104(src) == []


def test_forward_hook_storing_activations_keeps_the_retain():
    # a forward hook hands the activation with its graph, unlike a gradient hook
    src = CAM.replace("h.register_hook(self.keep)", "self.model[0].register_forward_hook(self.keep)")
    assert src != CAM
    assert _ad104(src) == []


def test_helper_of_another_file_is_taken_like_a_model_handed_in():
    # out of sight, like the model itself: reported only as an inference, and not in a training step
    src = CAM.replace("self.tap = Tap(model)", "self.tap = make_tap(model)")
    assert src != CAM
    assert [f.fix for f in _ad104(src)] == ["unsafe"]
    stepped = src.replace("        return (self.tap.grad", "        self.opt.step()\n        return (self.tap.grad")
    assert _ad104(stepped) == []


def test_later_backward_in_the_method_keeps_the_retain():
    src = CAM.replace("        return (self.tap.grad", "        out[0, 1].backward()\n        return (self.tap.grad")
    assert src != CAM
    assert _ad104(src) == []


def test_helper_appending_to_its_state_keeps_the_retain():
    keep = "        self.seen.append(h)\n        return h, self.model[1](h)"
    src = CAM.replace("        return h, self.model[1](h)", keep)
    assert src != CAM
    assert _ad104(src) == []


def test_helper_with_a_base_of_another_file_keeps_the_retain():
    src = "from taps import BaseTap\n" + CAM.replace("class Tap:", "class Tap(BaseTap):")
    assert _ad104(src) == []


INLINE = """
import torch


class Cam:
    def __init__(self, model):
        self.model = model
        self.grad = None

    def keep(self, grad):
        self.grad = grad

    def explain(self, x):
        for module in self.model.features:
            x = module(x)
        x.register_hook(self.keep)
        out = self.model.head(x)
        out[0, 0].backward(retain_graph=True)
        return self.grad.sum(dim=1)
"""


def test_a_model_handed_in_and_run_inline_is_unneeded_and_unsafe():
    found = _ad104(INLINE)
    assert [(f.line, f.fix) for f in found] == [(18, "unsafe")]


def test_a_training_step_on_a_model_handed_in_keeps_the_retain():
    # a recurrent model may keep its state, with its graph, for the next call's backward
    src = INLINE.replace("        return self.grad", "        self.opt.step()\n        return self.grad")
    assert src != INLINE
    assert _ad104(src) == []


def test_a_model_rebound_by_another_method_keeps_the_retain():
    src = INLINE + "\n    def use(self, model):\n        self.model = model\n"
    assert _ad104(src) == []


def test_a_forward_hook_of_the_explainer_keeps_the_retain():
    # `self.acts` holds the forward's graph; `refine()` could backward it after `explain()`
    hooked = INLINE.replace("        self.grad = None\n", "        self.grad = None\n"
                            "        model.head.register_forward_hook(self.save)\n") + \
        "\n    def save(self, module, inp, out):\n        self.acts = out\n"
    assert "register_forward_hook" in hooked
    assert _ad104(hooked) == []
