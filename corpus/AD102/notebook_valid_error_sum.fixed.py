# expect-before: runs
# Notebook-style script: every other epoch a validation pass runs with the
# modules in eval mode but gradients on, and each batch's error (an MSE loss,
# the same call the training loop backwards) is added into `err_sum` written
# out as `err_sum = err_sum + err`. Whatever the name, the sum keeps every
# validation batch's graph until it is printed.
import os

import torch
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
config = {"activation": "tanh", "hidden": 8}

encoder = nn.Linear(4, config["hidden"])
activation = getattr(torch, config["activation"])
decoder = nn.Linear(config["hidden"], 1)
optimizer = torch.optim.Adam([{"params": encoder.parameters()}, {"params": decoder.parameters()}], lr=0.01)
train_set = [(torch.randn(6, 4), torch.randn(6, 1)) for _ in range(ITERS)]
valid_set = [(torch.randn(6, 4), torch.randn(6, 1)) for _ in range(ITERS)]

for epoch in range(3):
    for x, y in train_set:
        err = nn.functional.mse_loss(decoder(activation(encoder(x))), y)
        optimizer.zero_grad()
        err.backward()
        optimizer.step()
    if epoch % 2 == 0:
        encoder.eval()
        decoder.eval()
        err_sum = 0.0
        for x, y in valid_set:
            err = nn.functional.mse_loss(decoder(activation(encoder(x))), y)
            err_sum = (err_sum + err).detach()
        print("epoch %d validation %.6f" % (epoch, err_sum / len(valid_set)))
        encoder.train()
        decoder.train()
print("checksum %.6f" % sum(p.sum().item() for p in decoder.parameters()))
