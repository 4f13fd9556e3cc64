# expect-before: runs
# autodetach-test: unsafe
# Hugging Face Accelerate with gradient accumulation: inside
# `accelerator.accumulate(model)` the backward runs every batch and the
# optimizer steps every second one. `total_loss += loss` after the block keeps
# every batch's graph alive; the total is only returned as a number. The
# roles of `train`'s arguments are inferred from their use, so the fix is
# unsafe.
import os

import torch
import torch.nn as nn
from accelerate import Accelerator

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(model, batches, optimizer, accelerator):
    total_loss = 0
    for i, (x, y) in enumerate(batches):
        with accelerator.accumulate(model):
            loss = nn.functional.mse_loss(model(x), y)
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
        total_loss += loss.item()
        print(f"{i} loss {loss.item():.6f}")
    return float(total_loss) / len(batches)


if __name__ == "__main__":
    torch.manual_seed(0)
    accelerator = Accelerator(cpu=True, gradient_accumulation_steps=2)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    model, opt = accelerator.prepare(model, opt)
    batches = [(torch.randn(8, 6), torch.randn(8, 1)) for _ in range(2 * ITERS)]
    print(f"mean {train(model, batches, opt, accelerator):.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
