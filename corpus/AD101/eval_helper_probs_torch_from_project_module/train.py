# expect-before: runs
# autodetach-test: unsafe
# A notebook exported as a script: the first cell takes torch, nn and F from
# the project's `setup_env` module (which imports them), a free function
# `evaluate(net, loader)` collects the class probabilities of every
# validation batch into one tensor with `torch.cat`, and the training cell
# calls it after each epoch with gradients on. Every batch's graph stays
# alive until the pass ends, and nothing backwards the probabilities (only
# the accuracy leaves, as a number). The fix (detach the running tensor) is
# unsafe: that `evaluate` runs with gradients on is inferred from its calls.
import os

from setup_env import F as functional, nn, torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def evaluate(net, loader):
    probs = torch.zeros(0, 3)
    labels = []
    for x, y in loader:
        probs = torch.cat([probs, functional.softmax(net(x), dim=1)])
        labels.append(y)
    return (probs.argmax(1) == torch.cat(labels)).float().mean().item()


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
    acc = evaluate(net, val_data)
    print(f"epoch {epoch} loss {loss.item():.6f} acc {acc:.6f}")
