"""A logger in a package's utilities fed by a trainer in a sibling package
(`hive/utils/logging.py`, `hive/agents/dqn.py`): the trainer's step method
(a backward and an optimizer step, its loop the caller's) logs the loss tensor,
and the logger appends it to a list inside a dict (`self._data[name][0]`)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

LOGGER = """
class ChompLogger:
    def __init__(self):
        self._data = {}

    def log_scalar(self, name, value, step):
        if name not in self._data:
            self._data[name] = [[], []]
        self._data[name][0].append(value)
        self._data[name][1].append(step)
"""

AGENT = """
import torch
import torch.nn.functional as F

from pkg.utils.logging import ChompLogger


class Agent:
    def __init__(self, net):
        self.net = net
        self.optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
        self.logger = ChompLogger()

    def update(self, x, y):
        loss = F.mse_loss(self.net(x), y)
        self.logger.log_scalar("loss", LOGGED, 0)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
"""


def _project(tmp_path, logged):
    for folder in ("pkg", "pkg/utils", "pkg/agents"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "__init__.py").write_text("")
    logger = tmp_path / "pkg" / "utils" / "logging.py"
    logger.write_text(textwrap.dedent(LOGGER))
    (tmp_path / "pkg" / "agents" / "dqn.py").write_text(textwrap.dedent(AGENT).replace("LOGGED", logged))
    rules = [r for r in all_rules() if r.code in ("AD101", "AD102")]
    found, _, _ = check_source(logger.read_text(), str(logger), rules, Options())
    return found


def test_a_sibling_packages_step_method_feeding_a_logger_is_reported_at_the_store(tmp_path):
    found = _project(tmp_path, "loss")
    assert [(f.code, f.line) for f in found] == [("AD102", 9)]
    assert "inferred" in found[0].message and found[0].fix == "unsafe"


def test_a_logged_number_is_left_alone(tmp_path):
    assert _project(tmp_path, "loss.item()") == []
