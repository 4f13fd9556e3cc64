from torch import nn, randn

from model_lib import ITERS, fit, predict

net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
data = [(randn(8, 6), randn(8, 2)) for _ in range(ITERS)]
fit(net, data)
out = predict(net, [x for x, _ in data])
print(" ".join(f"{v:.6f}" for v in out.sum(0)))
