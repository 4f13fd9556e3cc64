# An encoder shared by a classification head and a regression head. Two
# optimizers: one over encoder + classifier, one over the regressor only. Both
# losses backward before either step, so the encoder's gradients from the
# regression loss are summed in and stepped by the first optimizer.
# Correct: retain_graph=True on the first backward (AD105). Detaching the
# features in the regression loss would stop the encoder learning from it.
import itertools

import torch
import torch.nn.functional as F

from nets import Encoder, head


def main():
    torch.manual_seed(0)
    enc, cls_head, reg_head = Encoder(), head(3), head(1)
    opt_main = torch.optim.SGD(itertools.chain(enc.parameters(), cls_head.parameters()), lr=0.05)
    opt_reg = torch.optim.SGD(reg_head.parameters(), lr=0.05)
    for step in range(6):
        x = torch.randn(16, 8)
        y_cls, y_reg = torch.randint(0, 3, (16,)), torch.randn(16, 1)
        opt_main.zero_grad()
        opt_reg.zero_grad()
        feats = enc(x)
        loss_cls = F.cross_entropy(cls_head(feats), y_cls)
        loss_reg = F.mse_loss(reg_head(feats), y_reg)
        loss_cls.backward()
        loss_reg.backward()
        opt_main.step()
        opt_reg.step()
    print(loss_cls.item(), loss_reg.item())


if __name__ == "__main__":
    main()
