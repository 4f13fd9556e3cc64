"""Entries of a Lightning `training_step` output that Lightning 1.x keeps for
`training_epoch_end(outputs)` with their graph (analysis/lightning_outputs.py),
reported by AD102."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

MODULE = """
import torch
import torch.nn.functional as F
import pytorch_lightning as pl


class Model(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 2)

    def training_step(self, batch, batch_idx):
        x, y = batch
        pred = self.net(x)
        loss = F.mse_loss(pred, y)
        part = F.mse_loss(pred[:, 0], y[:, 0])
        {body}

    def validation_step(self, batch, batch_idx):
        pred = self.net(batch[0])
        return {"val_loss": F.mse_loss(pred, batch[1]), "pred": pred}
{hooks}
"""

EPOCH_END = """
    def training_epoch_end(self, outputs):
        print(torch.stack([o["part"] for o in outputs]).mean())
"""


def _found(body, hooks=EPOCH_END):
    src = textwrap.dedent(MODULE).replace("{body}", body).replace("{hooks}", hooks)
    rules = [r for r in all_rules() if r.code == "AD102"]
    found, _, _ = check_source(src, "model.py", rules, Options())
    return [(f.line, f.fix, f.message) for f in found]


def test_entry_kept_for_the_epoch_end_is_reported_with_a_safe_fix():
    found = _found('return {"loss": loss, "part": part, "n": len(x)}')
    assert [(line, fix) for line, fix, _ in found] == [(17, "safe")]
    assert "overrides `training_epoch_end(outputs)`" in found[0][2]


def test_a_name_bound_to_a_dict_literal_is_read_through():
    assert [line for line, _, _ in _found('out = {"loss": loss, "part": part}\n        return out')] == [17]
    # entries computed in the literal: as the walk saw them built, not computed again at the return
    assert [line for line, _, _ in _found('out = {"loss": loss, "p": part * 2, "n": len(x)}\n'
                                          '        part = None\n        return out')] == [17]
    # an entry added later is not seen: nothing said
    assert _found('out = {"loss": loss}\n        out["part"] = part\n        return out') == []


def test_no_epoch_end_hook_or_a_step_end_hook_keeps_nothing_to_report():
    assert _found('return {"loss": loss, "part": part}', hooks="") == []
    step_end = EPOCH_END + """
    def training_step_end(self, out):
        return {"loss": out["loss"], "part": out["part"].detach()}
"""
    assert _found('return {"loss": loss, "part": part}', hooks=step_end) == []


def test_cut_entries_and_logging_dicts_are_left_alone():
    assert _found('return {"loss": loss, "part": part.detach(), "p": part.item(), "log": {"part": part}}') == []
