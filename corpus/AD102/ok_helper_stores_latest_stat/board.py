"""The project's status board: `board[key] = value` keeps only the latest value of each key."""


class StatusBoard:
    def __init__(self):
        self.latest = {}

    def __setitem__(self, key, value):
        self.latest[key] = value

    def __getitem__(self, key):
        return self.latest[key]
