"""A function that backwards its own forward once with retain_graph=True and
whose graph leaves it only by its return (a CAM's logits, an attack's
images) is judged by who receives it (analysis/unclaimed_returns.py): the
project's calls of a free function, or the instances of a plain class called
directly or through a `__call__` that hands on to the method. Unneeded, as an
inference (unsafe), when each caller reads the result only as numbers, or
when the project calls it nowhere (library code). Issue 8."""
import os
import textwrap

from autodetach.engine import Options, check_source
from autodetach.findings import UNSAFE
from autodetach.registry import all_rules

HELPER = """
import torch


def saliency(model, image, label):
    x = image.clone().requires_grad_(True)
    out = model(x)
    out[0, label].backward(retain_graph=True)
    return x.grad.abs(), out
"""

CAM = """
import torch


class {base_line}
    def __init__(self, net, layer):
        self.net = net
        self.device = next(net.parameters()).device
        self.store = {{}}
        layer.register_forward_hook(self.keep)

    def keep(self, module, inputs, output):
        self.store["act"] = output

    def generate(self, image, label):
        scores = self.net(image)
        self.net.zero_grad()
        scores[:, label].sum().backward(retain_graph=True)
        cam = self.store["act"].sum(1).data
        return cam, scores

    def __call__(self, image, label):
        return self.generate(image, label)
"""


def _write(path, text):
    path.write_text(textwrap.dedent(text))
    os.utime(path, ns=(1, 1))


def _ad104(path):
    with open(path) as fh:
        text = fh.read()
    findings, _, _ = check_source(text, str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


def _cam(tmp_path, base="Explainer:", caller=None):
    _write(tmp_path / "cams.py", CAM.format(base_line=base))
    if caller is not None:
        _write(tmp_path / "run.py", caller)
    return _ad104(tmp_path / "cams.py")


def test_library_helper_with_no_caller_reported_unsafe(tmp_path):
    _write(tmp_path / "explain.py", HELPER)
    found = _ad104(tmp_path / "explain.py")
    assert len(found) == 1 and found[0].fix == UNSAFE
    assert "no code of the project calls it" in found[0].message


def test_helper_whose_sibling_caller_prints_numbers_reported_unsafe(tmp_path):
    _write(tmp_path / "explain.py", HELPER)
    _write(tmp_path / "main.py", """
        import torch
        from explain import saliency

        def run(net):
            for i in range(3):
                sal, out = saliency(net, torch.randn(1, 4), i)
                print(sal.sum().item(), out.argmax(1).tolist())
    """)
    found = _ad104(tmp_path / "explain.py")
    assert len(found) == 1 and found[0].fix == UNSAFE and "main.py:7" in found[0].message


def test_helper_whose_caller_backwards_the_result_not_reported(tmp_path):
    _write(tmp_path / "explain.py", HELPER)
    _write(tmp_path / "main.py", """
        import torch
        from explain import saliency

        def run(net):
            sal, out = saliency(net, torch.randn(1, 4), 0)
            out[0, 1].backward()
    """)
    assert _ad104(tmp_path / "explain.py") == []


def test_helper_handed_on_as_a_value_not_reported(tmp_path):
    _write(tmp_path / "explain.py", HELPER)
    _write(tmp_path / "main.py", """
        from explain import saliency

        METHODS = {"saliency": saliency}
    """)
    assert _ad104(tmp_path / "explain.py") == []


def test_plain_class_with_no_instance_reported_unsafe(tmp_path):
    found = _cam(tmp_path)
    assert len(found) == 1 and found[0].fix == UNSAFE
    assert "`Explainer.generate()`" in found[0].message


def test_instance_called_through_dunder_call_read_as_numbers_reported(tmp_path):
    found = _cam(tmp_path, caller="""
        import torch
        from cams import Explainer

        def show(net, layer):
            explainer = Explainer(net, layer)
            cam, scores = explainer(torch.rand(1, 1, 6, 6), 2)
            print(float(cam.max()), scores.detach().softmax(1))
    """)
    assert len(found) == 1 and found[0].fix == UNSAFE and "run.py:7" in found[0].message


def test_instance_whose_scores_are_backwarded_again_not_reported(tmp_path):
    assert _cam(tmp_path, caller="""
        import torch
        from cams import Explainer

        def show(net, layer):
            explainer = Explainer(net, layer)
            cam, scores = explainer.generate(torch.rand(1, 1, 6, 6), 2)
            scores[:, 0].sum().backward()
    """) == []


def test_instance_handed_on_not_reported(tmp_path):
    assert _cam(tmp_path, caller="""
        from cams import Explainer

        def show(net, layer, run):
            run(Explainer(net, layer))
    """) == []


def test_module_forward_returning_its_graph_not_reported(tmp_path):
    # an nn.Module's forward runs under `model(x)` in training code that may backward the output
    assert _cam(tmp_path, base="Explainer(torch.nn.Module):") == []


def test_subclass_of_another_file_not_reported(tmp_path):
    assert _cam(tmp_path, caller="""
        from cams import Explainer

        class Smooth(Explainer):
            pass
    """) == []


def test_second_method_backwarding_what_it_returns_not_reported(tmp_path):
    _write(tmp_path / "cams.py", CAM.format(base_line="Explainer:") + """
    def contrast(self, image, a, b):
        cam, scores = self.generate(image, a)
        scores[:, b].sum().backward()
        return cam
""")
    assert _ad104(tmp_path / "cams.py") == []


def test_step_returning_its_loss_with_no_caller_not_judged_here(tmp_path):
    _write(tmp_path / "steps.py", """
        def train_step(model, opt, x):
            loss = model(x).pow(2).mean()
            opt.zero_grad()
            loss.backward(retain_graph=True)
            opt.step()
            return loss
    """)
    assert all("no code of the project calls it" not in f.message for f in _ad104(tmp_path / "steps.py"))


# a helper backwarding the value it is handed (analysis/handed_targets.py)

TARGET_HELPER = """
import torch


def backprop_class(output, target):
    one_hot = torch.zeros_like(output)
    one_hot[0, target] = 1.0
    output.backward(gradient=one_hot, retain_graph=True)
"""


def _handed(tmp_path, caller):
    _write(tmp_path / "vis.py", TARGET_HELPER)
    _write(tmp_path / "main.py", caller)
    return _ad104(tmp_path / "vis.py")


def test_handed_logits_read_as_numbers_after_the_call_reported_unsafe(tmp_path):
    found = _handed(tmp_path, """
        import torch
        from vis import backprop_class

        def explain(net, images):
            for image in images:
                image.requires_grad_(True)
                logits = net(image)
                backprop_class(logits, logits.argmax().item())
                print(image.grad.abs().sum().item(), logits.detach().max())
    """)
    assert len(found) == 1 and found[0].fix == UNSAFE and "main.py:9" in found[0].message


def test_handed_logits_backwarded_after_the_call_not_reported(tmp_path):
    assert _handed(tmp_path, """
        from vis import backprop_class

        def explain(net, image, opt):
            logits = net(image)
            backprop_class(logits, 0)
            logits.pow(2).mean().backward()
    """) == []


def test_handed_logits_handed_to_the_helper_again_not_reported(tmp_path):
    assert _handed(tmp_path, """
        from vis import backprop_class

        def explain(net, image):
            logits = net(image)
            backprop_class(logits, 0)
            backprop_class(logits, 1)
    """) == []


def test_handed_logits_returned_by_the_caller_not_reported(tmp_path):
    assert _handed(tmp_path, """
        from vis import backprop_class

        def explain(net, image):
            logits = net(image)
            backprop_class(logits, 0)
            return logits
    """) == []


def test_handed_value_from_the_callers_own_argument_not_reported(tmp_path):
    assert _handed(tmp_path, """
        from vis import backprop_class

        def explain(logits):
            backprop_class(logits, 0)
    """) == []


def test_handed_helper_with_no_caller_not_reported(tmp_path):
    _write(tmp_path / "vis.py", TARGET_HELPER)
    assert _ad104(tmp_path / "vis.py") == []


def test_method_handed_scores_by_its_own_class_reported_unsafe(tmp_path):
    _write(tmp_path / "cams.py", """
        import torch


        class Explainer:
            def __init__(self, model):
                self.model = model

            def __call__(self, image):
                scores = self.model(image)
                label = scores.argmax(1).item()
                return self._map(scores, label), label

            def _map(self, scores, label):
                self.model.zero_grad()
                scores[0, label].backward(retain_graph=True)
                return image_grad(self.model).data


        def image_grad(model):
            return next(model.parameters()).grad
    """)
    found = _ad104(tmp_path / "cams.py")
    assert len(found) == 1 and found[0].fix == UNSAFE and "`_map()` backwards its argument" in found[0].message


def test_handed_logits_stored_on_self_before_the_call_not_reported(tmp_path):
    assert _handed(tmp_path, """
        from vis import backprop_class

        class Runner:
            def explain(self, net, image):
                logits = net(image)
                self.last = logits
                backprop_class(logits, 0)
    """) == []


def test_handed_logits_collected_before_the_call_not_reported(tmp_path):
    assert _handed(tmp_path, """
        from vis import backprop_class

        def explain(net, images, kept):
            for image in images:
                logits = net(image)
                kept.append(logits)
                backprop_class(logits, 0)
    """) == []


def test_loop_walking_a_handed_graph_again_not_reported(tmp_path):
    # each iteration's backward walks again the graph `x` brings in (the encoder's): the retain is needed
    _write(tmp_path / "dist.py", """
        import torch


        def max_sliced(x, y, steps=10):
            theta = torch.randn(1, x.shape[1], requires_grad=True)
            opt = torch.optim.Adam([theta], lr=1e-3)
            for _ in range(steps):
                d = (x @ theta.t() - y @ theta.t()).pow(2).mean()
                opt.zero_grad()
                (-d).backward(retain_graph=True)
                opt.step()
            return d, theta
    """)
    assert _ad104(tmp_path / "dist.py") == []
