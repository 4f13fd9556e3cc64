"""The instructors' base class: helpers shared by every model's trainer."""


class BaseInstructor:
    def __init__(self, log_every=1):
        self.log_every = log_every

    @staticmethod
    def optimize_multi(opts, losses):
        """Step each optimizer after the backward of its own loss, in turn."""
        for i, (opt, loss) in enumerate(zip(opts, losses)):
            opt.zero_grad()
            loss.backward(retain_graph=True if i < len(opts) - 1 else False)
            opt.step()

    @staticmethod
    def optimize(opt, loss):
        opt.zero_grad()
        loss.backward()
        opt.step()
