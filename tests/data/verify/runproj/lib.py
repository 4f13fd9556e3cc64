# Library code (no entry point): verified through `--run "python train.py"`.


def two_head_step(trunk, head_a, head_b, opt, x):
    feats = trunk(x).tanh()
    loss_a = head_a(feats).pow(2).mean()
    loss_b = head_b(feats).abs().mean()
    opt.zero_grad()
    loss_a.backward(retain_variables=True)
    loss_b.backward()
    opt.step()
    return loss_a.item() + loss_b.item()
