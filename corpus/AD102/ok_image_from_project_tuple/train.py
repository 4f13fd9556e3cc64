# expect-before: runs
# `img` is a numpy array: `DeblurModel.get_images_and_metrics` (models.py)
# returns `np.hstack(...)` of images, so the counter that keeps it holds no
# graph (DeblurGANv2's train.py).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from models import MetricCounter, get_model

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self):
        self.net = nn.Linear(6, 6)
        self.model = get_model()
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.05)
        self.metric_counter = MetricCounter()

    def run_epoch(self, batches):
        for inputs, targets in batches:
            outputs = self.net(inputs)
            loss = F.mse_loss(outputs, targets)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            score, img = self.model.get_images_and_metrics(inputs, outputs, targets)
            self.metric_counter.add_image(img)
            print(f"loss {loss.item():.6f} psnr {score:.6f}")


torch.manual_seed(0)
trainer = Trainer()
trainer.run_epoch([(torch.randn(2, 6), torch.randn(2, 6)) for _ in range(ITERS)])
print(f"images {len(trainer.metric_counter.images)}")
print(f"checksum {sum(p.sum().item() for p in trainer.net.parameters()):.6f}")
