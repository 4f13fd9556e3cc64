# expect-before: runs
# A trainer's step method, called once per iteration by the loop outside,
# builds `dec_flipped` only when one of two loss weights is on and uses it when
# the first is: a local lives for one call, so nothing of the last step's graph
# reaches this one (FaderNetworks' `autoencoder_step`; the loop is in runner.py).
import os
import types

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(6, 4)
        self.dec = nn.Linear(4 + 1, 6)

    def encode(self, x):
        return self.enc(x)

    def decode(self, enc, y):
        return self.dec(torch.cat([enc, y], 1))

    def forward(self, x, y):
        enc = self.encode(x)
        return enc, self.decode(enc, y)


class Data:
    def train_batch(self, n):
        return torch.randn(n, 6), (torch.rand(n, 1) > 0.5).float()


class Trainer:
    def __init__(self, ae, dis, data, params):
        self.ae, self.dis, self.data, self.params = ae, dis, data, params
        self.ae_optimizer = torch.optim.Adam(ae.parameters(), lr=1e-3)

    def autoencoder_step(self):
        params = self.params
        batch_x, batch_y = self.data.train_batch(8)
        enc_outputs, dec_outputs = self.ae(batch_x, batch_y)
        loss = params.lambda_ae * ((batch_x - dec_outputs) ** 2).mean()
        if params.lambda_dis + params.lambda_clf > 0:
            flipped = 1 - batch_y
            dec_flipped = self.ae.decode(enc_outputs, flipped)
        if params.lambda_dis:
            loss = loss + params.lambda_dis * self.dis(dec_flipped).mean()
        self.ae_optimizer.zero_grad()
        loss.backward()
        self.ae_optimizer.step()
        return loss.item()


if __name__ == "__main__":
    from runner import main

    torch.manual_seed(0)
    config = types.SimpleNamespace(lambda_ae=1.0, lambda_dis=0.5, lambda_clf=0.0)
    main(Trainer(AutoEncoder(), nn.Linear(6, 1), Data(), config), ITERS)
