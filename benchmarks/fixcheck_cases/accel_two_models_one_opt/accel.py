"""A tiny stand-in for accelerate.Accelerator (no install needed)."""


class Accelerator:
    def prepare(self, *objs):
        return objs if len(objs) > 1 else objs[0]

    def backward(self, loss, **kwargs):
        loss.backward(**kwargs)
