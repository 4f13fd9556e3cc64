# expect-before: error modified by an inplace operation
# A domain-adaptation solver keeps its networks in a dict (`self.nets`) and
# names them again as attributes (`self.classifier = self.nets["classifier"]`);
# each optimizer is built from one entry. One forward through both networks
# gives two losses: the classifier's is backwarded with retain_graph=True and
# its optimizer steps, which updates the classifier's weights in place; the
# feature extractor's loss then walks the same graph, whose saved classifier
# weights the step changed. The fix is for a human (backward both losses before
# either step), so the finding has none.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Solver:
    def __init__(self, nets):
        self.nets = nets
        self.feature_extractor = self.nets["feature_extractor"]
        self.classifier = self.nets["classifier"]
        self.build_optimizer()

    def build_optimizer(self):
        self.opt_fe = torch.optim.SGD([{"params": self.nets["feature_extractor"].parameters()}], lr=0.05)
        self.opt_cls = torch.optim.SGD([{"params": self.nets["classifier"].parameters()}], lr=0.05)

    def update_network(self, steps):
        for step in range(steps):
            x = torch.randn(8, 10)
            y = torch.randint(0, 4, (8,))
            feat = self.feature_extractor(x)
            out = self.classifier(feat)
            loss_cls = nn.functional.cross_entropy(out, y)
            loss_fe = nn.functional.cross_entropy(out, (y + 1) % 4) + 0.1 * feat.pow(2).mean()
            self.opt_cls.zero_grad()
            loss_cls.backward(retain_graph=True)
            self.opt_cls.step()
            self.opt_fe.zero_grad()
            loss_fe.backward()
            self.opt_fe.step()
            print(step, f"{loss_cls.item():.6f} {loss_fe.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    nets = {"feature_extractor": nn.Sequential(nn.Linear(10, 16), nn.Tanh()), "classifier": nn.Linear(16, 4)}
    Solver(nets).update_network(ITERS)
    print(f"checksum {sum(p.sum().item() for n in nets.values() for p in n.parameters()):.6f}")
