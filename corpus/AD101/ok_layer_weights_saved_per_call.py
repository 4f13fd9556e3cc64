# expect-before: runs
# A checkpoint helper, called after training with gradients on, collects the
# weights of each adapter pair in half precision (`up.weight.to(torch.float16)`
# has a graph back to the parameter) in a list it starts again at each call and
# saves: the loop goes over the parts of the model, not over training steps,
# so nothing is kept from one call to the next.
import io
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def _walk_v2(model, kinds, search_class=None):
    for parent in model.modules():
        for name, child in parent.named_children():
            if type(child).__name__ in kinds:
                yield parent, name, child


walk = _walk_v2  # the walk in use (an older one was replaced)


def adapter_pairs(model, kinds=("Block",)):
    pairs = []
    for _parent, _name, child in walk(model, kinds, search_class=[nn.Linear]):
        pairs.append((child.up, child.down))
    return pairs


def save_adapters(model, path, kinds=("Block",)):
    weights = []
    for up, down in adapter_pairs(model, kinds=kinds):
        weights.append(up.weight.to("cpu").to(torch.float16))
        weights.append(down.weight.to("cpu").to(torch.float16))
    torch.save(weights, path)
    return len(weights)


def blend(model, saved, alpha=1.0):
    for parent, name, child in walk(model, ("Block",), search_class=[nn.Linear]):
        weight = child.up.weight
        new_up = saved.pop(0)
        parent._modules[name].up.weight = nn.Parameter(new_up.to(weight.device) * alpha)
        parent._modules[name].to(weight.device)


@torch.no_grad()
def norms(model):
    out = {}
    for name, module in model.named_modules():
        if type(module).__name__ == "Block":
            out[name] = module.up.weight.abs().mean().item()
    return out


def save_all(unet, path):
    save_adapters(unet, path)


class Block(nn.Module):
    def __init__(self, n, r=2):
        super().__init__()
        self.down = nn.Linear(n, r, bias=False)
        self.up = nn.Linear(r, n, bias=False)

    def forward(self, x):
        return x + self.up(torch.tanh(self.down(x)))


net = nn.Sequential(nn.Linear(6, 4), Block(4), nn.Tanh(), Block(4), nn.Linear(4, 1))
blend(net, [torch.full((4, 2), 0.1), torch.full((4, 2), -0.1)], alpha=0.5)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
x, y = torch.randn(32, 6), torch.randn(32, 1)
for step in range(ITERS):
    loss = (net(x) - y).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.6f} norm {sum(norms(net).values()):.6f}")
buf = io.BytesIO()
save_all(net, buf)
print(f"saved {len(torch.load(io.BytesIO(buf.getvalue())))} tensors")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f} over {ITERS} steps")
