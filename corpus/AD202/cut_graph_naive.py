# expect-before: runs
# The hazard behind AD202, shown with modern code: dropping the `Variable(...)`
# wrapper of a graph-carrying tensor (`prev = out`) reconnects the graph, and
# the next backward fails; `prev = out.detach()` (what AD202 writes) does not.
import torch
import torch.nn as nn


def run(cut):
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    prev = torch.zeros(5, 2)
    losses = []
    for step in range(4):
        x = torch.randn(5, 4)
        out = net(x)
        loss = (out - 1).pow(2).mean() + 0.5 * (out - prev).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        prev = cut(out)
        losses.append(f"{loss.item():.6f}")
    return " ".join(losses)


print("detach:", run(lambda t: t.detach()))
try:
    print("naive:", run(lambda t: t))
except RuntimeError as exc:
    print("naive: RuntimeError:", "backward through the graph a second time" in str(exc))
