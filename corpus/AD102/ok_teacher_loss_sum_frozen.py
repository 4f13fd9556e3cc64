# expect-before: runs
# The loop that sums `teacher_loss` backwards nothing and runs with
# gradients on, but it only calls the frozen teacher, which the training
# loop never backwards through (its parameters do not require grad): the
# sum carries no graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def distill(student, teacher, optimizer, batches):
    criterion = nn.MSELoss()
    teacher_loss = 0.0
    for x, y in batches:
        teacher_loss += criterion(teacher(x), y)
    for x, y in batches:
        optimizer.zero_grad()
        loss = criterion(student(x), y)
        loss.backward()
        optimizer.step()
    return float(teacher_loss)


if __name__ == "__main__":
    torch.manual_seed(0)
    student = nn.Linear(6, 2)
    teacher = nn.Linear(6, 2).requires_grad_(False)
    opt = torch.optim.SGD(student.parameters(), lr=0.05)
    batches = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    print(f"teacher {distill(student, teacher, opt, batches):.6f}")
