# expect-before: error missing 1 required positional arguments
# A policy sampling an action 0.3 style (spro/practical-pytorch reinforce-gridworld).
import torch
import torch.nn.functional as F

torch.manual_seed(0)
policy = torch.nn.Linear(4, 3)
for step in range(3):
    scores = F.softmax(policy(torch.randn(1, 4)), dim=1)
    action = scores.multinomial()
    print("action %d p %.6f" % (action.item(), scores[0, action.item()].item()))
