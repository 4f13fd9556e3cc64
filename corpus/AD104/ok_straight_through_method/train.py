# expect-before: runs
# A VQ-VAE step: the loss is backwarded with retain_graph=True, then the
# model's `st_bwd()` (model.py) backwards the decoder's gradient into the
# encoder output it kept on `self.ze` during forward: the straight-through
# estimator walks the retained graph again, so the retain is needed and
# nothing is reported.
import os

import torch

import model

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

if __name__ == "__main__":
    torch.manual_seed(0)
    vq = model.VQ()
    optimizer = torch.optim.SGD(vq.parameters(), lr=0.05)
    data = [torch.randn(8, 6) * 2 for _ in range(ITERS)]
    for it in range(ITERS):
        optimizer.zero_grad()
        recon = vq(data[it])
        loss = vq.loss_function(recon, data[it])
        loss.backward(retain_graph=True)
        vq.st_bwd()
        optimizer.step()
        print(f"{it} loss {loss.item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in vq.parameters()):.6f}")
