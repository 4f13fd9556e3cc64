import itertools

import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Linear(8, 16), nn.GELU())
    head_a, head_b = nn.Linear(16, 1), nn.Linear(16, 4)
    params = itertools.chain(backbone.parameters(), head_a.parameters(), head_b.parameters())
    optimizer = torch.optim.AdamW(params, lr=1e-3)
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    for step in range(5):
        x = torch.randn(12, 8)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            feats = backbone(x)
            loss_a = head_a(feats).float().pow(2).mean()
            loss_b = nn.functional.cross_entropy(head_b(feats).float(), torch.randint(0, 4, (12,)))
        optimizer.zero_grad()
        scaler.scale(loss_a).backward()
        scaler.scale(loss_b).backward()
        scaler.step(optimizer)
        scaler.update()
    print(loss_a.item(), loss_b.item())


if __name__ == "__main__":
    main()
