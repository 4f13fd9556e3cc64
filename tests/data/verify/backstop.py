# The training loop runs in exec(): the rewrite cannot wrap it, the backstop ends the run.
import torch
torch.manual_seed(0)
m = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(m.parameters(), lr=0.1)
hist = []
def step():
    loss = m(torch.randn(4, 3)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    hist.append(loss)
exec("for i in range(10000):\n    step()\n")
print(hist[-1].item())
