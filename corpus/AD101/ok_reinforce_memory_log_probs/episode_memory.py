class EpisodeMemory:
    """Keeps one episode's log-probabilities and rewards until the update clears it."""

    def __init__(self):
        self.log_probs = []
        self.rewards = []

    def push(self, log_prob, reward):
        self.log_probs.append(log_prob)
        self.rewards.append(reward)

    def take(self):
        return self.log_probs, self.rewards

    def clear(self):
        self.log_probs = []
        self.rewards = []
