import torch


class BaseAgent:
    def take_optimisation_step(self, optimizer, network, loss, clipping_norm=None):
        optimizer.zero_grad()
        loss.backward()
        if clipping_norm is not None:
            torch.nn.utils.clip_grad_norm_(network.parameters(), clipping_norm)
        optimizer.step()
