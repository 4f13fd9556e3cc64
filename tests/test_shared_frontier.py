"""AD103 where the linking tensors are also read on their own (decide._frontier):
the VAE loss reads `recon` and `mu`, `logvar`; the D loss reads only `recon`.
The detach goes where the D loss enters the shared graph, and only when all it
puts there is zeroed before a step; with one optimizer over everything, it is
AD105's retain_graph."""
import textwrap

import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

SRC = """
import torch
import torch.nn as nn
import torch.nn.functional as F

enc = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 6))
dec = nn.Linear(3, 8)
D = nn.Linear(8, 1)
{optimizers}
for it in range(3):
    x = torch.randn(4, 8)
    mu, logvar = enc(x).chunk(2, dim=1)
    recon = dec(mu + torch.randn_like(mu) * logvar.exp())
    {zero_d}
    d_loss = F.softplus(D(recon)).mean()
    d_loss.backward()
    {step_d}
    {zero_vae}
    vae_loss = F.mse_loss(recon, x) + mu.pow(2).mean() + logvar.mean()
    vae_loss.backward()
    {step_vae}
"""

TWO = dict(optimizers="opt_vae = torch.optim.SGD(list(enc.parameters()) + list(dec.parameters()), lr=0.1)\n"
                      "opt_d = torch.optim.SGD(D.parameters(), lr=0.1)",
           zero_d="opt_d.zero_grad()", step_d="opt_d.step()", zero_vae="opt_vae.zero_grad()",
           step_vae="opt_vae.step()")
ONE = dict(optimizers="opt = torch.optim.SGD([p for m in (enc, dec, D) for p in m.parameters()], lr=0.1)",
           zero_d="opt.zero_grad()", step_d="pass", zero_vae="pass", step_vae="opt.step()")
# the encoder is stepped with its gradients from the D loss before the VAE step zeroes them
PART = dict(TWO, optimizers=TWO["optimizers"] + "\nopt_enc = torch.optim.SGD(enc.parameters(), lr=0.1)",
            zero_vae="opt_enc.step(); opt_vae.zero_grad()")


def _run(parts, fix=False):
    src = textwrap.dedent(SRC).format(**parts)
    found, fixed, _ = check_source(src, "case.py", all_rules(), Options(fix=fix))
    return [(f.code, f.fix) for f in found if f.code in ("AD103", "AD105")], fixed


def test_detach_where_the_d_loss_enters_the_shared_graph():
    found, _ = _run(TWO)
    assert found == [("AD103", "safe")]
    _, fixed = _run(TWO, fix=True)
    assert "F.softplus(D(recon.detach())).mean()" in fixed
    assert "mu.pow(2)" in fixed and "mu.detach()" not in fixed


@pytest.mark.parametrize("parts", [ONE, PART], ids=["one-optimizer", "encoder-stepped-before-zero"])
def test_no_detach_when_the_gradients_are_used(parts):
    found, _ = _run(parts)
    assert found and all(code == "AD105" for code, _ in found)
