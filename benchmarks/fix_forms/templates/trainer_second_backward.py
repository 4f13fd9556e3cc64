# template: var=out hole=backward
class Trainer:
    def __init__(self):
        self.model = torch.nn.Linear(3, 1)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def train(self):
        model, opt = self.model, self.opt
        for step in range(ITERS):
            out = model(torch.randn(8, 3))
            opt.zero_grad()
            (out ** 2).mean().backward(retain_graph=True)
            @S@
            opt.step()


trainer = Trainer()
trainer.train()
print(f"{trainer.model.weight.sum().item():.6f} {trainer.model.bias.sum().item():.6f}")
