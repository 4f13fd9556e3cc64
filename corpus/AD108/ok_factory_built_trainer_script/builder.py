"""Builds the model the options name, as multi-model projects do."""


def create_model(kind="single"):
    model = None
    if kind == "single":
        from train import PoseGAN
        model = PoseGAN()
    else:
        raise ValueError("unknown model " + kind)
    model.initialize(lr=2e-4)
    return model
