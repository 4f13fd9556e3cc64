# template: var=out hole=read
class Trainer:
    def __init__(self, model, opt):
        self.model = model
        self.opt = opt

    def step(self, x):
        out = self.model(x)
        self.opt.zero_grad()
        (out ** 2).mean().backward(retain_graph=True)
        aux = (@E@).float().mean()
        aux.backward()
        self.opt.step()


model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
trainer = Trainer(model, torch.optim.Adam(model.parameters(), lr=0.01))
for step in range(ITERS):
    trainer.step(torch.randn(8, 3))
print(f"{sum(p.sum().item() for p in model.parameters()):.6f}")
