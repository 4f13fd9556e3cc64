from utils import AverageMeter


def train(model, criterion, optimizer, loader, reg=0.0):
    losses, accuracy, pos_sims, neg_sims = AverageMeter(), AverageMeter(), AverageMeter(), AverageMeter()
    for inputs, labels in loader:
        optimizer.zero_grad()
        loss, inter_, dist_ap, dist_an = criterion(model(inputs), labels)
        if reg:
            loss = loss + reg * sum(p.pow(2).sum() for p in model.parameters())
        loss.backward()
        optimizer.step()
        losses.update(loss.item())
        accuracy.update(inter_)
        pos_sims.update(dist_ap)
        neg_sims.update(dist_an)
    return losses.avg, accuracy.avg, pos_sims.avg, neg_sims.avg
