def compute_loss(model, x, y):
    out = model(x)
    return {"mse": (out - y).pow(2).mean(), "l1": (out - y).abs().mean()}
