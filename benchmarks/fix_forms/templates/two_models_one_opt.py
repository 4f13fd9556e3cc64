# template: var=feat hole=read
class Trainer:
    def __init__(self):
        self.enc = torch.nn.Linear(3, 1)
        self.dec = torch.nn.Linear(1, 1)
        self.opt = torch.optim.SGD(list(self.enc.parameters()) + list(self.dec.parameters()), lr=0.05)

    def step(self, x):
        feat = self.enc(x)
        self.opt.zero_grad()
        (self.dec(feat) ** 2).mean().backward()
        self.opt.step()
        self.opt.zero_grad()
        loss = (self.dec(feat) - 1).pow(2).mean() + 0.1 * (@E@).float().mean()
        loss.backward()
        self.opt.step()


trainer = Trainer()
for step in range(ITERS):
    trainer.step(torch.randn(8, 3))
print(f"{sum(p.sum().item() for p in trainer.enc.parameters()):.6f} {sum(p.sum().item() for p in trainer.dec.parameters()):.6f}")
