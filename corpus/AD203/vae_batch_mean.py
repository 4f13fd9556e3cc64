# expect-before: error invalid index of a 0-dim tensor
# A VAE loss divided by the batch size (a named number), read 0.3 style
# (wiseodd/generative-models VAE/vanilla_vae).
import torch
import torch.nn.functional as F

torch.manual_seed(0)
mb_size = 16
W = torch.randn(8, 8, requires_grad=True)
X = torch.rand(mb_size, 8)
for it in range(3):
    X_sample = torch.sigmoid(X @ W)
    recon_loss = F.binary_cross_entropy(X_sample, X, reduction="sum") / mb_size
    kl_loss = torch.mean(0.5 * torch.sum(torch.exp(X_sample) - 1. - X_sample, 1))
    loss = recon_loss + kl_loss
    loss.backward()
    with torch.no_grad():
        W -= 0.1 * W.grad
        W.grad.zero_()
    print("loss %.6f" % loss.data[0])
print("checksum %.6f" % W.sum().item())
