"""Adversarial objectives, picked by name at run time."""
import torch.nn.functional as F


class Hinge:
    def __call__(self, critic, generated, data):
        fake_score = critic(generated)
        critic_loss = F.relu(1.0 + fake_score).mean() + F.relu(1.0 - critic(data)).mean()
        return critic_loss, -fake_score.mean()


REGISTRY = {"hinge": Hinge}
