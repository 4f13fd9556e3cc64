import torch


def finish_episode(opt, losses):
    opt.zero_grad()
    torch.stack(losses).mean().backward()
    opt.step()
