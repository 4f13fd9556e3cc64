import torch
import torch.nn.functional as F


def run(model, iters):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    documents = torch.randn(2, iters, 5, 4)
    targets = torch.randn(2, iters, 5, 1)
    for doc, target in zip(documents, targets):
        for segment, y in zip(doc, target):
            loss = F.mse_loss(model(segment), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print(f"loss {loss.item():.6f}")
        model.forget()
