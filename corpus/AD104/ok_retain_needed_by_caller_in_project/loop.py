import torch.nn.functional as F

from train import AAETraining


class Unsupervised(AAETraining):
    def run_batch(self, images):
        self.opt_ae.zero_grad()
        z_sample = self.enc(images)
        stats = self.update_encoding(z_sample)
        x_recon = self.dec(z_sample)
        loss = F.mse_loss(x_recon, images)
        loss.backward()
        self.opt_ae.step()
        stats["loss_recon"] = loss.item()
        return stats
