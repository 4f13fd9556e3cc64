# template: var=self.prev hole=read
class Trainer:
    def __init__(self, model, opt):
        self.model = model
        self.opt = opt
        self.prev = torch.zeros(8, 1)

    def step(self, x):
        out = self.model(x)
        loss = (out ** 2).mean() + 0.01 * (@E@).float().mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.prev = out
        return loss.item()


model = torch.nn.Linear(3, 1)
trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1))
for step in range(ITERS):
    trainer.step(torch.randn(8, 3))
print(f"{model.weight.sum().item():.6f} {model.bias.sum().item():.6f}")
