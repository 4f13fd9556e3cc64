# expect-before: runs
# autodetach-test: unsafe
# Fast neural style transfer: the transform network's output and the content
# batch go through a frozen feature network of the project (nets.Features,
# an object built here, its module-ness known only from its class in another
# file), after a mean shift written as `x.add(mean)` (a tensor's sum, not a
# set's add). The content loss is summed into `content_sum` with its graph at
# every batch and only printed: every batch's graph stays alive. The style sum
# next to it already uses `.item()`. That the feature network's output keeps
# its input's graph is inferred from its class in nets.py: the fix is unsafe.
import os

import torch
import torch.nn as nn

import nets

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(loader, style_image):
    net = nets.TransformNet()
    features = nets.Features()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    mean = torch.tensor([-0.5, -0.4, -0.3]).reshape(1, 3, 1, 1)
    mse = nn.MSELoss()
    style_gram = {k: nets.gram(v) for k, v in features(style_image.add(mean)).items()}
    content_sum = 0
    style_sum = 0
    count = 0
    for batch in loader:
        optimizer.zero_grad()
        generated = net(batch)
        content_features = features(batch.add(mean))
        generated_features = features(generated.add(mean))
        content_loss = 2.0 * mse(generated_features["relu2"], content_features["relu2"])
        content_sum += content_loss
        style_loss = 0
        for key, value in generated_features.items():
            style_loss += mse(nets.gram(value), style_gram[key][:len(batch)])
        style_sum += style_loss.item()
        total = content_loss + style_loss
        total.backward()
        optimizer.step()
        count += 1
        print("content {:.6f} style {:.6f}".format(content_sum / count, style_sum / count))
    return net


if __name__ == "__main__":
    torch.manual_seed(0)
    style = torch.rand(2, 3, 8, 8)
    net = train([torch.rand(2, 3, 8, 8) for _ in range(ITERS)], style)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
