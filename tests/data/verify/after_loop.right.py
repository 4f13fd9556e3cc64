# An accumulator read after the training loop (issue 9): the list keeps every
# step's graph alive.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
losses = []
for epoch in range(50):
    for it in range(200):
        loss = model(torch.randn(4, 3)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    print(f"epoch {epoch} {float(losses[-1]):.6f}")
print(f"last {losses[-1].item():.6f}")
