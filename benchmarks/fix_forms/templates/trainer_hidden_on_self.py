# template: var=self.hidden[0] hole=read
# ref: out, self.hidden = self.rnn(x, self.hidden) => out, self.hidden = self.rnn(x, self.hidden.detach())
class Trainer:
    def __init__(self):
        self.rnn = torch.nn.GRU(3, 1)
        self.opt = torch.optim.SGD(self.rnn.parameters(), lr=0.1)
        self.hidden = torch.zeros(1, 8, 1)

    def step(self, x):
        out, self.hidden = self.rnn(x, self.hidden)
        loss = (out ** 2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return @E@


trainer = Trainer()
for step in range(ITERS):
    shown = trainer.step(torch.randn(4, 8, 3))
print(f"{sum(p.sum().item() for p in trainer.rnn.parameters()):.6f} {num(shown):.6f}")
