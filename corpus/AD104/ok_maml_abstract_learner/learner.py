"""The interface a meta-learning problem fills in: subclasses define the model."""


class MetaLearner:
    def compute_model(self, inputs, variables):
        """Return (loss, outputs) of the model run with `variables`."""
        raise NotImplementedError("subclasses define the model")

    @property
    def variables(self):
        raise NotImplementedError("subclasses define the model")

    def get_batch(self):
        raise NotImplementedError("subclasses define the data")

    def parameters(self):
        raise NotImplementedError("subclasses define the model")
