"""A generated tree of small PyTorch 0.3-era files in many repositories,
for the migrate tests and benchmarks/migrate_bench.py, and `snapshot`, the
bytes of every file in a tree (to compare two runs byte for byte)."""
import os

TEMPLATE = '''import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

HIDDEN_{k} = {h}


class Net{k}(nn.Module):
    def __init__(self):
        super(Net{k}, self).__init__()
        self.fc = nn.Linear(4, HIDDEN_{k})
        self.out = nn.Linear(HIDDEN_{k}, 2)
        nn.init.xavier_uniform(self.fc.weight)

    def forward(self, x):
        return F.log_softmax(self.out(F.sigmoid(self.fc(x))))


def train_{k}(model, batches, opt):
    criterion = nn.NLLLoss(size_average=True)
    total = 0
    for x, y in batches:
        x, y = Variable(x), Variable(y)
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward(retain_variables=True)
        nn.utils.clip_grad_norm(model.parameters(), 1.0)
        opt.step()
        total += loss.data[0]
    return total


def evaluate_{k}(model, x):
    x = Variable(x, volatile=True)
    return model(x).data.max(1)[1]
'''

TINY = '''import torch
from torch.autograd import Variable


def step_{k}(model, x, loss):
    h = Variable(model.hidden.data)
    torch.nn.init.xavier_uniform(model.fc.weight)
    return model(x, h), loss.data[0]
'''

PY2 = '''import torch
from torch.autograd import Variable

def show(x):
    print "value", Variable(x).data[0]
'''


def make_tree(root: str, n: int, repos: int = 10, git_every: int = 2, py2_every: int = 50,
              template: str = TEMPLATE) -> list:
    """n files under root/repoNNN/pkg/; every git_every-th repository has a
    .git folder; every py2_every-th file is Python 2. Returns the paths."""
    paths = []
    for r in range(repos):
        d = os.path.join(root, f"repo{r:03d}")
        os.makedirs(os.path.join(d, "pkg"), exist_ok=True)
        if git_every and r % git_every == 0:
            os.makedirs(os.path.join(d, ".git"), exist_ok=True)
    for i in range(n):
        path = os.path.join(root, f"repo{i % repos:03d}", "pkg", f"mod{i:05d}.py")
        text = PY2 if py2_every and i % py2_every == py2_every - 1 else template.format(k=i, h=8 + i % 7)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        paths.append(path)
    return paths


def snapshot(root) -> dict:
    """{path relative to root: bytes} for every file under root."""
    out = {}
    for d, _, names in os.walk(root):
        for name in names:
            p = os.path.join(d, name)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out
