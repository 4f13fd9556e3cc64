# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A spectral-norm mixin, as BigGAN-style layers write it: the singular values are
# kept in buffers registered per index ('sv%d' % i) and read through a property.
# W_() computes them from the weight outside the power iteration's no_grad block
# and copies them into the buffers in place, so each buffer stacks every training
# step's graph onto the last; the penalty that reads them walks into the previous
# step's graph, already freed.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def power_iteration(W, us, update=True):
    svs = []
    for i, u in enumerate(us):
        with torch.no_grad():
            v = F.normalize(torch.matmul(u, W), dim=-1)
            u = F.normalize(torch.matmul(v, W.t()), dim=-1)
            if update:
                us[i][:] = u
        svs.append(torch.squeeze(torch.matmul(torch.matmul(v, W.t()), u.t())))
    return svs


class SN(object):
    def __init__(self, num_svs, num_outputs):
        self.num_svs = num_svs
        for i in range(num_svs):
            self.register_buffer('u%d' % i, torch.randn(1, num_outputs))
            self.register_buffer('sv%d' % i, torch.ones(1))

    @property
    def u(self):
        return [getattr(self, 'u%d' % i) for i in range(self.num_svs)]

    @property
    def sv(self):
        return [getattr(self, 'sv%d' % i) for i in range(self.num_svs)]

    def W_(self):
        W_mat = self.weight.view(self.weight.size(0), -1)
        svs = power_iteration(W_mat, self.u, update=self.training)
        if self.training:
            for i, sv in enumerate(svs):
                self.sv[i][:] = sv
        return self.weight / svs[0]


class SNLinear(nn.Linear, SN):
    def __init__(self, in_features, out_features, num_svs=1):
        nn.Linear.__init__(self, in_features, out_features)
        SN.__init__(self, num_svs, out_features)

    def forward(self, x):
        return F.linear(x, self.W_(), self.bias)


model = nn.Sequential(SNLinear(6, 16), nn.ReLU(), SNLinear(16, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for it in range(ITERS):
    x = torch.randn(32, 6)
    # keep the top singular value of each layer near one, read from the logged buffers
    spectral = sum((layer.sv[0] - 1.0).pow(2).sum() for layer in (model[0], model[2]))
    loss = F.mse_loss(model(x), x[:, :1]) + 1e-3 * spectral
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{it} loss {loss.item():.6f} sv {model[0].sv0.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
