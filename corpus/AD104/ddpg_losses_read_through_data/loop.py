import torch


def run(agent, steps):
    tot_q = tot_value_loss = 0.0
    for step in range(steps):
        state = torch.randn(8, 4)
        action = torch.rand(8, 2) * 2 - 1
        reward = torch.randn(8, 1)
        next_state = state + 0.1 * torch.randn(8, 4)
        q, value_loss = agent.update_policy(state, action, reward, next_state)
        tot_q += q.data.cpu().numpy()
        tot_value_loss += value_loss.data.cpu().numpy()
        print(step, f"{float(tot_q):.6f} {float(tot_value_loss):.6f}")
    return agent
