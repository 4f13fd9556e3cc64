"""flow._uncertain_below: a value held through seen code that a backward
proves keeps its graph, whatever unseen code added beside it."""
from autodetach.analysis.flow import _uncertain_below
from autodetach.analysis.graph import GNode


def node(name, parents=(), **kw):
    return GNode(name=name, stmt=None, expr=None, iteration=(), parents=frozenset(parents), **kw)


def test_a_dict_from_an_unseen_helper_holding_a_backwarded_loss_is_certain():
    unseen = node("compute_training_loss(...)", uncertain=True)
    total = node('loss["loss"]', [unseen], proven=True)
    held = node("loss", [unseen, total], uncertain=True)  # the dict: the call's result joined with its element
    assert not _uncertain_below(held)


def test_a_proven_loss_behind_an_unseen_call_stays_uncertain():
    loss = node("loss", proven=True)
    unseen = node("score(loss)", [loss], uncertain=True)  # may return loss.item()
    assert _uncertain_below(node("total", [unseen], uncertain=True))
    assert _uncertain_below(node("total", [unseen]))


def test_nothing_unseen_is_certain():
    assert not _uncertain_below(node("total", [node("out")]))
