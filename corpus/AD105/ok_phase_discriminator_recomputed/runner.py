"""A stand-in for the framework's loop with several optimizers (Lightning
before 2.0): for each batch, one call per optimizer, in order, each call's
loss backwarded and that optimizer stepped before the next call."""


def fit(model, optimizers, batches):
    history = []
    for x in batches:
        for idx, opt in enumerate(optimizers):
            out = model.loss_function(*model(x), optimizer_idx=idx)
            opt.zero_grad()
            out["loss"].backward()
            opt.step()
            history.append(out["loss"].item())
    return history
