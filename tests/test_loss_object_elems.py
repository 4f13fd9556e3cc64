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
