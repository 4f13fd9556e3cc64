"""A stand-in for Lightning's loop with several optimizers (before 2.0):
for each batch, `training_step` once per optimizer of `configure_optimizers`,
in order, that optimizer's gradients zeroed, the returned loss backwarded and
the optimizer stepped before the next call."""


def fit(model, batches):
    optimizers, _ = model.configure_optimizers()
    history = []
    for i, batch in enumerate(batches):
        for idx, opt in enumerate(optimizers):
            opt.zero_grad()
            loss = model.training_step(batch, i, idx)
            loss.backward()
            opt.step()
            history.append(loss.item())
    return history
