# template: var=self.history[-1] hole=read
class Trainer:
    def __init__(self):
        self.model = torch.nn.Linear(3, 1)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.history = []

    def step(self, x):
        out = self.model(x)
        self.history.append(out)
        loss = (out ** 2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()

    def report(self):
        return @E@


trainer = Trainer()
for step in range(ITERS):
    trainer.step(torch.randn(8, 3))
trainer.opt.zero_grad()
trainer.report().float().mean().backward()
trainer.opt.step()
print(f"{trainer.model.weight.sum().item():.6f} {trainer.model.bias.sum().item():.6f}")
