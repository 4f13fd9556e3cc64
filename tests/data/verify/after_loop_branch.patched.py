# The accumulator is read in a branch the short run never takes.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total = 0
for it in range(1000):
    loss = model(torch.randn(4, 3)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total = total + loss.item()
    if it % 500 == 499:
        print("running", total.item())
print(f"total {float(total):.6f}")
