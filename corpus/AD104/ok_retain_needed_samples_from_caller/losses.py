"""The project's distances (imported by train.py)."""
import torch


def projected_distance(first_samples, second_samples, f, f_op, max_iter=3):
    # trains the projection net `f` to separate the samples, then measures them
    pro = torch.randn(4, first_samples.size(1))
    for _ in range(max_iter):
        projections = f(pro)
        distance = (first_samples @ projections.t() - second_samples @ projections.t()).pow(2).mean()
        loss = -distance
        f_op.zero_grad()
        loss.backward(retain_graph=True)
        f_op.step()
    projections = f(pro)
    return (first_samples @ projections.t() - second_samples @ projections.t()).pow(2).mean()
