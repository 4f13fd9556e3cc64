# expect-before: runs
# A notebook exported as a script takes torch, nn and F from the project's
# `setup_env` module. Its `evaluate(net, loader)` runs with gradients on, but
# every batch leaves the loop as a number (`.item()`) and the correct counts
# are integers: nothing that carries a graph is kept across batches. No finding.
import os

from setup_env import F as functional, nn, torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def evaluate(net, loader):
    total, correct, seen = 0.0, 0, 0
    for x, y in loader:
        out = net(x)
        total += functional.cross_entropy(out, y, reduction="sum").item()
        correct += int((out.argmax(1) == y).sum())
        seen += len(y)
    return total / seen, correct / seen


train_data = [(torch.randn(5, 6), torch.randint(0, 3, (5,))) for _ in range(3)]
val_data = [(torch.randn(5, 6), torch.randint(0, 3, (5,))) for _ in range(3)]
net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.Adam(net.parameters(), lr=0.01)

for epoch in range(ITERS):
    for x, y in train_data:
        opt.zero_grad()
        loss = functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
    val_loss, acc = evaluate(net, val_data)
    print(f"epoch {epoch} loss {loss.item():.6f} val {val_loss:.6f} acc {acc:.6f}")
