"""An optimizer handed to a training function that also checkpoints it
(`optimizer.state_dict()`) is still an optimizer: state_dict and
load_state_dict are methods of modules and optimizers alike, so they are
no evidence of a module (the message said "`optimizer` is a module")."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

TRAIN = """
import torch


def train(model, loader, optimizer, epochs=2):
    history = []
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = (model(x) - y).pow(2).mean()
            loss.backward()
            optimizer.step()
            history.append(loss)
        torch.save({{"model": model.state_dict(), "opt": optimizer.{call}}}, "ckpt.pt")
    return history
"""


def _messages(call):
    found, _, _ = check_source(textwrap.dedent(TRAIN.format(call=call)), "t.py", all_rules(), Options())
    return [f.message for f in found if f.code == "AD102"]


def test_a_checkpointed_optimizer_is_an_optimizer():
    for call in ("state_dict()", "load_state_dict(torch.load('o.pt'))"):
        (msg,) = _messages(call)
        assert "`optimizer` is an optimizer" in msg
        assert "`optimizer` is a module" not in msg
