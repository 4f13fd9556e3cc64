# expect-before: runs
# The same engine, whose one subclass returns the model's output detached
# (`logp[:, 0].detach()`, `entropy.detach()`): the dict the base loop appends
# holds no graph, so nothing is kept from one micro-batch to the next.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Engine:
    def __init__(self, module):
        self.module = module
        self.opt = torch.optim.SGD(module.parameters(), lr=0.05)

    def forward_backward_batch(self, micro_batches):
        outputs = []
        for mb in micro_batches:
            loss, meta = self.forward_step(mb)
            loss.backward()
            outputs.append(meta)
        return outputs

    def forward_step(self, mb):
        raise NotImplementedError

    def optimizer_step(self):
        self.opt.step()
        self.opt.zero_grad()


class LMEngine(Engine):
    def forward_step(self, mb):
        logits = self.module(mb)
        logp = torch.log_softmax(logits, dim=-1)
        entropy = -(logp.exp() * logp).sum(-1)
        loss = -logp[:, 0].mean()
        meta = {"model_output": {"log_probs": logp[:, 0].detach(), "entropy": entropy.detach()},
                "loss": loss.item()}
        return loss, meta


engine = LMEngine(nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 5)))
for step in range(ITERS):
    batches = [torch.randn(4, 6) for _ in range(3)]
    outs = engine.forward_backward_batch(batches)
    engine.optimizer_step()
    ent = torch.cat([o["model_output"]["entropy"] for o in outs]).mean()
    print(f"step {step} loss {sum(o['loss'] for o in outs) / len(outs):.6f} entropy {ent.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in engine.module.parameters()):.6f} over {ITERS} steps")
