"""AD109's whole cut terms (analysis.dead_terms): a loss that adds a value cut
from the trained graph (`.detach()`, `.item()`, `torch.tensor(list)`) as a
whole term of a sum. Each shape next to the cut on purpose it must leave alone."""
import textwrap

import autodetach


def found(src):
    return sorted((f.code, f.line) for f in autodetach.check_code(textwrap.dedent(src), select=["AD109"]))


DISTILL = """
import torch
from torch import nn

def train_step(loader, nets, optimizer, criterions, beta):
    snet = nets["snet"]
    tnet = nets["tnet"]
    crit_cls, crit_at = criterions["cls"], criterions["at"]
    snet.train()
    for x, y in loader:
        feat_s, out_s = snet(x)
        feat_t, _ = tnet(x)
        cls_loss = crit_cls(out_s, y)
        at_loss = {term} * beta
        loss = cls_loss + at_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


def test_distillation_term_detached_whole_is_reported():
    assert found(DISTILL.format(term="crit_at(feat_s, feat_t).detach()")) == [("AD109", 14)]


def test_distillation_teacher_detached_inside_the_term_is_not_reported():
    assert found(DISTILL.format(term="crit_at(feat_s, feat_t.detach())")) == []


def test_term_cut_with_item_or_float_is_reported():
    assert found(DISTILL.format(term="crit_at(feat_s, feat_t).item()")) == [("AD109", 14)]
    assert found(DISTILL.format(term="float(crit_at(feat_s, feat_t))")) == [("AD109", 14)]


def test_term_cut_from_the_teacher_alone_is_not_reported():
    # the teacher is not trained by the loss: a constant from it teaches nobody
    assert found(DISTILL.format(term="tnet(feat_t)[1].mean().detach()")) == []


FORWARD = """
import torch
from torch import nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.Linear(4, 4)
        self.adapter = nn.Linear(4, 4)

    def forward(self, x):
        terms = []
        h = x
        for t in range(3):
            h = self.cell(h)
            terms.append(self.adapter(h).pow(2).mean())
        aux = torch.mean({combine}(terms))
        loss = h.pow(2).mean() + 0.1 * aux
        return h, loss
"""


def test_terms_rebuilt_with_torch_tensor_in_a_forward_are_reported():
    out = autodetach.check_code(textwrap.dedent(FORWARD.format(combine="torch.tensor")), select=["AD109"])
    assert [(f.code, f.line) for f in out] == [("AD109", 17)]
    assert "`self.adapter` reaches the loss only through it" in out[0].message
    assert "inferred from its name" in out[0].message


def test_terms_stacked_in_a_forward_are_not_reported():
    assert found(FORWARD.format(combine="torch.stack")) == []


def test_value_shift_and_straight_through_are_not_reported():
    src = """
    import torch
    from torch import nn
    net = nn.Linear(4, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for i in range(3):
        out = net(torch.randn(2, 4))
        task = out.pow(2).mean()
        reg = net.weight.pow(2).sum()
        loss = task + reg - reg.detach()
        opt.zero_grad()
        loss.backward()
        opt.step()
    """
    assert found(src) == []


def test_loss_with_no_live_term_is_not_reported():
    # every term cut: the backward raises, which the author sees
    src = DISTILL.replace("loss = cls_loss + at_loss", "loss = cls_loss.detach() + at_loss")
    assert found(src.format(term="crit_at(feat_s, feat_t).detach()")) == []


def test_td_target_inside_a_term_is_not_reported():
    src = """
    import torch
    from torch import nn
    q = nn.Linear(4, 2)
    opt = torch.optim.SGD(q.parameters(), lr=0.1)
    for i in range(3):
        s, s2 = torch.randn(2, 4), torch.randn(2, 4)
        target = 1.0 + 0.9 * q(s2).max(1)[0].detach()
        loss = (q(s).max(1)[0] - target).pow(2).mean() + 0.01 * q(s).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    """
    assert found(src) == []


def test_amp_scaled_backward_of_a_trainer_is_reported():
    src = """
    import torch
    from torch import nn

    class Trainer:
        def __init__(self, model):
            self.model = nn.Linear(4, 4)
            self.opt = torch.optim.Adam(self.model.parameters())
            self.scaler = torch.amp.GradScaler("cuda", enabled=False)

        def step(self, x):
            out = self.model(x)
            rec = out.pow(2).mean()
            kl = out.abs().mean()
            loss = rec
            loss += 0.5 * kl.detach()
            self.opt.zero_grad()
            self.scaler.scale(loss).backward()
            self.scaler.step(self.opt)
    """
    assert found(src) == [("AD109", 16)]


def test_vq_commitment_term_reading_the_input_live_is_not_reported():
    # `mse(q.detach(), z)` is not a function of the cut alone: `z` (an argument) is live
    src = """
    import torch
    from torch import nn
    import torch.nn.functional as F

    class VQ(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(8, 4)

        def forward(self, latents):
            q = self.embedding.weight[torch.argmin(torch.cdist(latents, self.embedding.weight), 1)]
            commitment_loss = F.mse_loss(q.detach(), latents)
            embedding_loss = F.mse_loss(q, latents.detach())
            vq_loss = commitment_loss * 0.25 + embedding_loss
            q = latents + (q - latents).detach()
            return q, vq_loss
    """
    assert found(src) == []


def test_term_scaled_by_a_learned_weight_is_not_reported():
    # uncertainty weighting: the cut term still trains `log_var` through the product
    src = DISTILL.replace("at_loss = {term} * beta", "at_loss = {term} * snet.log_var.exp()")
    assert found(src.format(term="crit_at(feat_s, feat_t).detach()")) == []


def test_lightning_step_returning_a_loss_dict_with_a_cut_term_is_reported():
    src = """
    import torch
    import pytorch_lightning as pl
    from torch import nn

    class Student(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(4, 3)
            self.teacher = nn.Linear(4, 3)

        def training_step(self, batch, batch_idx):
            x, y = batch
            out = self.net(x)
            kd = (out.log_softmax(1) - self.teacher(x).log_softmax(1)).pow(2).mean()
            return {"loss": nn.functional.cross_entropy(out, y) + 0.5 * kd.detach()}
    """
    assert found(src) == [("AD109", 16)]


FEEDBACK = """
import torch
import torch.nn.functional as F

def train_loop(loader, teacher, student, t_opt, s_opt, amp):
    for x, y, xu in loader:
        with amp.autocast(enabled=True):
            t_lab, t_unl = teacher(x), teacher(xu)
            t_sup = F.cross_entropy(t_lab, y)
            s_old = F.cross_entropy(student(x).detach(), y)
            with torch.no_grad():
                s_new = F.cross_entropy(student(x), y)
            feedback = s_new - s_old
            _, pseudo = torch.max(t_unl.detach(), dim=-1)
            t_meta = feedback * F.cross_entropy({logits}, {labels})
            t_loss = t_sup + t_meta
        t_opt.zero_grad()
        t_loss.backward()
        t_opt.step()
"""


def test_term_computed_from_several_cuts_is_reported():
    # logits and labels both cut (the labels unpacked from a max of the cut logits), under autocast
    assert found(FEEDBACK.format(logits="t_unl.detach()", labels="pseudo")) == [("AD109", 15)]


def test_term_reading_the_logits_live_is_not_reported():
    assert found(FEEDBACK.format(logits="t_unl", labels="pseudo")) == []


def test_term_reading_an_unknown_value_next_to_the_cut_is_not_reported():
    # `y` is not a function of cuts: the term is not proved constant by its syntax
    assert found(FEEDBACK.format(logits="t_unl.detach()", labels="y")) == []
