# expect-before: runs
# A trainer whose `run_step` either trains (forward, backward, step, then hands the
# outputs back for the metrics) or evaluates (a fresh forward). The new forward is in
# the other arm of the `if`, not after the step: nothing hands the caller a loss built
# through a stale graph, and the caller only reads numbers off the outputs. No finding.
import os

import torch
import torch.nn as nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class ArmStepNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(torch.tanh(x))


class ArmStepTrainer:
    def __init__(self, model, criterion, optimizer):
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.is_training = True

    def run_step(self, batch):
        if self.is_training:
            output_dict = self._train_step(batch)
        else:
            output_dict = self._eval_step(batch)
        return output_dict

    def _train_step(self, batch):
        inputs, targets = batch
        outputs = self.model(inputs)
        loss = self.criterion(outputs, targets)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return {"outputs": outputs, "targets": targets}

    def _eval_step(self, batch):
        inputs, targets = batch
        outputs = self.model(inputs)  # the caller's loop runs it under no_grad
        return {"outputs": outputs, "targets": targets}


net = ArmStepNet()
trainer = ArmStepTrainer(net, nn.CrossEntropyLoss(), torch.optim.SGD(net.parameters(), lr=0.1))
correct = 0
for step in range(ITERS * 2):
    trainer.is_training = step < ITERS
    batch = (torch.randn(8, 4), torch.randint(0, 3, (8,)))
    if trainer.is_training:
        out = trainer.run_step(batch)
    else:
        with torch.no_grad():
            out = trainer.run_step(batch)
    correct += int((out["outputs"].argmax(1) == out["targets"]).sum())
print(f"{correct / (ITERS * 16):.6f} {net.fc.weight.sum().item():.6f}")
