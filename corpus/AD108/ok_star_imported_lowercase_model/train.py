# expect-before: runs
# The shape of flag_star_imported_lowercase_model, with the classifier loss
# built on a fresh forward after `aed_trainer.step()`: its graph saved the
# updated weights, so nothing is stale (and recon_loss needs no retain).
import os

import torch
import torch.nn.functional as F
from torch import optim

from gen_model import *

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

genmodel = styletransfer()
classifier = torch.nn.Linear(6, 2)
aed_trainer = optim.Adamax(genmodel.aed_params, lr=0.01)
gen_trainer = optim.Adamax(genmodel.aed_params, lr=0.01)
for start in range(ITERS):
    x, label = torch.randn(4, 6), torch.randint(0, 2, (4,))
    vocab_out = genmodel.decoder(genmodel.encoder(x))
    recon_loss = F.mse_loss(vocab_out, x)
    aed_trainer.zero_grad()
    recon_loss.backward()
    aed_trainer.step()
    vocab_out = genmodel.decoder(genmodel.encoder(x))
    gen_cls_loss = F.cross_entropy(classifier(vocab_out), label)
    gen_trainer.zero_grad()
    gen_cls_loss.backward()
    gen_trainer.step()
    print(f"{start} loss {recon_loss.item():.6f} {gen_cls_loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in genmodel.aed_params):.6f}")
