# expect-before: runs
# Meta-pseudo-label style teacher step: the student's change in loss on the
# labelled batch (`feedback`, a number) weights a cross-entropy of the
# teacher's logits against its own hard labels. Both the logits and the
# labels are taken detached, so the weighted term is a constant: the
# teacher's optimizer gets no gradient from the student's feedback and the
# teacher learns only from its supervised loss, silently.
import os

import torch
from torch import nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train_loop(loader, teacher, student, t_opt, s_opt):
    moving = torch.zeros(())
    for x, y, xu in loader:
        t_logits = teacher(torch.cat((x, xu)))
        t_lab, t_unl = t_logits[:len(x)], t_logits[len(x):]
        t_sup = F.cross_entropy(t_lab, y)
        _, pseudo = torch.max(t_unl.detach(), dim=-1)

        s_old = F.cross_entropy(student(x).detach(), y)
        s_loss = F.cross_entropy(student(xu), pseudo)
        s_opt.zero_grad()
        s_loss.backward()
        s_opt.step()

        with torch.no_grad():
            s_new = F.cross_entropy(student(x), y)
        feedback = s_new - s_old
        moving = 0.99 * moving + 0.01 * feedback
        feedback = feedback - moving
        t_meta = feedback * F.cross_entropy(t_unl.detach(), pseudo)
        t_loss = t_sup + t_meta
        t_opt.zero_grad()
        t_loss.backward()
        t_opt.step()
        print(f"t_loss {t_loss.item():.6f} s_loss {s_loss.item():.6f}")


torch.manual_seed(0)
teacher, student = nn.Linear(8, 3), nn.Linear(8, 3)
t_opt = torch.optim.SGD(teacher.parameters(), lr=0.1)
s_opt = torch.optim.SGD(student.parameters(), lr=0.1)
data = [(torch.randn(4, 8), torch.randint(0, 3, (4,)), torch.randn(6, 8)) for _ in range(ITERS)]
train_loop(data, teacher, student, t_opt, s_opt)
print(f"checksum {sum(p.sum().item() for p in teacher.parameters()):.6f}")
