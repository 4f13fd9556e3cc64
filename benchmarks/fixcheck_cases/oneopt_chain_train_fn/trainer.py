import torch


def train(encoder, generator, loader, optimizer, criterion):
    running = 0.0
    for x, _ in loader:
        optimizer.zero_grad()
        z = encoder(x)
        recon = generator(z)
        rec_loss = criterion(recon, x)
        rec_loss.backward()
        # latent prior term: pulls both nets, through z
        prior = (z ** 2).mean() + 0.1 * torch.tanh(recon).pow(2).mean()
        prior.backward()
        optimizer.step()
        running += rec_loss.item()
    return running / len(loader)
