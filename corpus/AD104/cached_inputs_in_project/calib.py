"""Calibration helpers: record what a layer sees, once, before it is tuned."""
import torch


class InputRecorder:
    """Runs the model with a forward hook on one layer and hands back what the
    layer received and returned, cut from any graph."""

    def __init__(self, model, layer):
        self.model = model
        self.layer = layer
        self.seen = None

    def _hook(self, module, inputs, output):
        self.seen = (inputs[0], output)

    def __call__(self, batch):
        handle = self.layer.register_forward_hook(self._hook)
        with torch.no_grad():
            self.model(batch)
        handle.remove()
        inp, out = self.seen
        return inp.detach(), out.detach()


def cache_layer_data(model, layer, data, batch_size=8):
    record = InputRecorder(model, layer)
    pairs = []
    for i in range(0, data.size(0), batch_size):
        inp, out = record(data[i:i + batch_size])
        pairs.append((inp.cpu(), out.cpu()))
    inputs = torch.cat([p[0] for p in pairs])
    targets = torch.cat([p[1] for p in pairs])
    return inputs, targets
