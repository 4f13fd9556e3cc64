"""Session 36, recall74: AD104 on data a helper prepares before the loop from a model it is
handed. What the helper reads of the model only as an index, a slice bound, a size or in a
comparison (`w = model.n_window`, `data[i - w:i]`, `x.repeat(w - i, 1)`) brings none of the
model's graph, whatever stores the attribute (`self.n_window = feats`, a constructor's
argument: TranAD); and an attribute's name (`args.model`) is no read of a variable `model`."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _ad1(tmp_path, src, name="train.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(src))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return sorted((f.code, f.line, f.fix) for f in findings if f.code.startswith("AD1"))


MODEL = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, window, feats):
        super().__init__()
        self.window = window
        self.gain = nn.Parameter(torch.ones(feats))
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(window * feats, feats))

    def forward(self, x):
        return self.body(x)
"""

SCRIPT = MODEL + """

def windows_of(series, model):
    READ
    out = []
    for i in range(1, len(series)):
        if i < w:
            out.append(torch.cat([series[0:1].repeat(w - i, 1), series[0:i]]))
        else:
            out.append(USE)
    return torch.stack(out)


def train(model, windows, opt):
    for start in range(0, len(windows), 4):
        loss = model(windows[start:start + 4]).pow(2).mean()
        opt.zero_grad()
        loss.backward(retain_graph=True)
        opt.step()


model = Net(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
windows = windows_of(torch.randn(12, 2), model)
for epoch in range(3):
    train(model, windows, opt)
"""

BACKWARD_LINE = SCRIPT.splitlines().index("        loss.backward(retain_graph=True)") + 1


def _script(read, use):
    return SCRIPT.replace("READ", read).replace("USE", use)


def test_setting_from_constructor_read_as_sizes(tmp_path):
    # `self.window = window`: not a literal, but read only as slice bounds, counts and in a test
    found = _ad1(tmp_path, _script("w = model.window", "series[i - w:i]"))
    assert [(c, line) for c, line, _ in found] == [("AD104", BACKWARD_LINE)]


def test_attribute_read_as_a_value_keeps_the_retain(tmp_path):
    # the local is also read as a value: the windows hang from the model's graph
    src = _script("w = model.window\n    g = model.gain", "series[i - w:i] * g")
    assert [f for f in _ad1(tmp_path, src) if f[0] == "AD104"] == []


def test_name_bound_twice_is_not_followed(tmp_path):
    # `w` bound again to what a call of the model gives: the read is not judged by its uses
    src = _script("w = model.window\n    if len(series) > 100:\n        w = model(series[None, :3]).sum()",
                  "series[i - w:i] * w")
    assert [f for f in _ad1(tmp_path, src) if f[0] == "AD104"] == []


def test_attribute_directly_in_a_slice(tmp_path):
    src = _script("w = 3", "series[i - model.window:i]")
    assert [(c, line) for c, line, _ in _ad1(tmp_path, src)] == [("AD104", BACKWARD_LINE)]


def test_property_of_that_name_may_compute_anything(tmp_path):
    src = _script("w = model.window", "series[i - w:i]").replace(
        "    def forward(self, x):",
        "    @property\n    def span(self):\n        return self.window\n\n    def forward(self, x):").replace(
        "model.window", "model.span")
    assert [f for f in _ad1(tmp_path, src) if f[0] == "AD104"] == []


def test_attribute_name_is_no_read_of_the_model(tmp_path):
    # `opts.model` in the helper names an option, not the network `model` of the script
    src = _script("w = 3", "series[i - w:i] if opts.model == 'mlp' else series[i - w:i].flip(0)").replace(
        "model = Net(3, 2)", "opts = Options()\nmodel = Net(3, 2)").replace(
        "def windows_of(series, model):", "class Options:\n    model = 'mlp'\n\n\ndef windows_of(series, model):")
    found = _ad1(tmp_path, src)
    assert [c for c, _, _ in found] == ["AD104"]


def test_sizes_in_two_files(tmp_path):
    (tmp_path / "nets.py").write_text(textwrap.dedent(MODEL))
    src = _script("w = model.window", "series[i - w:i]").replace(MODEL, "\nimport torch\nfrom nets import Net\n")
    found = _ad1(tmp_path, src)
    assert [c for c, _, _ in found] == ["AD104"]
