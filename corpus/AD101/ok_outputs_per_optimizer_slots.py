# expect-before: runs
# A trainer for a GAN-like model with one optimizer per sub-network. Its step
# hands each optimizer to a helper method that runs one phase (backward and
# step) and returns the model's outputs and a dict of numbers. The step keeps
# one slot per optimizer in a list made at each call and merges the numbers
# into a dict made at each call: both hold one step's values only, and the
# model's outputs (a dict, not a tensor) are what the caller gets back.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class TwoPartModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.gen = nn.Linear(4, 4)
        self.disc = nn.Linear(4, 1)

    def train_step(self, batch, optimizer_idx):
        fake = self.gen(batch)
        if optimizer_idx == 0:
            loss = (self.disc(fake.detach()) - self.disc(batch)).mean()
        else:
            loss = -self.disc(fake).mean()
        return {"fake": fake}, {"loss": loss, "scale": 1.0}


class Trainer:
    def __init__(self, model, optimizers):
        self.model = model
        self.optimizer = optimizers

    @staticmethod
    def _numbers(loss_dict):
        out = {}
        for key, value in loss_dict.items():
            if isinstance(value, (int, float)):
                out[key] = value
            else:
                out[key] = value.detach().cpu().item()
        return out

    def _optimize(self, batch, model, optimizer, idx):
        outputs, loss_dict = model.train_step(batch, idx)
        optimizer.zero_grad()
        loss_dict["loss"].backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
        optimizer.step()
        numbers = self._numbers(loss_dict)
        numbers[f"loss_{idx}"] = numbers.pop("loss")
        numbers[f"grad_norm_{idx}"] = grad_norm
        return outputs, numbers, 0.0

    def train_step(self, batch):
        loss_dict = {}
        outputs_per_optimizer = [None] * len(self.optimizer)
        total_time = 0.0
        for idx, optimizer in enumerate(self.optimizer):
            outputs, new, step_time = self._optimize(batch, self.model, optimizer, idx)
            total_time += step_time
            outputs_per_optimizer[idx] = outputs
            for k, v in new.items():
                if k in loss_dict:
                    loss_dict[f"{k}-{idx}"] = v
                else:
                    loss_dict[k] = v
        return outputs_per_optimizer, loss_dict


def main():
    model = TwoPartModel()
    opts = [torch.optim.SGD(model.disc.parameters(), lr=0.05), torch.optim.SGD(model.gen.parameters(), lr=0.05)]
    trainer = Trainer(model, opts)
    for step in range(ITERS):
        outputs, losses = trainer.train_step(torch.randn(8, 4))
        print(step, round(losses["loss_0"], 4), round(losses["loss_1"], 4), tuple(outputs[1]["fake"].shape))
    print("ITERS", ITERS, round(model.gen.weight.detach().sum().item(), 4))


if __name__ == "__main__":
    main()
