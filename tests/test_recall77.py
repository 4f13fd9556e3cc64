"""AD101 on library-style stores (session 36, issue 8): recurrent memory a
module reads and sets anew from its call's graph that no code of the project
cuts (Infini-attention's compressive memory, analysis/kept_memory.py), and a
cache keyed by tensors on an object made once at import that nothing clears
(deepxde's Jacobians, analysis/tensor_keyed.py). Library files: no training
loop in sight."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.findings import NONE
from autodetach.registry import all_rules


def _ad101(src, path):
    findings, _, _ = check_source(textwrap.dedent(src), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD101"]


def _write(tmp_path, name, src):
    p = tmp_path / name
    p.write_text(textwrap.dedent(src))
    return p


# --- recurrent memory -------------------------------------------------------

MEMORY_FREE_FUNCTION = """
import torch
import torch.nn as nn
import torch.nn.functional as F


def write_memory(mem, norm, k, v):
    sigma = F.elu(k) + 1
    return mem + sigma.t() @ v, norm + sigma.sum(0)


class LinearMemoryAttention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.register_buffer("mem", torch.zeros(d, d))
        self.register_buffer("norm", torch.ones(d))

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        out = (F.elu(q) + 1) @ self.mem / ((F.elu(q) + 1) @ self.norm).unsqueeze(-1)
        self.mem, self.norm = write_memory(self.mem, self.norm, k, v)
        return out
"""


def test_memory_through_a_function_of_the_file_is_reported_without_fix(tmp_path):
    got = _ad101(MEMORY_FREE_FUNCTION, _write(tmp_path, "layers.py", MEMORY_FREE_FUNCTION))
    assert len(got) == 1, [f.message for f in got]
    assert got[0].line == 22
    assert "no code of the project cuts it" in got[0].message and "inferred" in got[0].message
    assert got[0].fix == NONE  # `.detach()` of the function's tuple would raise


def test_memory_function_that_detaches_is_not_reported(tmp_path):
    src = MEMORY_FREE_FUNCTION.replace("return mem + sigma.t() @ v, norm + sigma.sum(0)",
                                       "new = mem + sigma.t() @ v\n    n = norm + sigma.sum(0)\n"
                                       "    return new.detach(), n.detach()")
    assert not _ad101(src, _write(tmp_path, "layers.py", src))


def test_memory_from_an_imported_helper_is_unknown(tmp_path):
    src = MEMORY_FREE_FUNCTION.replace("def write_memory", "def _unused").replace(
        "import torch.nn.functional as F\n", "import torch.nn.functional as F\nfrom memops import write_memory\n")
    _write(tmp_path, "memops.py", "def write_memory(mem, norm, k, v):\n    return mem.detach(), norm.detach()\n")
    assert not _ad101(src, _write(tmp_path, "layers.py", src))


MEMORY_METHOD_RESET_IN_PLACE = """
import torch
import torch.nn as nn


class SegmentRecurrence(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.cell = nn.Linear(2 * d, d)
        self.register_buffer("state", torch.zeros(1, d))

    def forward(self, x):
        ctx = self.state.expand(x.shape[0], -1)
        h = torch.tanh(self.cell(torch.cat([x, ctx], -1)))
        self.state = 0.5 * self.state + 0.5 * h.mean(0, keepdim=True)
        return h


class Stack(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.layers = nn.ModuleList([SegmentRecurrence(d) for _ in range(2)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def new_document(self):
        for layer in self.layers:
            layer.state.zero_()
"""


def test_memory_reset_only_in_place_by_the_owner_is_reported_with_unsafe_fix(tmp_path):
    got = _ad101(MEMORY_METHOD_RESET_IN_PLACE, _write(tmp_path, "stack.py", MEMORY_METHOD_RESET_IN_PLACE))
    assert [f.line for f in got] == [15], [f.message for f in got]
    assert got[0].fix != NONE


def test_memory_set_anew_by_the_owner_is_not_reported(tmp_path):
    src = MEMORY_METHOD_RESET_IN_PLACE.replace("layer.state.zero_()", "layer.state = torch.zeros_like(layer.state)")
    assert not _ad101(src, _write(tmp_path, "stack.py", src))


def test_memory_cut_by_a_caller_in_another_file_is_not_reported(tmp_path):
    (tmp_path / "setup.py").write_text("")
    path = _write(tmp_path, "stack.py", MEMORY_METHOD_RESET_IN_PLACE)
    _write(tmp_path, "run.py", """
        from stack import Stack

        def tbptt(model, segments):
            for seg in segments:
                model(seg).sum().backward()
                for layer in model.layers:
                    layer.state = layer.state.detach()
        """)
    assert not _ad101(MEMORY_METHOD_RESET_IN_PLACE, path)


def test_memory_updated_without_grad_is_not_reported(tmp_path):
    src = MEMORY_METHOD_RESET_IN_PLACE.replace(
        "        self.state = 0.5 * self.state + 0.5 * h.mean(0, keepdim=True)\n",
        "        with torch.no_grad():\n            self.state = 0.5 * self.state + 0.5 * h.mean(0, keepdim=True)\n")
    assert not _ad101(src, _write(tmp_path, "stack.py", src))


def test_memory_a_method_sets_anew_is_not_reported(tmp_path):
    src = MEMORY_METHOD_RESET_IN_PLACE + """

class Wrapped(SegmentRecurrence):
    pass
""".replace("pass", "def reset(self):\n        self.state = torch.zeros_like(self.state)")
    src = src.replace("class SegmentRecurrence(nn.Module):", "class SegmentRecurrence(nn.Module):\n"
                      "    def clear(self):\n        self.state = self.state.detach()\n")
    assert not _ad101(src, _write(tmp_path, "stack.py", src))


# --- tensor-keyed caches ----------------------------------------------------

TRAINER_CACHE = """
import torch


class DerivativeCache:
    def __init__(self):
        self._entries = dict()

    def first(self, u, x):
        if (u, x) not in self._entries:
            self._entries[(u, x)] = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]
        return self._entries[(u, x)]


CACHE = DerivativeCache()


def residual(net, x):
    u = net(x)
    return CACHE.first(u, x) - u
"""


def test_tensor_keyed_cache_on_an_instance_made_at_import_is_reported(tmp_path):
    got = _ad101(TRAINER_CACHE, _write(tmp_path, "pde.py", TRAINER_CACHE))
    assert [f.line for f in got] == [11], [f.message for f in got]
    assert "hashes by identity" in got[0].message and "inferred" in got[0].message
    assert got[0].fix == NONE


def test_tensor_keyed_cache_with_a_clear_method_is_not_reported(tmp_path):
    src = TRAINER_CACHE.replace("\n\nCACHE = ", "\n    def reset(self):\n        self._entries = {}\n\n\nCACHE = ")
    assert not _ad101(src, _write(tmp_path, "pde.py", src))


def test_tensor_keyed_cache_without_a_graph_is_not_reported(tmp_path):
    src = TRAINER_CACHE.replace(", create_graph=True", "")
    assert not _ad101(src, _write(tmp_path, "pde.py", src))


def test_cache_keyed_by_id_or_name_is_not_reported(tmp_path):
    src = TRAINER_CACHE.replace("(u, x) not in", "id(u) not in").replace("[(u, x)]", "[id(u)]")
    assert not _ad101(src, _write(tmp_path, "pde.py", src))


def test_cache_instance_made_per_call_is_not_reported(tmp_path):
    src = TRAINER_CACHE.replace("CACHE = DerivativeCache()\n", "").replace(
        "    return CACHE.first(u, x) - u", "    cache = DerivativeCache()\n    return cache.first(u, x) - u")
    assert not _ad101(src, _write(tmp_path, "pde.py", src))


def test_module_level_dict_cleared_with_pop_is_not_reported(tmp_path):
    src = """
    import torch

    _grads = {}


    def dudx(u, x):
        key = (u, x)
        if key not in _grads:
            _grads[key] = torch.autograd.grad(u.sum(), x, create_graph=True)[0]
        return _grads[key]


    def forget(u, x):
        _grads.pop((u, x), None)
    """
    assert not _ad101(src, _write(tmp_path, "ops.py", src))
    kept = src.replace("_grads.pop((u, x), None)", "return None")
    got = _ad101(kept, _write(tmp_path, "ops.py", kept))
    assert [f.line for f in got] == [10], [f.message for f in got]
