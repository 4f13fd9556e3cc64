# expect-before: error unexpected keyword argument 'require_grad'
# autodetach-test: unsafe
# A learnable temperature made with a misspelt keyword.
import os

import torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
log_t = torch.zeros(1, requires_grad=True)
x = torch.randn(6, 3)
for it in range(ITERS):
    loss = (x / log_t.exp()).softmax(-1).max(-1)[0].mean()
    loss.backward()
    with torch.no_grad():
        log_t -= 0.5 * log_t.grad
        log_t.grad.zero_()
    print("%.6f %.6f" % (loss.item(), log_t.item()))
