# The base trainer of flag_base_trainer_sets_critic_optimizer/train.py (not a case itself).


class BaseTrainer:
    """Keeps the networks and the optimizers it is handed (a dict by role)."""

    def __init__(self, generator, critic, optimizers, n_critic=1):
        self.generator = generator
        self.critic = critic
        self.generator_optimizer = optimizers["generator"]
        self.critic_optimizer = optimizers["critic"]
        self.n_critic = n_critic

    def train(self, batches):
        for step, (noise, real) in enumerate(batches):
            losses = self.train_batch(noise, real)
            print(f"{step} " + " ".join(f"{v:.6f}" for v in losses))
