"""Abstract methods (analysis/stubs.py): `raise NotImplementedError` in a base
class says nothing about what the override returns, so AD104 is not silenced
by a stub that "returns no graph"; the verdict then rests on an inference."""
import textwrap

from autodetach.analysis.summaries import summarize
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

LEARNER = """
import abc


class MetaLearner:
    def compute_model(self, inputs, variables):
        \"\"\"Return (loss, outputs).\"\"\"
        raise NotImplementedError("subclasses define the model")

    @abc.abstractmethod
    def get_batch(self):
        pass

    def noop(self):
        pass

    def scale(self, x):
        return x * 2
"""

TRAIN = """
import torch


class MAML:
    def __init__(self, learner, lr=0.1):
        self.learner = learner
        self.lr = lr
        self.opt = torch.optim.SGD(learner.parameters(), lr=0.01)

    def fit(self, steps):
        variables = self.learner.variables
        for i in range(steps):
            self.opt.zero_grad()
            loss, _ = self.learner.compute_model(self.learner.get_batch(), variables)
            grads = torch.autograd.grad(loss, variables, create_graph=True, retain_graph=True)
            adapted = [v - self.lr * g for v, g in zip(variables, grads)]
            meta_loss, _ = self.learner.compute_model(self.learner.get_batch(), adapted)
            meta_grads = torch.autograd.grad(
                meta_loss,
                variables,
                retain_graph=True)
            {after}
            for v, g in zip(variables, meta_grads):
                v.grad = g
            self.opt.step()
"""


def _ad104(tmp_path, after="pass"):
    (tmp_path / "learner.py").write_text(textwrap.dedent(LEARNER))
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(TRAIN.format(after=after)))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


def test_stub_summaries_say_nothing_of_the_result():
    table = summarize(textwrap.dedent(LEARNER))
    stub, marked = table["MetaLearner.compute_model"], table["MetaLearner.get_batch"]
    assert stub.abstract and marked.abstract
    assert stub.result == "unknown" and not stub.no_graph and stub.self_flow is None
    # a plain `pass` hook and a concrete method keep what their bodies say
    assert not table["MetaLearner.noop"].abstract and not table["MetaLearner.scale"].abstract


def test_meta_grad_through_an_abstract_model_is_reported_unsafe(tmp_path):
    found = _ad104(tmp_path)
    # the multi-line call is reported where its `retain_graph=True` is (line 22), not where it starts (19)
    assert [(f.line, f.fix) for f in found] == [(22, "unsafe")]
    assert "`self.learner.compute_model()` is abstract" in found[0].message


def test_a_second_grad_through_the_task_graph_keeps_the_retain(tmp_path):
    assert _ad104(tmp_path, after="torch.autograd.grad(meta_loss, [self.lr])") == []


TEMPLATE = """
import abc
import torch


class Trainer(abc.ABC):
    def __init__(self, model, lr=0.1):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr)

    @abc.abstractmethod
    def compute_loss(self, batch):
        ...

    def train(self, batches):
        for batch in batches:
            self.opt.zero_grad()
            loss = self.compute_loss(batch)
            loss.backward(retain_graph=True)
            self.opt.step()
"""


def _template(tmp_path, body):
    path = tmp_path / "trainer.py"
    text = textwrap.dedent(TEMPLATE).replace("        ...\n", body)
    if "..." not in body:
        text = text.replace("    @abc.abstractmethod\n", "    # a method of the class itself\n")
    path.write_text(text)
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


def test_loss_of_an_abstract_method_of_self_is_no_safe_drop(tmp_path):
    # a subclass out of sight defines compute_loss; it may return a loss over a graph it
    # keeps from an earlier call, which the next iteration's backward walks again
    found = _template(tmp_path, "        ...\n")
    assert [(f.line, f.fix) for f in found] == [(19, "unsafe")]
    assert "`self.compute_loss()` returns a graph the analysis cannot see into" in found[0].message


def test_loss_of_a_concrete_method_of_self_keeps_its_safe_drop(tmp_path):
    found = _template(tmp_path, "        return self.model(batch).pow(2).mean()\n")
    assert [(f.line, f.fix) for f in found] == [(19, "safe")]
