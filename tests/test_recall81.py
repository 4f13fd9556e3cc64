"""Issue 8, recall81. AD104: a method of a model whose class the file does not
know (`data = self.policy.pack_rollout(old.detach(), returns)`, the policy
built by a factory handed in) was taken to run the model's parameters, so the
minibatches built from its result seemed to hang from a graph built before
the loop, which every minibatch's backward walks again: the retain looked
needed (and AD108 saw a stale graph). The project's methods of that name
decide it (analysis/stub_overrides.py): when every body that is not an
abstract stub reads nothing of `self` that carries a graph, the result
carries only the arguments' graphs. The class is inferred: unsafe."""
import os
import textwrap

from autodetach.engine import Options, check_source
from autodetach.findings import SAFE, UNSAFE
from autodetach.registry import all_rules


def _write(root, files: dict) -> None:
    for rel, text in files.items():
        path = os.path.join(str(root), rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(textwrap.dedent(text))


def _found(root, rel: str, codes=("AD104",)):
    path = os.path.join(str(root), rel)
    with open(path, encoding="utf-8") as fh:
        src = fh.read()
    rules = [r for r in all_rules() if r.code in codes]
    found, _, _ = check_source(src, path, rules, Options())
    return [(f.code, f.line, f.fix, f.message) for f in found]


STUB = """
import torch


class Agent(torch.nn.Module):
    def split_rollout(self, *arrays):
        raise NotImplementedError
"""

PLAIN = """
import torch
from torch.utils.data import TensorDataset

from .base import Agent


class MLPAgent(Agent):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.net(x)

    def split_rollout(self, *arrays):
        return TensorDataset(*arrays)
"""

# a subclass whose split runs an encoder of its own: its result carries that graph
ENCODING = """
import torch
from torch.utils.data import TensorDataset

from .base import Agent


class EncodingAgent(Agent):
    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Linear(4, 4)
        self.net = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.net(x)

    def split_rollout(self, states, *arrays):
        return TensorDataset(self.enc(states), *arrays)
"""

TRAINER = """
import torch
from torch.utils.data import DataLoader


class Learner:
    def __init__(self, make_agent):
        self.agent = make_agent()
        self.opt = torch.optim.SGD(self.agent.parameters(), lr=0.1)

    def learn(self, states, targets):
        old = self.agent(states).detach()
        data = self.agent.split_rollout(states, targets, old)
        for _ in range(2):
            for s, t, o in DataLoader(data, batch_size=4):
                loss = (self.agent(s) - t).pow(2).mean() + (self.agent(s) - o).pow(2).mean()
                self.opt.zero_grad()
                loss.backward(retain_graph=True)
                self.opt.step()
"""


def _project(tmp_path, *subclasses):
    files = {"learners/__init__.py": "", "learners/learner.py": TRAINER,
             "agents/__init__.py": "", "agents/base.py": STUB}
    for i, text in enumerate(subclasses):
        files[f"agents/sub{i}.py"] = text
    _write(tmp_path, files)


def test_split_of_a_sibling_package_class_is_plain_data(tmp_path):
    """The learner lives in `learners/`, the agents in `agents/` (a sibling
    package): the split's bodies are read there; the fix is unsafe."""
    _project(tmp_path, PLAIN)
    found = _found(tmp_path, "learners/learner.py", ("AD104", "AD108"))
    assert [(code, line, fix) for code, line, fix, _ in found] == [("AD104", 18, UNSAFE)]
    msg = found[0][3]
    assert "`self.agent.split_rollout()` is taken to run none of `self.agent`'s parameters" in msg
    assert "abstract stub" in msg and "inferred" in msg


def test_one_subclass_encodes_in_its_split_no_finding(tmp_path):
    """Another subclass runs an encoder in its split: the minibatches may hang from
    that graph, which every minibatch walks again; the retain may be needed."""
    _project(tmp_path, PLAIN, ENCODING)
    assert _found(tmp_path, "learners/learner.py") == []


def test_split_with_no_stub_in_a_sibling_package(tmp_path):
    """No abstract base: the only project method of that name, in a sibling
    package, packs the arrays as they are: unsafe all the same."""
    _write(tmp_path, {"learners/__init__.py": "", "learners/learner.py": TRAINER, "agents/__init__.py": "",
                      "agents/base.py": "import torch\n\n\nclass Agent(torch.nn.Module):\n    pass\n",
                      "agents/sub0.py": PLAIN})
    found = _found(tmp_path, "learners/learner.py")
    assert [(line, fix) for _, line, fix, _ in found] == [(18, UNSAFE)]


def test_only_a_stub_in_sight_no_finding(tmp_path):
    """Only the abstract stub is in sight: what an override returns is not known."""
    _project(tmp_path)
    assert _found(tmp_path, "learners/learner.py") == []


FREE = """
import torch
from torch import nn


class Base(nn.Module):
    def batches_of(self, x, y):
        raise NotImplementedError


class Small(Base):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)

    def forward(self, x):
        return self.fc(x).squeeze(-1)

    def batches_of(self, x, y):
        {body}


def epoch(model, opt, x, y):
    for xb, yb in model.batches_of(x, y):
        loss = (model(xb) - yb).pow(2).mean()
        opt.zero_grad()
        loss.backward(retain_graph=True)
        opt.step()


torch.manual_seed(0)
model = {{"small": Small}}["small"]()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for it in range(3):
    epoch(model, opt, torch.randn(8, 2), torch.randn(8))
"""


def test_free_function_model_handed_in(tmp_path):
    """A free function takes the model; the loop walks what its method gives."""
    _write(tmp_path, {"fit.py": FREE.format(body="return list(zip(x.split(4), y.split(4)))")})
    found = _found(tmp_path, "fit.py", ("AD104", "AD108"))
    assert [(code, line, fix) for code, line, fix, _ in found] == [("AD104", 27, UNSAFE)]
    assert "`model.batches_of()` is taken to run none of `model`'s parameters" in found[0][3]


def test_free_function_method_runs_the_model_no_finding(tmp_path):
    """`batches_of()` runs the model's layer once for all batches: each loss walks it again."""
    _write(tmp_path, {"fit.py": FREE.format(body="h = self.fc(x)\n        return list(zip(h.split(4), y.split(4)))")})
    assert _found(tmp_path, "fit.py") == []


def test_known_class_stays_safe(tmp_path):
    """Where the file builds the model from its class, the walk sees the method: safe, no inference."""
    src = FREE.format(body="return list(zip(x.split(4), y.split(4)))").replace(
        '{"small": Small}["small"]()', "Small()")
    _write(tmp_path, {"fit.py": src})
    found = _found(tmp_path, "fit.py")
    assert [(line, fix) for _, line, fix, _ in found] == [(27, SAFE)]
    assert "inferred" not in found[0][3]


def test_module_methods_of_torch_are_not_the_projects(tmp_path):
    """`model.to(device)` runs torch's method, not a project class's `to()`."""
    from autodetach.analysis.stub_overrides import concrete_self_cut

    assert concrete_self_cut(None, "model", "to") is None
    assert concrete_self_cut(None, "model", "_split") is None


def test_known_class_inheriting_the_method_out_of_sight_no_finding(tmp_path):
    """`net = Net()` of a class of this file whose `pack` comes from a library base:
    the project's other methods of that name say nothing of the one that runs."""
    src = """
    import torch
    from torch import nn
    from somelib import LibNet


    class Other(nn.Module):
        def pack(self, x):
            raise NotImplementedError


    class Plain(Other):
        def pack(self, x):
            return x.split(4)


    class Net(LibNet):
        def forward(self, x):
            return self.body(x)


    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for it in range(3):
        for xb in net.pack(torch.randn(8, 2)):
            loss = net(xb).pow(2).mean()
            opt.zero_grad()
            loss.backward(retain_graph=True)
            opt.step()
    """
    _write(tmp_path, {"fit.py": src})
    assert _found(tmp_path, "fit.py") == []
