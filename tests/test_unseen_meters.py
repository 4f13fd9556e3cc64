"""Meters whose class the analysis reads through a star import or cannot read
(analysis/unseen_meters.py), loops over literal lists unrolled
(analysis/unrolled.py), and a dict entry cut beside a kept one."""
import textwrap

import libcst as cst

from autodetach.analysis.unrolled import positions
from autodetach.engine import Options, check_source
from autodetach.findings import NONE, UNSAFE
from autodetach.registry import all_rules

TRAIN = '''
import torch
import torch.nn as nn
{imports}

def train_one_epoch(model, optimizer, data):
    losses = {meter}
    for x, y in data:
        out = model(x)
        loss = nn.functional.cross_entropy(out, y)
        losses.{meth}({arg}, x.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    {read}
'''

METER = '''
class AverageMeter:
    def __init__(self):
        self.sum = 0

    def update(self, val, n=1):
        self.sum += val * n
'''

QUIET_METER = '''
class AverageMeter:
    def __init__(self):
        self.sum = 0

    def update(self, val, n=1):
        self.sum += float(val) * n
'''


def _findings(tmp_path, imports, meter="AverageMeter()", meth="update", arg="loss",
              read="print(losses.avg)", files=None):
    for name, text in (files or {}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    text = TRAIN.format(imports=imports, meter=meter, meth=meth, arg=arg, read=read)
    path = tmp_path / "train.py"
    path.write_text(text)
    findings, _, _ = check_source(text, str(path), all_rules(), Options())
    return [f for f in findings if f.code.startswith("AD1")]


def test_library_meter_is_inferred_with_an_unsafe_fix(tmp_path):
    found = _findings(tmp_path, "from meterlib.utils import AverageMeter")
    assert [f.code for f in found] == ["AD102"]
    assert found[0].fix == UNSAFE
    assert "out of sight" in found[0].message and "read at line" in found[0].message


def test_library_meter_never_read_is_left_alone(tmp_path):
    assert _findings(tmp_path, "from meterlib.utils import AverageMeter", read="pass") == []


def test_library_meter_given_a_number_is_left_alone(tmp_path):
    assert _findings(tmp_path, "from meterlib.utils import AverageMeter", arg="loss.item()") == []


def test_library_meter_given_what_is_not_backwarded_is_left_alone(tmp_path):
    assert _findings(tmp_path, "from meterlib.utils import AverageMeter", arg="out.mean()") == []


def test_known_library_metric_is_left_alone(tmp_path):
    assert _findings(tmp_path, "from torchmetrics import MeanMetric", meter="MeanMetric()") == []


def test_other_method_names_are_left_alone(tmp_path):
    assert _findings(tmp_path, "from meterlib.utils import AverageMeter", meth="show") == []


def test_star_imported_meter_is_read(tmp_path):
    found = _findings(tmp_path, "from utils import *", files={"utils.py": METER})
    assert [f.code for f in found] == ["AD102"]
    assert "from ... import *" in found[0].message


def test_star_imported_meter_that_converts_is_left_alone(tmp_path):
    assert _findings(tmp_path, "from utils import *", files={"utils.py": QUIET_METER}) == []


def test_star_imported_meter_given_a_count_from_an_output_is_left_alone(tmp_path):
    # `update(acc, sum(lengths))`: the count comes from a module's output tuple, but is no loss
    assert _findings(tmp_path, "from utils import *", arg="loss.item()", files={"utils.py": METER}) == []


def _positions(src):
    loop = cst.parse_statement(textwrap.dedent(src))
    found = positions(loop)
    return None if found is None else [{k: cst.Module([]).code_for_node(v) for k, v in p.items()} for p in found]


def test_unrolled_forms():
    assert _positions("for h, v in zip([a, b], [x, y.z]):\n    h.append(v)\n") == \
        [{"h": "a", "v": "x"}, {"h": "b", "v": "y.z"}]
    assert _positions("for h, v in ((a, x), (b, y)):\n    h.append(v)\n") == \
        [{"h": "a", "v": "x"}, {"h": "b", "v": "y"}]
    assert _positions("for h in [a, b]:\n    h.append(1)\n") == [{"h": "a"}, {"h": "b"}]


def test_unrolled_refuses():
    assert _positions("for h, v in zip(hs, [x, y]):\n    h.append(v)\n") is None
    assert _positions("for h, v in zip([a], [x, y]):\n    h.append(v)\n") is None
    assert _positions("for h, v in zip([a, b], [x, y]):\n    if v:\n        break\n") is None
    assert _positions("for h in [a, *rest]:\n    h.append(1)\n") is None


LOOP = '''
import torch
import torch.nn as nn

model = nn.Linear(4, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
{setup}
for step in range(5):
    out = model(torch.randn(8, 4))
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    {body}
print(losses, accs)
'''


def _loop(setup, body):
    text = LOOP.format(setup=setup, body=textwrap.indent(textwrap.dedent(body), "    ").strip())
    findings, _, _ = check_source(text, "case.py", all_rules(), Options())
    return [(f.code, f.line) for f in findings if f.code.startswith("AD1")]


def test_unrolled_pairs_reach_the_run_list():
    body = "acc = out.argmax(1).float().mean().item()\nfor h, v in ((losses, loss), (accs, acc)):\n    h.append(v)"
    assert _loop("losses, accs = [], []", body) == [("AD102", 15)]


def test_unrolled_numbers_are_left_alone():
    body = "acc = out.argmax(1).float().mean().item()\nfor h, v in zip([losses, accs], [loss.item(), acc]):\n" \
           "    h.append(v)"
    assert _loop("losses, accs = [], []", body) == []


def test_cut_entry_keeps_the_other_entries():
    body = "log = {}\nlog['loss'] = loss\nlog['out'] = out.detach()\nlosses.append(log)"
    found = _loop("losses, accs = [], 0", body)
    assert found and found[0][0] == "AD102"


def test_dict_of_entries_gets_no_item_fix():
    text = LOOP.format(setup="losses, accs = [], 0", body="log = {}\n    log['loss'] = loss\n    losses.append(log)")
    findings, _, _ = check_source(text, "case.py", all_rules(), Options())
    ad102 = [f for f in findings if f.code == "AD102"]
    assert ad102 and all(f.fix == NONE for f in ad102)


def test_dict_comprehension_total_gets_no_detach_of_the_dict():
    body = "parts = {'a': loss, 'b': out.abs().mean()}\n" \
           "    loss_totals = {k: loss_totals[k] + parts[k] * 2 for k in loss_totals.keys()}"
    text = LOOP.format(setup="losses, accs = [], 0\nloss_totals = {'a': 0.0, 'b': 0.0}", body=body)
    findings, _, _ = check_source(text, "case.py", all_rules(), Options())
    ad102 = [f for f in findings if f.code == "AD102"]
    assert ad102 and all(f.fix == NONE for f in ad102)
