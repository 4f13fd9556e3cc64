"""State a module keeps between forwards, cut (`net.detach_hidden()`) only outside the
loop around a backward (analysis/state_cuts.py): the next iteration's backward walks
this graph, so AD104 keeps the retain, and AD106 reports a loop that steps in between."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

PER_FRAME = """
import torch
import torch.nn.functional as F
from tracker import FrameTracker


def train(loader, net, optimizer):
    for frames, targets in loader:
        for frame, target in zip(frames, targets):
            optimizer.zero_grad()
            loss = F.mse_loss(net(frame), target)
            loss.backward(retain_graph=True)
            optimizer.step()
        net.detach_hidden()
"""


def _codes(src):
    findings, _, _ = check_source(textwrap.dedent(src), "case.py", all_rules(), Options())
    return [(f.code, f.line, f.fix) for f in findings if f.code in ("AD104", "AD106")]


def test_a_step_per_frame_with_the_state_cut_per_sequence():
    assert _codes(PER_FRAME) == [("AD106", 12, "none")]


def test_the_state_cut_once_after_every_sequence_still_chains_them():
    src = PER_FRAME.replace("        net.detach_hidden()\n", "    net.detach_hidden()\n")
    assert _codes(src.replace("            optimizer.step()\n", "")) == []  # never stepped: nothing changes
    src = src.replace("            optimizer.step()\n", "").replace(
        "            loss.backward(retain_graph=True)\n", "            loss.backward(retain_graph=True)\n"
        "        optimizer.step()\n")
    assert _codes(src) == [("AD106", 12, "none")]


def test_a_step_per_sequence_then_the_cut_keeps_every_retain_but_the_last():
    src = PER_FRAME.replace("            optimizer.step()\n", "").replace(
        "        net.detach_hidden()\n", "        optimizer.step()\n        net.detach_hidden()\n")
    # the frames chain through the state: only the last frame's retain is for nothing (no index: no fix)
    assert _codes(src) == [("AD104", 12, "none")]


def test_a_cut_in_every_iteration_leaves_the_plain_verdict():
    src = PER_FRAME.replace("            optimizer.step()\n", "            optimizer.step()\n"
                            "            net.detach_hidden()\n").replace("        net.detach_hidden()\n", "")
    assert [c for c, _, _ in _codes(src)] == ["AD104"]


def test_a_cut_in_the_training_loop_wins_over_one_in_the_eval_loop():
    # `model.hidden = model.init_hidden()` before every batch; the eval loop's own reset is no sign
    src = """
        import torch.nn.functional as F
        from classifier import LSTMClassifier


        def run(model, optimizer, train_loader, test_loader):
            for x, y in train_loader:
                model.zero_grad()
                model.hidden = model.init_hidden()
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()
            for x, y in test_loader:
                model.hidden = model.init_hidden()
                print(F.cross_entropy(model(x), y).item())
        """
    assert _codes(src) == []


def test_a_forward_of_this_file_that_detaches_its_state_chains_nothing():
    src = """
        import torch
        import torch.nn.functional as F
        from torch import nn


        class Tracker(nn.Module):
            def __init__(self):
                super().__init__()
                self.cell = nn.Linear(8, 8)
                self.hidden = torch.zeros(3, 8)

            def forward(self, x):
                h = torch.tanh(x + self.cell(self.hidden))
                self.hidden = h.detach()
                return h * 2

            def reset_hidden(self):
                self.hidden = torch.zeros(3, 8)


        net = Tracker()
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for seq in [torch.randn(4, 3, 8) for _ in range(2)]:
            for frame in seq:
                opt.zero_grad()
                loss = F.mse_loss(net(frame), frame)
                loss.backward()
                opt.step()
            net.reset_hidden()
        """
    assert [c for c, _, _ in _codes(src) if c == "AD106"] == []


def test_a_fresh_state_handed_back_or_a_per_batch_detach_is_no_outer_cut():
    # `hidden = rnn.initHidden()` is passed in explicitly; `memory.detach()` cuts every batch
    handed = PER_FRAME.replace("        net.detach_hidden()\n", "").replace(
        "    for frames, targets in loader:\n", "    for frames, targets in loader:\n        hidden = net.init_hidden()\n")
    assert [c for c, _, _ in _codes(handed) if c == "AD106"] == []
    detached = PER_FRAME.replace("            optimizer.step()\n", "            optimizer.step()\n"
                                 "            net.detach()\n")
    assert [c for c, _, _ in _codes(detached) if c == "AD106"] == []
