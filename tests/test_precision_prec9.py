"""The extra results of a call whose code is not read (`loss, dist = criterion(out, y)`,
only `loss` backwarded) may be numbers: a store of one of them alone is not reported
(Deep_Metric's meters). Each variant next to the nearest shape that must still be."""
import textwrap

import autodetach

METER = """
    class AverageMeter:
        def __init__(self):
            self.sum = 0

        def update(self, val, n=1):
            self.sum += val * n


    def train(model, criterion, optimizer, loader):
        meter = AverageMeter()
        for x, y in loader:
            optimizer.zero_grad()
            {call}
            {backward}
            optimizer.step()
            meter.update({kept})
"""


def found(src):
    return sorted((f.code, f.line) for f in autodetach.check_code(textwrap.dedent(src), select=["AD102"]))


def test_extra_result_of_a_parameter_criterion_is_not_reported():
    src = METER.format(call="loss, dist = criterion(model(x), y)", backward="loss.backward()", kept="dist")
    assert found(src) == []


def test_extra_result_after_a_conditional_rebinding_of_the_loss():
    # `loss = loss + reg` under an `if`: still the backwarded name (not a proven binding)
    call = "loss, dist = criterion(model(x), y)\n        if y.numel():\n            loss = loss + 1.0"
    assert found(METER.format(call=call, backward="loss.backward()", kept="dist")) == []


def test_extra_result_with_amp_backward_is_not_reported():
    src = METER.format(call="loss, acc, dist = criterion(model(x), y)", backward="scaler.scale(loss).backward()",
                       kept="acc")
    assert found(src) == []


def test_backwarded_result_is_still_reported():
    src = METER.format(call="loss, dist = criterion(model(x), y)", backward="loss.backward()", kept="loss")
    assert [code for code, _ in found(src)] == ["AD102"]


def test_no_backwarded_sibling_keeps_the_report():
    # nothing shows which result is the loss: the unread call's results all stay graph values
    src = METER.format(call="loss, dist = criterion(model(x), y)", backward="loss.sum().backward()", kept="dist")
    assert [code for code, _ in found(src)] == ["AD102"]


def test_total_of_an_extra_result_is_not_reported():
    src = """
        def fit(net, loss_fn, opt, data):
            total = 0
            for x, y in data:
                opt.zero_grad()
                loss, acc = loss_fn(net(x), y)
                loss.backward()
                opt.step()
                total += acc
            return total
    """
    assert found(src) == []
