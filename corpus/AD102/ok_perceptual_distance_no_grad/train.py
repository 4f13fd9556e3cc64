# expect-before: runs
# The transform network of content_loss_sum_feature_net trained on a pixel loss,
# while a perceptual distance is summed for the log through the project's
# feature network (nets.Features), whose forward runs under
# `@torch.no_grad()`: the distance holds no graph, so `dist_sum` keeps none.
# `x.add(mean)` is a tensor's sum; `seen.add(key)` a set's add.
import os

import torch
import torch.nn as nn

import nets

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(loader):
    net = nets.TransformNet()
    features = nets.Features()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    mean = torch.tensor([-0.5, -0.4, -0.3]).reshape(1, 3, 1, 1)
    mse = nn.MSELoss()
    dist_sum = 0
    loss_sum = 0
    seen = set()
    for count, (batch, target) in enumerate(loader, 1):
        optimizer.zero_grad()
        generated = net(batch)
        loss = mse(generated, target)
        loss.backward()
        optimizer.step()
        loss_sum += loss.item()
        generated_features = features(generated.add(mean))
        target_features = features(target.add(mean))
        for key in generated_features.keys():
            seen.add(key)
        dist_sum += mse(generated_features["relu2"], target_features["relu2"])
        print("loss {:.6f} dist {:.6f} {}".format(loss_sum / count, dist_sum / count, sorted(seen)))
    return net


if __name__ == "__main__":
    torch.manual_seed(0)
    net = train([(torch.rand(2, 3, 8, 8), torch.rand(2, 3, 8, 8)) for _ in range(ITERS)])
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
