"""State on `self` computed from an argument and reused while a later argument has
the same values (analysis/value_caches.py): AD101, reported without a fix."""
import textwrap

from autodetach import check_code

CACHE = """
import torch


class Mesh:
    def __init__(self):
        self._cell = torch.zeros(3, 3)
        self._kf = Filter()
        self._vectors = None

    def compute(self, cell, ns):
        TEST
            STORE
        return self._vectors * self._kf.scale
"""


def _findings(test, store):
    """The lines of the AD101 findings, as offsets from the store's line, with their fixes."""
    src = textwrap.dedent(CACHE).replace("TEST", test).replace("STORE", store)
    at = src.splitlines().index("            " + store) + 1
    return [(f.line - at, f.fix) for f in check_code(src, select=["AD101"])]


def test_store_in_the_branch_that_runs_when_values_differ():
    store = "self._vectors = torch.linalg.inv(cell) * ns"
    assert _findings("if not torch.allclose(cell, self._cell):", store) == [(0, "none")]
    assert _findings("if torch.equal(self._cell, cell):\n            pass\n        else:", store) == [(0, "none")]


def test_argument_handed_to_an_object_kept_on_self():
    assert _findings("if not torch.allclose(cell, self._cell):", "self._kf.update(cell, ns)") == [(0, "none")]


def test_caches_that_keep_no_graph_of_the_argument():
    store = "self._vectors = torch.linalg.inv(cell) * ns"
    # the cache steps aside when the argument requires grad
    assert _findings("if cell.requires_grad or not torch.allclose(cell, self._cell):", store) == []
    # only the key, or what a cut of the argument gives
    assert _findings("if not torch.allclose(cell, self._cell):", "self._cell = cell.detach().clone()") == []
    assert _findings("if not torch.allclose(cell, self._cell):", "self._vectors = cell.shape") == []
    # a hit that needs more than equal values
    assert _findings("if ns > 3 or not torch.allclose(cell, self._cell):", store) == []
