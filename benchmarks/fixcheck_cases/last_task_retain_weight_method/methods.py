import torch


class WeightMethod:
    def __init__(self, n_tasks):
        self.n_tasks = n_tasks

    def get_weighted_loss(self, losses, shared):
        return losses.sum()

    def backward(self, losses, shared):
        loss = self.get_weighted_loss(losses, shared)
        loss.backward()
        return loss


class CAGradLike(WeightMethod):
    def get_weighted_loss(self, losses, shared):
        grads = []
        for i in range(self.n_tasks):
            if i < self.n_tasks:
                losses[i].backward(retain_graph=True)
            else:
                losses[i].backward()
            grads.append(torch.cat([p.grad.flatten().clone() for p in shared]))
            for p in shared:
                p.grad = None
        return torch.stack(grads)

    def backward(self, losses, shared):
        grads = self.get_weighted_loss(losses, shared)
        g = grads.mean(0) + 0.1 * grads.min(0).values
        offset = 0
        for p in shared:
            p.grad = g[offset:offset + p.numel()].view_as(p).clone()
            offset += p.numel()
        return None, {}
