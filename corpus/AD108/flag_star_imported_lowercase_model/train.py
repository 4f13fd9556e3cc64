# expect-before: error modified by an inplace operation
# A style-transfer loop whose model comes through `from gen_model import *`
# and is built by a lower-case class (`styletransfer().cuda()` in the
# original): nothing in this file says `genmodel` is a module, nor what the
# optimizers over its named parameter list `aed_params` own. The
# reconstruction loss is backwarded with retain_graph and `aed_trainer`
# steps; the classifier loss on the same decoder output is then backwarded
# through the decoder weights saved before that step. Reported without a
# fix: what `aed_trainer` steps is inferred from the backward it applies.
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
    enc_out = genmodel.encoder(x)
    vocab_out = genmodel.decoder(enc_out)
    recon_loss = F.mse_loss(vocab_out, x)
    aed_trainer.zero_grad()
    recon_loss.backward(retain_graph=True)
    aed_trainer.step()
    gen_cls_loss = F.cross_entropy(classifier(vocab_out), label)
    gen_trainer.zero_grad()
    gen_cls_loss.backward()
    gen_trainer.step()
    print(f"{start} loss {recon_loss.item():.6f} {gen_cls_loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in genmodel.aed_params):.6f}")
