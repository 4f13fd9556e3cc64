import torch


@torch.no_grad()
def ema_update(target, online, decay):
    for pt, po in zip(target.parameters(), online.parameters()):
        pt.mul_(decay).add_(po, alpha=1 - decay)
