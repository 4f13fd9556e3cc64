def backprop(loss, weight=1.0):
    """Backward a weighted loss term; the caller sums several terms."""
    (loss * weight).backward(retain_graph=True)
