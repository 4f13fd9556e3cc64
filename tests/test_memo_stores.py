"""A value a module's forward computes once from its parameters and keeps on
itself for later calls (analysis/memo_stores.py), reported by AD101 without a fix."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _found(src: str):
    rules = [r for r in all_rules() if r.code == "AD101"]
    found, _, _ = check_source(textwrap.dedent(src), "model.py", rules, Options())
    return [(f.line, f.message, f.fix) for f in found]


HEAD = """
import torch
from torch import nn

class Predictor(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.inducing = nn.Parameter(torch.randn(n, 2))
        self.values = nn.Parameter(torch.randn(n, 1))
        self._w = None
"""


def test_memo_under_hasattr_is_reported_without_a_fix():
    found = _found(HEAD + """
    def forward(self, x):
        k = x @ self.inducing.t()
        if not hasattr(self, "_cache"):
            self._cache = torch.linalg.pinv(self.inducing @ self.inducing.t()) @ self.values
        return k @ self._cache
""")
    assert [line for line, _, _ in found] == [15]
    assert "computes it once (under `not hasattr(self, \"_cache\")`)" in found[0][1]
    assert "`self.inducing`" in found[0][1] and "`self.values`" in found[0][1]
    assert found[0][2] == "none"


def test_memo_under_is_none_is_reported():
    found = _found(HEAD + """
    def forward(self, x):
        if self._w is None:
            self._w = self.values * 2
        return x @ self.inducing.t() @ self._w
""")
    assert [line for line, _, _ in found] == [14]


def test_detached_or_no_grad_memo_is_not_reported():
    assert _found(HEAD + """
    def forward(self, x):
        if self._w is None:
            self._w = (self.values * 2).detach()
        return x @ self.inducing.t() @ self._w
""") == []
    assert _found(HEAD + """
    def forward(self, x):
        if self._w is None:
            with torch.no_grad():
                self._w = self.values * 2
        return x @ self.inducing.t() @ self._w
""") == []


def test_memo_another_method_clears_is_not_reported():
    for clear in ("self._w = None", "del self._w", "delattr(self, '_w')"):
        assert _found(HEAD + f"""
    def train(self, mode=True):
        if mode and hasattr(self, "_w"):
            {clear}
        return super().train(mode)

    def forward(self, x):
        if self._w is None:
            self._w = self.values * 2
        return x @ self.inducing.t() @ self._w
""") == [], clear


def test_running_value_and_unread_store_are_not_memos():
    # reads its old value: an average, not computed once; stored but never read back
    assert _found(HEAD + """
    def forward(self, x):
        if self._w is None:
            self._w = self.values * 2
        return x @ self.inducing.t()
""") == []
    assert _found(HEAD + """
    def forward(self, x):
        if self._w is not None:
            self._w = self._w.sign() + torch.zeros(1)
        return x @ self.inducing.t() @ self._w
""") == []


def test_reset_method_only_init_calls_still_clears_the_memo():
    # speechbrain's attention: reset() runs in __init__ and from the decoder of another file
    assert _found(HEAD + """
        self.reset()

    def reset(self):
        self.keys = None

    def forward(self, x):
        if self.keys is None:
            self.keys = x @ self.inducing.t()
        return self.keys @ self.values
""") == []


def test_layer_alias_and_branch_test_are_no_values_from_parameters():
    # `self.fc_src = self.fc` keeps a layer, not a tensor; an IfExp's test does not flow into its value
    assert _found(HEAD + """
        self.fc = nn.Linear(2, 2)

    def forward(self, x):
        if not hasattr(self, "fc_src"):
            self.fc_src = self.fc
        if not hasattr(self, "_fill"):
            self._fill = torch.tensor(-1e4) if check(self.values) else -1e4
        return self.fc_src(x) + self._fill
""") == []
