"""A loss object kept on self (`self.criterion = QueueLoss(...)`, a module of the project with
no parameters) whose forward returns `loss, queue, use_queue`: each element hangs from what its
forward builds it from (summaries' elem_flow), as for a loss object bound to a plain name.
Lightning-bolts' SwAV stored the queue (filled under no_grad) and the flag on self, and both
were reported as keeping the loss's graph for the next batch, with a `.detach()` of a bool."""
import os
import pathlib
import shutil

import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

CORPUS = pathlib.Path(__file__).parent.parent / "corpus" / "AD101"

# the queue is refilled from the embedding with its graph, and the next batch's loss reads it
KEPT = '''import torch
import torch.nn as nn


class QueueLoss(nn.Module):
    def __init__(self, temperature):
        super().__init__()
        self.temperature = temperature

    def forward(self, output, embedding, prototypes, queue=None, use_queue=False):
        scores = torch.cat((queue @ prototypes.t(), output))
        queue = torch.cat((embedding, queue[:-len(embedding)]))
        loss = -torch.log_softmax(scores / self.temperature, dim=1).mean()
        return loss, queue, use_queue
'''


def _ad101(path):
    text = path.read_text()
    findings, _, _ = check_source(text, str(path), all_rules(), Options())
    return [f.line for f in findings if f.code == "AD101"]


@pytest.mark.parametrize("case,losses", [("ok_queue_returned_by_loss_module", "losses.py"),
                                         ("ok_lightning_queue_loss_module", "swavlike/losses.py")])
def test_queue_and_flag_from_a_loss_object_on_self(tmp_path, case, losses):
    shutil.copytree(CORPUS / case, tmp_path / case)
    train = tmp_path / case / "train.py"
    assert _ad101(train) == []
    # control: the queue carries the embedding's graph into the next batch's loss
    (tmp_path / case / losses).write_text(KEPT)
    os.utime(tmp_path / case / losses, ns=(1, 1))
    train.write_text(train.read_text().replace("embedding=embedding.detach()", "embedding=embedding"))
    assert _ad101(train) != []


def test_flag_handed_back_beside_a_queue_with_a_graph(tmp_path):
    """The control's `use_queue` is the trainer's own `False`, handed back untouched: only the
    queue (line 33) keeps the embedding's graph; the flag (line 34) was reported with a
    `.detach()` of a bool, and the queue only once that fix was applied."""
    case = tmp_path / "q"
    shutil.copytree(CORPUS / "ok_queue_returned_by_loss_module", case)
    (case / "losses.py").write_text(KEPT)
    os.utime(case / "losses.py", ns=(1, 1))
    train = case / "train.py"
    train.write_text(train.read_text().replace("embedding=embedding.detach()", "embedding=embedding"))
    assert train.read_text().splitlines()[32:34] == ["        self.queue = queue",
                                                     "        self.use_the_queue = use_queue"]
    assert _ad101(train) == [33]


def test_flag_alone_handed_back(tmp_path):
    """`loss, use_queue = self.criterion(..., use_queue=self.use_the_queue)` whose forward has no
    cut: the flag is what the caller passed (its own `True`), not the loss's graph."""
    case = tmp_path / "f"
    shutil.copytree(CORPUS / "ok_flag_handed_back_by_loss_module", case)
    train = case / "train.py"
    assert _ad101(train) == []
    # control: the caller hands a tensor with the graph as the flag, and reads it back next batch
    text = train.read_text()
    text = text.replace("use_queue=self.use_the_queue)",
                        "use_queue=output.sum() if self.use_the_queue is None else self.use_the_queue)")
    train.write_text(text.replace("self.use_the_queue = True", "self.use_the_queue = None"))
    assert _ad101(train) == [31]


LOOP = '''import torch
import torch.nn as nn

from losses import QueueLoss

encoder = nn.Linear(6, 4)
prototypes = nn.Linear(4, 3, bias=False)
criterion = QueueLoss(temperature=0.1)
optimizer = torch.optim.SGD(list(encoder.parameters()) + list(prototypes.parameters()), lr=0.1)
queue = torch.zeros(8, 4)
flag = False
for _ in range(4):
    embedding = encoder(torch.randn(4, 6))
    output = prototypes(embedding)
    loss, new_queue, new_flag = criterion(output, embedding, prototypes.weight, queue, flag)
    queue = new_queue
    flag = new_flag
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
'''


def test_flag_handed_back_to_a_loop(tmp_path):
    """The same loss object bound to a plain name in a module-level loop: only the queue (line
    16) keeps a graph; the flag (line 17) is the loop's own `False` handed back."""
    (tmp_path / "losses.py").write_text(KEPT)
    train = tmp_path / "train.py"
    train.write_text(LOOP)
    assert _ad101(train) == [16]


# A model kept on self whose forward returns a tuple (`pred, feat = self.netd(x)`) runs its own
# layers: it is read as a model run, not as a loss object (GANomaly's adversarial term on the
# features of `self.netd(self.fake.detach())` sends G no gradient: AD109).
GANOMALY = '''import torch
import torch.nn as nn


class NetD(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Linear(4, 3)
        self.classifier = nn.Linear(3, 1)

    def forward(self, x):
        features = self.features(x)
        classifier = torch.sigmoid(self.classifier(features))
        return classifier, features


class Model:
    def __init__(self):
        self.netg = nn.Linear(4, 4)
        self.netd = NetD()
        self.l_adv = nn.MSELoss()
        self.optimizer_g = torch.optim.Adam(self.netg.parameters())

    def step(self, x):
        self.fake = self.netg(x)
        self.pred_real, self.feat_real = self.netd(x)
        self.pred_fake, self.feat_fake = self.netd(self.fake.detach())
        self.optimizer_g.zero_grad()
        self.err_g = self.l_adv(self.feat_fake, self.feat_real) + (self.fake - x).abs().mean()
        self.err_g.backward()
        self.optimizer_g.step()


model = Model()
for _ in range(3):
    model.step(torch.randn(2, 4))
'''


def test_model_on_self_returning_a_tuple_is_a_model_run(tmp_path):
    path = tmp_path / "ganomaly.py"
    path.write_text(GANOMALY)
    findings, _, _ = check_source(GANOMALY, str(path), all_rules(), Options())
    assert [f.line for f in findings if f.code == "AD109"] != []
