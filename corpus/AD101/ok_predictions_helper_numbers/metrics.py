import torch


def gather(outputs, targets, preds, truths, task, **options):
    """Hands the two lists back with this batch's predictions added, as numbers."""
    if task == "multilabel":
        preds, truths = _thresholded(outputs, targets, preds, truths, **options)
    else:
        preds, truths = _argmax(outputs, targets, preds, truths)
    return preds, truths


def _thresholded(outputs, targets, preds, truths, **options):
    cut = options["cut"] if options.get("cut") else 0.5
    hits = torch.sigmoid(outputs.data) >= cut
    for hit, target in zip(hits, targets):
        preds.append(hit.float().mean().item())
        truths.append(target.float().mean().item())
    return preds, truths


def _argmax(outputs, targets, preds, truths):
    _, best = torch.max(outputs.data, 1)
    for b, t in zip(best, targets):
        preds.append(b.item())
        truths.append(t.item())
    return preds, truths
