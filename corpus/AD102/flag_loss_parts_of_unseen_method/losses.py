class LossWithParts:
    """The total loss, with its named parts kept as plain numbers for the logs."""

    def __init__(self, **parts):
        self.loss_total = sum(parts.values())
        self.parts = {name: value.item() for name, value in parts.items()}

    def __truediv__(self, value):
        for name, part in self.parts.items():
            self.parts[name] = part / value
        self.loss_total = self.loss_total / value
        return self
