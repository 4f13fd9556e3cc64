"""`self.model = DDP(self.model)`: a DataParallel/DistributedDataParallel
wrapper runs the inner module's forward, so the wrapped name keeps the inner
module's class (names.build_names, _wrapped_key)."""
import libcst as cst
import pytest

from autodetach.analysis.names import build_names
from autodetach.imports import ImportTable


def table(src):
    module = cst.parse_module(src)
    return build_names(module, ImportTable.from_module(module))


@pytest.mark.parametrize("wrap", [
    "from torch.nn.parallel import DistributedDataParallel as DDP\n", "from torch.nn import DataParallel as DDP\n",
])
def test_the_wrapper_keeps_the_project_class(wrap):
    t = table(wrap + "from nets import Net\n\nmodel = Net()\nmodel = DDP(model, device_ids=[0])\n")
    assert t.foreign_instances["model"].value == "Net"
    assert "model" not in t.wrapped


def test_a_wrapped_class_of_this_file_stays_known():
    src = ("import torch.nn as nn\n\nclass Net(nn.Module):\n    pass\n\n"
           "class T:\n    def __init__(self):\n        self.net = Net()\n        self.net = nn.DataParallel(self.net)\n")
    t = table(src)
    assert t.instances["self.net"] == "Net"
    assert "self.net" not in t.wrapped


def test_a_wrapped_unknown_model_stays_unseen():
    t = table("from torch.nn.parallel import DataParallel\n\nnet = DataParallel(build(cfg))\n")
    assert "net" in t.wrapped
    assert "net" not in t.foreign_instances
