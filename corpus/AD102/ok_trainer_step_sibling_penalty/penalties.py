def l2_penalty(model, weight=1e-3):
    total = 0
    for p in model.parameters():
        total = total + p.pow(2).sum()
    return weight * total
