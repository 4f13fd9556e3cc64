def repackage_hidden(h):
    """Kept for compatibility; autograd handles this now."""
    return h
