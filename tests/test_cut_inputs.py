"""AD109's partial cut written inline (analysis.cut_inputs): a term of the
loss runs another model on a value cut from the stepped ones, with no name
bound to the model's output. Each next to the cut on purpose it must leave alone."""
import textwrap

import autodetach

GAN = """
import torch
import torch.nn.functional as F

def train(G, D, feats, opt_g, opt_d, loader):
    for z, real in loader:
        fake = G(z)
        opt_d.zero_grad()
        d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake.detach())).mean()
        d_loss.backward()
        opt_d.step()
        g_loss = {g_loss}
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
"""


def found(src):
    return [(f.code, f.line) for f in autodetach.check_code(textwrap.dedent(src), select=["AD109"])]


def test_adversarial_term_on_a_detached_fake_inline_is_reported():
    out = autodetach.check_code(GAN.format(g_loss="F.softplus(-D(fake.detach())).mean() + F.l1_loss(fake, real)"),
                                select=["AD109"])
    assert [(f.code, f.line) for f in out] == [("AD109", 12)]
    assert "runs `D` on `fake.detach()`, cut from `G`" in out[0].message


def test_perceptual_term_on_a_detached_fake_inline_is_reported():
    g_loss = "F.mse_loss(feats(fake.detach()), feats(real)) + F.l1_loss(fake, real)"
    assert found(GAN.format(g_loss=g_loss)) == [("AD109", 12)]


def test_live_fake_and_the_discriminator_step_are_not_reported():
    assert found(GAN.format(g_loss="F.softplus(-D(fake)).mean() + F.l1_loss(fake, real)")) == []


def test_relativistic_reference_is_not_reported():
    # the same model also runs on the live fake: the cut one is a reference
    assert found(GAN.format(g_loss="(D(fake) - D(fake.detach())).mean() + F.l1_loss(fake, real)")) == []


def test_head_stepped_with_the_backbone_on_detached_features_is_not_reported():
    # an online probe: the classifier is stepped by the same optimizer, so the cut is on purpose
    src = """
    import torch
    import torch.nn.functional as F

    def train(backbone, classifier, opt, loader):
        for x, y in loader:
            feats = backbone(x)
            loss = feats.pow(2).mean() + F.cross_entropy(classifier(feats.detach()), y)
            opt.zero_grad()
            loss.backward()
            opt.step()

    backbone, classifier = torch.nn.Linear(4, 4), torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(list(backbone.parameters()) + list(classifier.parameters()), lr=0.1)
    """
    assert found(src) == []
