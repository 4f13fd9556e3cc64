"""Two value heads on one trunk, handed in by the trainer."""


class TwinValues:
    def values(self, trunk, heads, obs):
        features = trunk(obs)
        return heads[0](features), heads[1](features)


ALGOS = {"twin": TwinValues}
