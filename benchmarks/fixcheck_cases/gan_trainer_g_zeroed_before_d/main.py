# A GAN trainer zeroes both optimizers once per step (in a `zero` method),
# then runs the D step and the G step (methods) on the same `fake`. G's
# .grad holds the D step's gradient through `fake` when opt_g steps: a
# detach in d_step would change G's update; retain_graph is the safe fix.
import torch
import torch.nn as nn

from trainer import GANTrainer


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    t = GANTrainer(G, D)
    for it in range(6):
        print(t.step(torch.randn(16, 8), torch.randn(16, 4)))


if __name__ == "__main__":
    main()
