# expect-before: runs
# Attention distillation (NAD-style): train_step gets the networks and the
# losses in dicts and builds each distillation term as
# `criterion_at(student, teacher).detach() * beta`. The detach cuts the whole
# term, so it is a constant: the student learns only from the class loss and
# the attention terms teach it nothing, silently.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        feat = self.body(x)
        return feat, self.head(feat)


class AttentionLoss(nn.Module):
    def forward(self, fs, ft):
        return (fs.pow(2).mean(1) - ft.pow(2).mean(1)).pow(2).mean()


def train_step(loader, nets, optimizer, criterions, beta):
    snet, tnet = nets["snet"], nets["tnet"]
    criterion_cls = criterions["cls"]
    criterion_at = criterions["at"]
    snet.train()
    for x, y in loader:
        feat_s, out_s = snet(x)
        feat_t, _ = tnet(x)
        cls_loss = criterion_cls(out_s, y)
        at_loss = criterion_at(feat_s, feat_t).detach() * beta
        loss = cls_loss + at_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"loss {loss.item():.6f}")


torch.manual_seed(0)
student, teacher = Net(), Net()
for p in teacher.parameters():
    p.requires_grad = False
opt = torch.optim.SGD(student.parameters(), lr=0.1)
data = [(torch.randn(4, 8), torch.randint(0, 3, (4,))) for _ in range(ITERS)]
train_step(data, {"snet": student, "tnet": teacher}, opt,
           {"cls": nn.CrossEntropyLoss(), "at": AttentionLoss()}, 1.0)
print(f"checksum {sum(p.sum().item() for p in student.parameters()):.6f}")
