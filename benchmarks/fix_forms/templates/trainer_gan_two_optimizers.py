# template: var=fake hole=read
class GANTrainer:
    def __init__(self, G, D):
        self.G, self.D = G, D
        self.opt_g = torch.optim.SGD(G.parameters(), lr=0.05)
        self.opt_d = torch.optim.SGD(D.parameters(), lr=0.05)

    def step(self, z):
        fake = self.G(z)
        self.opt_d.zero_grad()
        d_loss = (self.D(fake) ** 2).mean()
        d_loss.backward()
        self.opt_d.step()
        self.opt_g.zero_grad()
        g_loss = (self.D(fake) - 1).pow(2).mean() + 0.1 * (@E@).float().mean()
        g_loss.backward()
        self.opt_g.step()


G, D = torch.nn.Linear(2, 1), torch.nn.Linear(1, 1)
trainer = GANTrainer(G, D)
for step in range(ITERS):
    trainer.step(torch.randn(8, 2))
print(f"{sum(p.sum().item() for p in G.parameters()):.6f} {sum(p.sum().item() for p in D.parameters()):.6f}")
