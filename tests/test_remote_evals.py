"""An evaluation function run with gradients on, whose callers are in other
files (analysis.eval_loops reads them), and a result grown by concatenation."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

PREDICT = """
import torch

def fit(model, opt, batches):
    for x, y in batches:
        opt.zero_grad()
        (model(x) - y).pow(2).mean().backward()
        opt.step()

def predict(model, batches):
    model.eval()
    result = torch.zeros(0, 2)
    for x in batches:
        result = torch.cat((result, model(x)), dim=0)
    return result.detach().numpy()
"""


def _run(tmp_path, caller: str):
    (tmp_path / "caller.py").write_text(textwrap.dedent(caller))
    path = tmp_path / "lib.py"
    path.write_text(textwrap.dedent(PREDICT))
    rules = [r for r in all_rules() if r.code in ("AD101", "AD102")]
    found, _, _ = check_source(textwrap.dedent(PREDICT), str(path), rules, Options())
    return [(f.code, f.line) for f in found]


def test_predict_called_with_gradients_on_in_another_file(tmp_path):
    found = _run(tmp_path, """
        from lib import predict

        def main(net, data):
            print(predict(net, data))
    """)
    assert found == [("AD101", 14)]


def test_predict_called_under_no_grad_or_near_a_backward_is_left_alone(tmp_path):
    assert _run(tmp_path, """
        import torch
        from lib import predict

        def main(net, data):
            with torch.no_grad():
                print(predict(net, data))
    """) == []
    assert _run(tmp_path, """
        from lib import predict

        @torch.no_grad()
        def main(net, data):
            print(predict(net, data))
    """) == []
    assert _run(tmp_path, """
        from lib import predict

        def main(net, data):
            out = predict(net, data)
            out.sum().backward()
    """) == []


def test_no_caller_anywhere_is_no_finding(tmp_path):
    assert _run(tmp_path, "import lib\n") == []


def test_callers_are_recorded_as_dependencies(tmp_path):
    import os

    from autodetach.analysis.project import take_deps

    take_deps()
    _run(tmp_path, "from lib import predict\n\npredict(None, [])\n")
    assert os.path.realpath(str(tmp_path / "caller.py")) in take_deps()


def test_a_method_with_no_caller_by_name_is_not_an_evaluation(tmp_path):
    """`forward` is called as `model(x)`: no call names it, in this file or others."""
    src = """
        import torch
        from torch import nn

        class Stream(nn.Module):
            def __init__(self):
                super().__init__()
                self.cell = nn.Linear(2, 2)

            def forward(self, chunk):
                preds = []
                for x in chunk:
                    preds.append(self.cell(x))
                return torch.cat(preds)

        def fit(model, opt, chunks):
            for chunk in chunks:
                opt.zero_grad()
                model(chunk).sum().backward()
                opt.step()
    """
    path = tmp_path / "stream.py"
    path.write_text(textwrap.dedent(src))
    rules = [r for r in all_rules() if r.code in ("AD101", "AD102")]
    found, _, _ = check_source(textwrap.dedent(src), str(path), rules, Options())
    assert found == []


SAMPLER = """
import torch
from torch.autograd import grad

def leapfrog(z, grad_u):
    return (z - 0.1 * grad_u(z)).detach().requires_grad_()

def log_weights(decoder, batches, steps):
    out = []
    for x in batches:
        logw = torch.zeros(x.size(0))
        z = torch.randn(x.size(0), 3, requires_grad=True)
        for j in range(steps):
            logw += decoder(z).sum(1) * 0.1

            def grad_u(v):
                return grad(decoder(v).sum(), v)[0]
            z = leapfrog(z, grad_u)
        out.append(logw.data)
    return out
"""


def _run_sampler(tmp_path, sampler: str):
    from autodetach.engine import prefilter

    caller = "from lib import log_weights\n\ndef main(d, b):\n    print(log_weights(d, b, 4))\n"
    (tmp_path / "caller.py").write_text(caller)
    path = tmp_path / "lib.py"
    text = textwrap.dedent(sampler)
    path.write_text(text)
    rules = prefilter(text, [r for r in all_rules() if r.code in ("AD101", "AD102")])
    found, _, _ = check_source(text, str(path), rules, Options())
    return [(f.code, f.line) for f in found]


def test_sampler_whose_only_gradient_is_a_nested_closure_is_an_evaluation(tmp_path):
    # `from torch.autograd import grad` admits the file; the gradient taken inside `grad_u`
    # does not read `logw`, so the loop keeps every step's graph for nothing
    assert _run_sampler(tmp_path, SAMPLER) == [("AD101", 14)]


def test_sampler_closure_that_differentiates_the_sum_is_left_alone(tmp_path):
    reads_sum = SAMPLER.replace("grad(decoder(v).sum(), v)", "grad(logw.sum(), v)")
    assert _run_sampler(tmp_path, reads_sum) == []


SET_UP = SAMPLER.replace("""        logw = torch.zeros(x.size(0))
        z = torch.randn(x.size(0), 3, requires_grad=True)
""", """        with torch.no_grad():
            logw = torch.zeros(x.size(0))
            z = torch.randn(x.size(0), 3)
        z = z.requires_grad_()
""")


def _run_module_caller(tmp_path, caller: str):
    from autodetach.engine import prefilter

    (tmp_path / "caller.py").write_text(textwrap.dedent(caller))
    path = tmp_path / "lib.py"
    text = textwrap.dedent(SET_UP)
    path.write_text(text)
    rules = prefilter(text, [r for r in all_rules() if r.code in ("AD101", "AD102")])
    found, _, _ = check_source(text, str(path), rules, Options())
    return [(f.code, f.line) for f in found]


def test_module_qualified_caller_set_up_under_no_grad_and_requires_grad_leaf(tmp_path):
    # `import lib; lib.log_weights(...)` is a caller; a `with torch.no_grad():` around loop-free
    # set-up does not switch the loop's mode; `z.requires_grad_()` makes a leaf that requires grad
    assert _run_module_caller(tmp_path, """
        import lib

        def main(d, b):
            print(lib.log_weights(d, b, 4))
    """) == [("AD101", 16)]


def test_module_qualified_caller_under_no_grad_is_left_alone(tmp_path):
    assert _run_module_caller(tmp_path, """
        import torch
        import lib as sampler

        def main(d, b):
            with torch.no_grad():
                print(sampler.log_weights(d, b, 4))
    """) == []


def test_no_grad_forward_inside_the_loop_guards_the_sum_a_method_computes_from_it():
    # pytorch_geometric examples/renet.py: the forward runs under no_grad inside
    # the evaluation loop, and a method of an imported class turns its output
    # into metrics. Only a no_grad block that makes fresh tensors is set-up.
    from autodetach.engine import check_code

    src = textwrap.dedent("""
        import torch
        import torch.nn.functional as F
        from torch_geometric.nn import RENet

        model = RENet(10, 5, hidden_channels=8, seq_len=4)
        optimizer = torch.optim.Adam(model.parameters())

        def train(loader):
            for data in loader:
                optimizer.zero_grad()
                log_prob_obj, log_prob_sub = model(data)
                loss = F.nll_loss(log_prob_obj, data.obj) + F.nll_loss(log_prob_sub, data.sub)
                loss.backward()
                optimizer.step()

        def test(loader):
            result = torch.tensor([0, 0, 0, 0], dtype=torch.float)
            for data in loader:
                with torch.no_grad():
                    log_prob_obj, log_prob_sub = model(data)
                result += model.test(log_prob_obj, data.obj) * data.obj.size(0)
            return result.tolist()

        for epoch in range(3):
            train([])
            test([])
    """)
    assert [f.code for f in check_code(src, select=["AD101", "AD102"])] == []


def test_set_up_block_of_fresh_tensors_moved_and_scaled_is_still_set_up():
    # BDMC ais.py: `with torch.no_grad(): epsilon = torch.ones(B).cuda().mul_(0.01)` makes fresh tensors only;
    # a block that runs a model (`out = model(x)`) is not set-up
    import libcst as cst

    from autodetach.analysis.eval_loops import _fresh_only

    fresh = cst.parse_module("with torch.no_grad():\n    eps = torch.ones(B).cuda().mul_(0.01)\n"
                             "    logw = torch.zeros(B).cuda()\n").body[0]
    forward = cst.parse_module("with torch.no_grad():\n    out = model(x).cuda()\n").body[0]
    assert _fresh_only(fresh.body) is True
    assert _fresh_only(forward.body) is False
