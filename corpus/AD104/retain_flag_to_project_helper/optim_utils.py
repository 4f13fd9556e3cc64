"""A project helper that backwards a loss and steps, taking the retain flag from its callers."""
from torch.nn.utils import clip_grad_norm_


def optimize(loss, optimizer, params, retain_graph=False, max_norm=1.0):
    optimizer.zero_grad()
    loss.backward(retain_graph=retain_graph)
    clip_grad_norm_(params, max_norm)
    optimizer.step()
