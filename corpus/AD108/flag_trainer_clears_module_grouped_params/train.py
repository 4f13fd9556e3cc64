# expect-before: error modified by an inplace operation
# A trainer class builds the model of a sibling file and splits its
# parameters with the model's own method (`self.net.grouped_parameters()`),
# one optimizer per group. Each batch clears the gradients on the network
# (`self.net.zero_grad()`), backwards the reconstruction loss with
# retain_graph and steps `self.opt_body`, which updates the shared trunk in
# place; the auxiliary head's loss, built from the same forward, is then
# backwarded through the trunk weights saved before the step. Reported
# without a fix: what `self.opt_body` steps is inferred from the backward
# whose gradients it applies.
import os

import torch
import torch.nn.functional as F

from heads import TwoHeads

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Trainer:
    def __init__(self):
        self.net = TwoHeads()
        body, aux = self.net.grouped_parameters()
        self.opt_body = torch.optim.SGD(body, lr=0.05)
        self.opt_aux = torch.optim.SGD(aux, lr=0.05)

    def train_step(self, x, label):
        self.net.zero_grad()
        recon, logits = self.net(x)
        rec_loss = F.mse_loss(recon, x)
        aux_loss = F.cross_entropy(logits, label)
        rec_loss.backward(retain_graph=True)
        self.opt_body.step()
        aux_loss.backward()
        self.opt_aux.step()
        return rec_loss.item() + aux_loss.item()


trainer = Trainer()
for it in range(ITERS):
    print(f"{it} {trainer.train_step(torch.randn(6, 5), torch.randint(0, 2, (6,))):.6f}")
print(f"checksum {sum(p.sum().item() for p in trainer.net.parameters()):.6f} after {ITERS}")
