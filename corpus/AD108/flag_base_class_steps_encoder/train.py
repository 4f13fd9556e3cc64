# expect-before: error modified by an inplace operation
# An adversarial auto-encoder trainer whose base class, in another file,
# builds the optimizers (`self.optimizer_E` over a filtered list of the
# encoder's parameters) and trains the encoder in `update_encoding`, which
# backwards a loss on the code it is handed with retain_graph and steps
# `self.optimizer_E`. The reconstruction loss on that same code is then
# backwarded through the encoder weights saved before that step. Reported
# without a fix: what the base class's method steps, and what its optimizer
# owns, are read from another file.
import os

import torch

from trainer_base import AAETraining

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class AAEUnsupervisedTraining(AAETraining):
    def _run_batch(self, images):
        self.saae.zero_grad()
        z_sample = self.saae.Q(images)
        stats = self.update_encoding(z_sample)
        x_recon = self.saae.P(z_sample)
        loss = torch.nn.functional.mse_loss(x_recon, images)
        loss.backward()
        self.optimizer_E.step()
        self.optimizer_G.step()
        stats["loss"] = loss.item()
        return stats

    def train(self, batches):
        for step, images in enumerate(batches):
            stats = self._run_batch(images)
            print(f"{step} loss {stats['loss']:.6f} {stats['loss_E']:.6f}")


trainer = AAEUnsupervisedTraining()
trainer.train([torch.randn(8, 6) for _ in range(ITERS)])
print(f"checksum {sum(p.sum().item() for p in trainer.saae.parameters()):.6f}")
