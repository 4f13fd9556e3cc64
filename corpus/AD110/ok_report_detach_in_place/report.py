"""A report of model outputs whose detach() cuts its items in place and returns itself."""
import collections


class Report(collections.OrderedDict):
    def __init__(self, batch, output):
        super().__init__(batch=batch, output=output)

    def detach(self):
        for key in self.keys():
            self[key] = self[key].detach()
        return self
