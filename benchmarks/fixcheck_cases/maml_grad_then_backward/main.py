# Meta-learning: the inner step takes torch.autograd.grad of the support loss
# (create_graph only for second-order), then the outer loss is backwarded
# together with the support loss itself (a "multi-step loss" that also trains
# the initial weights on the support set). First-order mode (create_graph
# False) frees the support graph in autograd.grad, and the later backward
# fails. Correct: retain_graph=True on the autograd.grad (AD105); cutting
# anything would change the meta-gradient.
import torch

from meta import MetaLearner


def main():
    torch.manual_seed(0)
    learner = MetaLearner(second_order=False)
    for _ in range(6):
        xs, ys = torch.randn(10, 4), torch.randn(10, 1)
        xq, yq = torch.randn(10, 4), torch.randn(10, 1)
        print(learner.meta_step(xs, ys, xq, yq))


if __name__ == "__main__":
    main()
