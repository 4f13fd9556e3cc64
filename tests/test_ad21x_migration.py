"""The AD211-AD220 migration rules against the installed torch: each fix
computes what the old code computed (or what today's default computes), and
a legacy script fixed by all of them runs."""
import textwrap
import warnings

import pytest
import torch
import torch.nn.functional as F

from autodetach import fix_code
from autodetach.rules.ad216_softmax_implicit_dim import old_dim


def _run(src: str) -> dict:
    env: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(src, "<case>", "exec"), env)
    return env


def _fixed(src: str, code: str, unsafe: bool = False) -> str:
    new, findings = fix_code(textwrap.dedent(src), select=[code], unsafe=unsafe)
    assert any(f.code == code for f in findings), "nothing reported"
    return new


SETUP = """
import torch
torch.manual_seed(0)
A = torch.randn(5, 5, dtype=torch.float64)
S = A @ A.t() + 5 * torch.eye(5, dtype=torch.float64)
B = torch.randn(5, 2, dtype=torch.float64)
"""


@pytest.mark.parametrize("old,check", [
    ("q, r = torch.qr(A, some=False)", "torch.equal(q @ r, q @ r) and torch.allclose(q @ r, A)"),
    ("L = torch.cholesky(S, upper=True)", "torch.allclose(L.t() @ L, S) and torch.equal(L, L.triu())"),
    ("P = torch.chain_matmul(A, S, A)", "torch.allclose(P, A @ S @ A)"),
    ("x, _ = torch.solve(B, S)", "torch.allclose(S @ x, B)"),
    ("e, V = torch.symeig(S, eigenvectors=True)", "torch.allclose(V @ torch.diag(e) @ V.t(), S)"),
    ("ev = torch.eig(A)[0]", "ev.shape == (5, 2) and torch.allclose("
                             "torch.view_as_complex(ev.contiguous()).prod().real, torch.det(A))"),
    ("r = torch.matrix_rank(S, symmetric=True)", "r.item() == 5"),
    ("U = torch.potrf(S)\nz = torch.potrs(B, U)", "torch.allclose(S @ z, B)"),
    ("x = torch.gels(B, S)[0]", "torch.allclose(S @ x, B)"),
    ("x = torch.lstsq(B, S)[0]", "torch.allclose(S @ x, B)"),
    ("x, _ = torch.triangular_solve(B, S.triu(), transpose=True)", "torch.allclose(S.triu().t() @ x, B)"),
    ("LU, piv = torch.lu(A)\nx = torch.lu_solve(B, LU, piv)", "torch.allclose(A @ x, B)"),
])
def test_ad211_fix_computes_the_linalg_result(old, check):
    new = _fixed(SETUP + old + "\n", "AD211", unsafe=True)
    assert "torch.linalg" in new or "cholesky_solve" in new
    env = _run(new)
    assert eval(check, env), new


def test_ad211_deprecated_functions_and_fixes_agree_on_torch():
    """Where the old function still runs (it warns), old and fixed agree exactly."""
    src = SETUP + ("q, r = torch.qr(A)\nq2, r2 = torch.qr(A, some=False)\nL = torch.cholesky(S, upper=True)\n"
                   "L2 = torch.cholesky(S)\nP = torch.chain_matmul(A, S, A)\n"
                   "t = torch.triangular_solve(B, S, upper=False, unitriangular=True)[0]\n"
                   "t2 = torch.triangular_solve(B, S, transpose=True).solution\n"
                   "LU, piv, info = torch.lu(A, get_infos=True)\nx = torch.lu_solve(B, LU, piv)\n")
    before = _run(src)
    after = _run(_fixed(src, "AD211"))
    for name in ("q", "r", "q2", "r2", "L", "L2", "P", "t", "t2", "LU", "piv", "info", "x"):
        assert torch.allclose(before[name], after[name]), name


@pytest.mark.parametrize("a,b", [(7, 2), (-7, 2), (7, -2), (-6, 4), (0, 3), (9, 3)])
def test_ad212_trunc_is_the_old_c_division(a, b):
    src = f"import torch\nx = torch.LongTensor([{a}])\ny = x.long() / {b}\n"
    env = _run(_fixed(src, "AD212"))
    expected = abs(a) // abs(b) * (1 if (a >= 0) == (b > 0) else -1)  # C truncation
    assert env["y"].dtype == torch.int64
    assert env["y"].item() == expected


def test_ad215_one_minus_is_the_old_invert_and_bool_selects_the_same():
    m = torch.ByteTensor([1, 0, 1, 0])
    x = torch.arange(4.0)
    src = "import torch\nm = torch.ByteTensor([1, 0, 1, 0])\ninv = ~m\n"
    env = _run(_fixed(src, "AD215"))
    assert env["inv"].tolist() == [0, 1, 0, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert torch.equal(x[m], x[m.bool()])


@pytest.mark.parametrize("ndim", [0, 1, 2, 3, 4, 5])
def test_ad216_old_dim_is_torchs(ndim):
    assert old_dim(ndim) == F._get_softmax_dim("softmax", ndim, 0)


LEGACY = '''
import torch
from torch.autograd import Function


class Square(Function):
    def forward(self, x):
        self.save_for_backward(x)
        return x * x

    def backward(self, g):
        x, = self.saved_tensors
        return 2 * x * g


torch.manual_seed(0)
w = torch.randn(4, 4, requires_grad=True)
for p in [w]:
    p.require_grad = True
hits = torch.zeros(3, dtype=torch.uint8)
e, V = torch.symeig(w.detach() @ w.detach().t(), eigenvectors=True)
for step in range(3):
    idx = (torch.rand(6) * 3).long()
    half = idx / 2
    y = Square()(w).sum(1)
    p = torch.nn.functional.softmax(torch.randn(2, 3))
    loss = y.masked_fill(torch.ones(4, dtype=torch.uint8), 0).sum() + y.sum() + p.sum()
    loss.backward()
result = (w.grad.sum().item(), half.tolist(), e.sum().item())
'''


@pytest.mark.slow
def test_legacy_script_fixed_by_the_new_rules_runs():
    with pytest.raises(Exception):
        _run(LEGACY)
    new, findings = fix_code(LEGACY, select=["AD21"], unsafe=True)
    codes = sorted({f.code for f in findings})
    assert codes == ["AD211", "AD212", "AD214", "AD215", "AD216", "AD217"], codes
    env = _run(new)
    grad, half, esum = env["result"]
    assert all(isinstance(v, int) for v in half)  # the truncating division kept
    assert torch.isfinite(torch.tensor(grad)) and esum > 0


AD219_SRC = """
import torch
import torch.nn as nn
torch.manual_seed(0)
img = torch.randn(1, 2, 3, 5)
r1 = torch.range(0, 9)
r2 = torch.range(3, -4, -2)
r3 = torch.range(-2, 6, 3, dtype=torch.int32)
r4 = torch.range(0, 5, 2)
up1 = nn.UpsamplingNearest2d(scale_factor=2)(img)
up2 = nn.UpsamplingBilinear2d(size=(4, 7))(img)
ac1 = torch.cpu.amp.autocast(False)
ac2 = torch.cpu.amp.autocast(True, torch.float16, False)
ac3 = torch.cuda.amp.autocast()
gs = torch.cuda.amp.GradScaler(2.0 ** 10, 3.0)
"""


def test_ad219_fixes_build_the_same_objects():
    """torch.range / Upsampling*2d / the device AMP classes and their replacements agree on torch."""
    new = _fixed(AD219_SRC, "AD219")
    assert "torch.range" not in new and "Upsampling" not in new and ".amp.autocast(\"" in new, new
    before, after = _run(AD219_SRC), _run(new)
    for name in ("r1", "r2", "r3", "r4", "up1", "up2"):
        assert before[name].dtype == after[name].dtype, name
        assert torch.equal(before[name], after[name]), name
    for name in ("ac1", "ac2", "ac3"):
        b, a = before[name], after[name]
        assert (b.device, b.fast_dtype, b._enabled, b._cache_enabled) == \
               (a.device, a.fast_dtype, a._enabled, a._cache_enabled), name
    b, a = before["gs"], after["gs"]
    assert vars(b) == vars(a) and a._device == "cuda"  # scaling state is only kept with CUDA


AD220_NORMS = [f"n{i} = torch.norm({c})" for i, c in enumerate([
    "X", "X, 1", "X, 3.5", "X, 0", "X, -1", "X, float('inf')", "X, float('-inf')", "X, None",
    "X, 'fro', 1", "X, 'fro', (0, 2)", "X, p=2, dim=(0, 1, 2)", "X, p=1, dim=-1, keepdim=True",
    "X, dim=1", "X, 2, [0, 1], True", "X, p='fro', dim=(-2, -1), keepdim=True",
    "X, dtype=torch.float64", "input=X, p=4, dim=2",
])]
AD220_SVD = """
U, S, V = torch.svd(M)
Uf, Sf, Vf = torch.svd(M, some=False)
Ub, Sb, Vb = torch.svd(Mb, some=flag)
v2 = torch.svd(M)[2]
s1 = torch.svd(M)[-2]
u0 = torch.svd(M, some=False).U
vv = torch.svd(M).V
"""


@pytest.mark.slow
def test_ad220_fixes_compute_what_norm_and_svd_computed():
    """Every rewritten torch.norm/torch.svd gives bit-equal values and gradients on torch."""
    src = ("import torch\ntorch.manual_seed(0)\nX = torch.randn(3, 4, 5, requires_grad=True)\n"
           "M = torch.randn(6, 4, requires_grad=True)\nMb = torch.randn(2, 3, 5)\nflag = False\n"
           + "\n".join(AD220_NORMS) + "\n" + AD220_SVD)
    new = _fixed(src, "AD220", unsafe=True)
    assert "torch.norm" not in new and "torch.svd" not in new, new
    before, after = _run(src), _run(new)
    names = [f"n{i}" for i in range(len(AD220_NORMS))] + \
        "U S V Uf Sf Vf Ub Sb Vb v2 s1 u0 vv".split()
    for name in names:
        b, a = before[name], after[name]
        assert b.dtype == a.dtype and torch.equal(b, a), name
        if b.requires_grad:
            leaf = "X" if name[0] == "n" else "M"
            # U, S, V share one graph; the 0-"norm" (a count) has no gradient path
            gb = torch.autograd.grad(b.sum(), before[leaf], retain_graph=True, allow_unused=True)[0]
            ga = torch.autograd.grad(a.sum(), after[leaf], retain_graph=True, allow_unused=True)[0]
            assert (gb is None and ga is None) or torch.equal(gb, ga), name
