import torch
import torch.nn.functional as F


class Distiller:
    """Learns a few synthetic inputs (and per-step learning rates) so that a
    model trained on them for a few unrolled steps fits the real data."""

    def __init__(self, weight, steps, per_step, n_in, n_cls):
        self.weight = weight
        self.steps, self.per_step, self.n_in, self.n_cls = steps, per_step, n_in, n_cls
        self.init_data()

    def init_data(self):
        steps, per_step, n_in, n_cls = self.steps, self.per_step, self.n_in, self.n_cls
        self.params = []
        self.data = []
        self.labels = []
        for step in range(steps):
            images = torch.randn(per_step, n_in, requires_grad=True)
            self.data.append(images)
            self.params.append(images)
            self.labels.append(torch.arange(per_step) % n_cls)
        self.raw_lr = torch.full((steps,), -1.0, requires_grad=True)
        self.params.append(self.raw_lr)
        self.optimizer = torch.optim.Adam(self.params, lr=0.05)

    def loss(self, x, y):
        w = self.weight.clone().requires_grad_()
        for images, labels, raw in zip(self.data, self.labels, self.raw_lr.unbind()):
            inner = F.cross_entropy(images @ w.t(), labels)
            grad, = torch.autograd.grad(inner, w, create_graph=True)
            w = w - F.softplus(raw) * grad
        return F.cross_entropy(x @ w.t(), y)

    def step(self, x, y):
        loss = self.loss(x, y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()
