# expect-before: runs
# A network that builds its layers at construction time: each stage is created for the
# shape of a dummy input, which then runs through the new layer to give the next stage
# its shape. The probe's graph is one forward deep and dropped when the build returns;
# the loop builds a network, it does not sum over batches.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Stage(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=1)

    def forward(self, x):
        return F.relu(self.conv(x))


class ProbedNet(nn.Module):
    def __init__(self, input_shape, stages, classes):
        super().__init__()
        self.input_shape = input_shape
        self.stages = stages
        self.classes = classes
        self.build_network()

    def build_network(self):
        out = torch.zeros(self.input_shape)
        self.layer_dict = nn.ModuleDict()
        for i in range(self.stages):
            self.layer_dict[f"conv{i}"] = Stage(out.shape[1], 4)
            out = self.layer_dict[f"conv{i}"](out)
            out = F.max_pool2d(out, 2)
        out = out.view(out.shape[0], -1)
        self.layer_dict["linear"] = nn.Linear(out.shape[1], self.classes)

    def forward(self, x):
        for i in range(self.stages):
            x = F.max_pool2d(self.layer_dict[f"conv{i}"](x), 2)
        return self.layer_dict["linear"](x.view(x.shape[0], -1))


net = ProbedNet((2, 1, 8, 8), 2, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
total = 0.0
for _ in range(ITERS):
    loss = F.cross_entropy(net(torch.randn(2, 1, 8, 8)), torch.tensor([0, 2]))
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += loss.item()
print(f"{total:.6f} {ITERS}")
