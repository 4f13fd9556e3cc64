# expect-before: runs
# flag_models_dict_d_after_g_step written correctly: the discriminator's loss
# reads the decoder output detached, so the generator's step does not touch
# anything its graph saved, and no graph needs retaining.
import os

import torch
from torch import nn, optim

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self):
        self.models = {}
        self.models["encoder"] = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
        self.models["decoder"] = nn.Sequential(nn.Linear(16, 8), nn.Tanh())
        self.models["discriminator"] = nn.Sequential(nn.Linear(8, 1))
        self.params = []
        self.params_d = []
        for key in self.models.keys():
            if "discr" in key:
                self.params_d += list(self.models[key].parameters())
            else:
                self.params += list(self.models[key].parameters())
        self.model_optimizer = optim.SGD(self.params, lr=0.05)
        self.model_optimizer_d = optim.SGD(self.params_d, lr=0.05)
        self.criterion = nn.BCEWithLogitsLoss()

    def process_batch(self, inputs):
        outputs = {}
        features = self.models["encoder"](inputs["x"])
        outputs["topview"] = self.models["decoder"](features)
        losses = {"loss": ((outputs["topview"] - inputs["y"]) ** 2).mean()}
        return outputs, losses

    def run_epoch(self, batches):
        for inputs in batches:
            outputs, losses = self.process_batch(inputs)
            self.model_optimizer.zero_grad()
            fake_pred = self.models["discriminator"](outputs["topview"])
            fake_pred_d = self.models["discriminator"](outputs["topview"].detach())
            real_pred = self.models["discriminator"](inputs["y"])
            ones, zeros = torch.ones_like(fake_pred), torch.zeros_like(fake_pred)
            loss_d = self.criterion(fake_pred_d, zeros) + self.criterion(real_pred, ones)
            loss_g = 0.01 * self.criterion(fake_pred, ones) + losses["loss"]
            loss_g.backward()
            self.model_optimizer.step()
            self.model_optimizer_d.zero_grad()
            loss_d.backward()
            self.model_optimizer_d.step()
            print(f"loss {loss_g.item():.6f} {loss_d.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    batches = [{"x": torch.randn(8, 6), "y": torch.rand(8, 8) * 2 - 1} for _ in range(ITERS)]
    trainer = Trainer()
    trainer.run_epoch(batches)
    print(f"checksum {sum(p.sum().item() for m in trainer.models.values() for p in m.parameters()):.6f}")
