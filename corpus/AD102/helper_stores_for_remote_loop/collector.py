"""The project's statistics collector: `stat_col[key] = value` appends to that key's list."""


class StatisticsCollector:
    def __init__(self, keys):
        self.statistics = {key: [] for key in keys}

    def __setitem__(self, key, value):
        self.statistics[key].append(value)

    def __getitem__(self, key):
        return self.statistics[key]

    def empty(self):
        for key in self.statistics:
            del self.statistics[key][:]
