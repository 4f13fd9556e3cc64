# expect-before: runs
# The shape of flag_base_class_steps_encoder with the code computed again
# after the base class's `update_encoding` has stepped the encoder: the
# reconstruction loss's graph saved the updated weights. (Its backward also
# reaches the encoder, whose gradients `update_encoding` left: they add up,
# as the original meant.)
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
        z_sample = self.saae.Q(images)
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
