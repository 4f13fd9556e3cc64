# expect-before: runs
# A 0.3-era evaluation function: `volatile=True` is ignored today (with a
# warning), so every test batch built a graph. The fix runs it under no_grad.
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
batches = [(torch.randn(10, 6), torch.randint(0, 3, (10,))) for _ in range(4)]


def evaluate(model, batches):
    model.eval()
    correct = 0
    for x, y in batches:
        with torch.no_grad():
            x = Variable(x)
            out = model(x)
            correct += (out.argmax(1) == y).sum().item()
    return correct


correct = evaluate(model, batches)
print(f"correct {correct}/40")
