# A student keeps an exponential average of its own logits as a soft target
# (self-distillation), computed from the graph and never detached. The next
# step's loss walks the previous steps' freed graphs: the original fails.
# The retain_graph reference trips on the in-place optimizer update instead
# (no reference). The usual fix is a detach of the average (unsafe).
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    student = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    teacher = copy.deepcopy(student)
    for p in teacher.parameters():
        p.requires_grad_(False)
    opt = torch.optim.SGD(student.parameters(), lr=0.1)
    x_fixed = torch.randn(32, 8)
    avg = None
    for step in range(6):
        out = student(x_fixed)
        avg = out.softmax(-1) if avg is None else 0.9 * avg + 0.1 * out.softmax(-1)
        loss = F.mse_loss(out.softmax(-1), avg) + F.mse_loss(out, teacher(x_fixed))
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(loss.item())


if __name__ == "__main__":
    main()
