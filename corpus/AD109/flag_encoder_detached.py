# expect-before: runs
# An autoencoder trainer with one optimizer per half; the code is detached
# between encoder and decoder, so the encoder's optimizer gets no gradient.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class AETrainer:
    def __init__(self):
        self.encoder = nn.Sequential(nn.Linear(12, 24), nn.ReLU(), nn.Linear(24, 4))
        self.decoder = nn.Sequential(nn.Linear(4, 24), nn.ReLU(), nn.Linear(24, 12))
        self.enc_opt = torch.optim.Adam(self.encoder.parameters(), lr=1e-3)
        self.dec_opt = torch.optim.Adam(self.decoder.parameters(), lr=1e-3)

    def step(self, x):
        code = self.encoder(x).detach()
        recon = self.decoder(code)
        loss = F.mse_loss(recon, x)
        self.enc_opt.zero_grad()
        self.dec_opt.zero_grad()
        loss.backward()
        self.enc_opt.step()
        self.dec_opt.step()
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = AETrainer()
    for it in range(ITERS):
        print(f"{it} loss {trainer.step(torch.randn(16, 12)):.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.encoder.parameters()):.6f}")
