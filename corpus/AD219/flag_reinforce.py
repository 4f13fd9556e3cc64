# expect-before: error reinforce() was removed
# REINFORCE the 0.3 way (spro/practical-pytorch reinforce-gridworld): a sampled
# action is rewarded with .reinforce(), removed in 0.4. Reported, not fixed.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
policy = torch.nn.Linear(4, 3)
scores = F.softmax(policy(torch.randn(1, 4)), dim=1)
action = scores.multinomial(1)
print("action %d" % action.item())
action.reinforce(1.0)
