"""The project's statistics collector (imported by train.py): one list per key."""
from collections.abc import Mapping


class StatisticsCollector(Mapping):
    def __init__(self):
        self.statistics = {}

    def add_statistic(self, key):
        self.statistics[key] = []

    def __getitem__(self, key):
        return self.statistics[key]

    def __setitem__(self, key, value):
        # `stat_col[key] = value` records one more value under the key
        self.statistics[key].append(value)

    def __len__(self):
        return len(self.statistics)

    def __iter__(self):
        return iter(self.statistics)

    def empty(self):
        for key in self.statistics:
            del self.statistics[key][:]
