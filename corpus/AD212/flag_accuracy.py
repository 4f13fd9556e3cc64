# expect-before: runs
# The 2017 MNIST test loop: `correct` is a LongTensor and
# `100. * correct / len(...)` truncated to an integer percentage on PyTorch
# < 1.5. The author wanted the ratio, which is what it computes today: the
# rule reports it (read as a ratio) and changes nothing.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
model = torch.nn.Linear(4, 3)
data = [(torch.randn(8, 4), torch.randint(0, 3, (8,))) for _ in range(ITERS)]
correct = 0
for x, y in data:
    pred = model(x).max(1)[1]
    correct += pred.eq(y).cpu().sum()
print("Accuracy: {:.2f}%".format(100. * correct / (8 * len(data))))
