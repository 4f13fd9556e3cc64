import torch


def hinge_d(real_logit, fake_logit):
    return torch.relu(1.0 - real_logit).mean() + torch.relu(1.0 + fake_logit).mean()
