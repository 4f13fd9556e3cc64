"""Tensor state a module's forward updates in place from its graph
(analysis/buffer_updates.py), reported by AD101 in the module's own file:
no training loop needs to be in sight."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _found(src: str):
    rules = [r for r in all_rules() if r.code == "AD101"]
    found, _, _ = check_source(textwrap.dedent(src), "layers.py", rules, Options())
    return [(f.line, f.message) for f in found]


HEAD = """
import torch
from torch import nn

class Norm(nn.Module):
    def __init__(self, n, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.weight = nn.Parameter(torch.ones(n))
        self.register_buffer("running_mean", torch.zeros(n))
"""


def test_in_place_update_from_the_input_is_reported_as_inferred():
    found = _found(HEAD + """
    def forward(self, x):
        mean = x.mean(0)
        self.running_mean.mul_(1 - self.momentum).add_(mean * self.momentum)
        return (x - mean) * self.weight
""")
    assert [line for line, _ in found] == [14]
    assert "inferred: `x` carries a graph" in found[0][1]


def test_update_from_own_parameters_needs_no_inference():
    found = _found(HEAD + """
    def forward(self, x):
        self.running_mean.copy_(self.weight * 2)
        return x * self.weight
""")
    assert [line for line, _ in found] == [13]
    assert "inferred" not in found[0][1]


def test_subscript_store_and_helper_called_from_forward():
    found = _found(HEAD + """
    def _track(self, stats):
        self.running_mean[:] = stats

    def forward(self, x):
        self._track(x.mean(0))
        return x * self.weight
""")
    assert [line for line, _ in found] == [13]
    assert "called from forward" in found[0][1]


def test_cut_values_and_no_grad_are_left_alone():
    for body in ("""
        with torch.no_grad():
            self.running_mean.add_(x.mean(0))
""", """
        self.running_mean.add_(x.mean(0).detach())
""", """
        self.running_mean.data.add_(x.mean(0))
""", """
        self.running_mean = self.running_mean.to(x)
""", """
        self.running_mean.add_(x.argmax(0).float())
"""):
        src = HEAD + "\n    def forward(self, x):" + textwrap.indent(textwrap.dedent(body), " " * 8) + \
            "        return x * self.weight\n"
        assert _found(src) == [], body


def test_no_parameters_of_its_own_means_raw_inputs_are_not_assumed_to_carry_graphs():
    assert _found("""
import torch
from torch import nn

class ObsNorm(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("mean", torch.zeros(n))

    def forward(self, obs):
        self.mean.lerp_(obs.mean(0), 0.05)
        return obs - self.mean
""") == []


def test_recurrent_state_read_first_or_reset_elsewhere_is_not_a_running_statistic():
    src = HEAD + """
    def forward(self, x):
        out = x * self.weight + self.running_mean
        self.running_mean = self.running_mean * 0.5 + out.mean(0)
        return out
"""
    # read first: recurrent memory, not a running statistic; reported only because no code of the
    # project cuts it (analysis/kept_memory, tests/test_recall77.py)
    found = _found(src)
    assert [line for line, _ in found] == [14]
    assert "no code of the project cuts it" in found[0][1] and "running" not in found[0][1].split("reads")[0]
    assert _found(src + """
    def detach_state(self):
        self.running_mean = self.running_mean.detach()
""") == []
    assert _found(HEAD + """
    def reset(self):
        self.running_mean = torch.zeros_like(self.running_mean)

    def forward(self, x):
        self.running_mean = self.running_mean * 0.5 + x.mean(0) * self.weight
        return x * self.weight
""") == []


def test_running_average_rebuilt_from_its_old_value_is_reported():
    found = _found(HEAD + """
    def forward(self, x):
        h = x * self.weight
        if self.training:
            self.running_mean = 0.9 * self.running_mean + 0.1 * h.mean(0)
        return h
""")
    assert [line for line, _ in found] == [15]
    assert "from its old value" in found[0][1]


CACHE = """
import torch
from torch import nn

class Rotary(nn.Module):
    def __init__(self, dim, learned=False):
        super().__init__()
        self.learned = learned
        self.freqs = nn.Parameter(torch.ones(dim), requires_grad=learned)
        self.cache = {}

    def forward(self, t, key=None):
        use = key is not None{guard}
        if use and key in self.cache:
            return self.cache[key]
        freqs = t[:, None] * self.freqs
        if use:
            self.cache[key] = freqs
        return freqs
"""


def test_values_from_parameters_cached_and_returned_later_are_reported_without_fix():
    found = _found(CACHE.replace("{guard}", ""))
    assert [line for line, _ in found] == [18]
    assert "in `self.cache`" in found[0][1] and "when `learned` is true" in found[0][1]
    rules = [r for r in all_rules() if r.code == "AD101"]
    fixed, _, _ = check_source(textwrap.dedent(CACHE.replace("{guard}", "")), "layers.py", rules, Options())
    assert all(not f.fixable for f in fixed)


def test_cache_skipped_while_the_parameters_train_is_left_alone():
    assert _found(CACHE.replace("{guard}", " and not self.learned")) == []


def test_output_stored_without_an_earlier_return_is_no_cache():
    assert _found("""
import torch
from torch import nn

class Keep(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))
        self.last = None

    def forward(self, x):
        y = x * self.weight
        self.last = y
        return self.last
""") == []


RESET = """
import torch
from torch import nn

class Leaky(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, n)
        self.register_buffer("v", torch.zeros(1, n))

    def reset_states(self):
        {reset}

    def forward(self, x):
        self.v = 0.9 * self.v + self.fc(x)
        return self.v
"""


def _ad106(src: str):
    rules = [r for r in all_rules() if r.code == "AD106"]
    found, _, _ = check_source(textwrap.dedent(src), "layers.py", rules, Options())
    return [(f.line, f.fix) for f in found]


def test_in_place_reset_of_state_forward_stores_a_graph_in_keeps_its_history():
    assert _ad106(RESET.replace("{reset}", "self.v.zero_()")) == [(12, "safe")]
    assert _ad106(RESET.replace("{reset}", "for b in self.buffers():\n            b.zero_()")) == [(13, "safe")]


def test_reset_that_cuts_or_rebinds_the_state_is_left_alone():
    assert _ad106(RESET.replace("{reset}", "self.v.zero_().detach_()")) == []
    assert _ad106(RESET.replace("{reset}", "self.v = torch.zeros_like(self.v)")) == []


CORE = """
import torch
from torch import nn

class Core(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("stored_mean", torch.zeros(n))

    def forward(self, x, gain):
        mean = x.mean(0)
        self.stored_mean[:] = self.stored_mean * 0.9 + mean * 0.1
        return (x - mean) * gain

class Norm(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(n))
        self.core = Core(n)

    def forward(self, x):
        return self.core({arg})
"""


def test_part_without_parameters_fed_from_its_owner_parameters_is_reported():
    found = _found(CORE.replace("{arg}", "x, self.gain.view(1, -1)"))
    assert [line for line, _ in found] == [12]
    assert "`Core`, without parameters of its own, is such a part: `Norm`" in found[0][1]


def test_part_fed_only_its_owner_raw_input_is_left_alone():
    assert _found(CORE.replace("{arg}", "x, 2.0")) == []


def test_part_after_a_layer_in_a_sequential_is_reported():
    src = CORE.split("class Norm")[0] + "\nnet = nn.Sequential(nn.Linear(4, 4), Core(4))\n"
    found = _found(src)
    assert [line for line, _ in found] == [12]
    assert "nn.Sequential after `Linear`" in found[0][1]
    assert _found(CORE.split("class Norm")[0] + "\nnet = nn.Sequential(nn.Flatten(), Core(4))\n") == []


INIT_RESET = HEAD + """
        self.reset_parameters()

    def reset_parameters(self):
        self.running_mean.zero_()

    def forward(self, x):
        mean = x.mean(0)
        self.running_mean = 0.9 * self.running_mean + 0.1 * mean
        return x * self.weight
"""


def test_reset_that_only_init_calls_is_initialisation():
    found = _found(INIT_RESET)
    assert [line for line, _ in found] == [19]
    assert "from its old value" in found[0][1]
    assert _ad106(INIT_RESET) == []
    # called from another method as well: the caller manages the state between steps
    again = INIT_RESET.replace("    def forward", "    def new_epoch(self):\n        self.reset_parameters()\n\n"
                                                   "    def forward")
    assert _found(again) == []
