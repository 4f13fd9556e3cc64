# expect-before: runs
# Torch, nn and F come from the project's `setup_env` module. Each step runs
# the network over several chunks, joins the predictions with `torch.cat`
# (graphs kept on purpose) and backwards one loss over the whole join: the
# kept graphs are what the backward needs, and they are freed by it at the end
# of the step. No finding.
import os

from setup_env import F as functional, nn, torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

chunks = [torch.randn(4, 6) for _ in range(3)]
targets = torch.randint(0, 3, (12,))
net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.SGD(net.parameters(), lr=0.1)

for step in range(ITERS):
    preds = torch.zeros(0, 3)
    for x in chunks:
        preds = torch.cat([preds, net(x)])
    loss = functional.cross_entropy(preds, targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.6f}")
