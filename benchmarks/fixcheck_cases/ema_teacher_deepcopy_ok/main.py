# Mean-teacher: the teacher is a deepcopy of the student with
# requires_grad_(False), updated as an EMA under no_grad. The teacher's
# output has no graph; the consistency loss is rebuilt every step. Correct:
# no finding, no change.
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


@torch.no_grad()
def ema_update(teacher, student, decay=0.9):
    for t, s in zip(teacher.parameters(), student.parameters()):
        t.mul_(decay).add_(s, alpha=1 - decay)


def main():
    torch.manual_seed(0)
    student = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    teacher = copy.deepcopy(student).requires_grad_(False)
    opt = torch.optim.SGD(student.parameters(), lr=0.1)
    for step in range(6):
        x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
        out = student(x)
        target = teacher(x + 0.1 * torch.randn_like(x)).softmax(-1)
        loss = F.cross_entropy(out, y) + F.mse_loss(out.softmax(-1), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema_update(teacher, student)
    print(loss.item())


if __name__ == "__main__":
    main()
