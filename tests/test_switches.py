"""A pool of past samples that hands its argument back only while a setting of
the object turns it off (switches.py), and a loop value cut first thing: the
summaries count both as cutting the argument (issue 8, CycleGAN's ImagePool)."""
import textwrap

from autodetach.analysis.summaries import summarize

POOL = """
import random
import torch


class Pool:
    def __init__(self, size):
        self.size = size
        self.kept = []

    def query(self, images):
        if {test}:
            return images
        out = []
        for image in images:
            image = {first}
            if len(self.kept) < self.size:
                self.kept.append(image)
                out.append(image)
            else:
                out.append(self.kept[random.randrange(self.size)].clone())
        return torch.cat(out, 0)
"""


def _query(test="self.size == 0", first="torch.unsqueeze(image.data, 0)"):
    return summarize(textwrap.dedent(POOL.format(test=test, first=first)))["Pool.query"]


def test_setting_guarded_pass_through_counts_as_cut():
    s = _query()
    assert s.arg_flow == ("cut",)
    assert s.accum == ()  # `self.kept.append(image)` keeps copies from `.data`, not the argument


def test_other_guards_keep_the_argument_graph():
    for test in ("random.random() < 0.5", "images.size(0) == 0", "self.size == len(images)", "self.training",
                 "not self.training"):
        assert _query(test=test).arg_flow == ("graph",), test


def test_loop_value_kept_with_its_graph():
    s = _query(first="torch.unsqueeze(image, 0)")
    assert s.arg_flow == ("graph",)
    assert s.accum  # stored on self with the argument's graph


def test_only_return_is_not_a_switch():
    text = textwrap.dedent('''
        class Wrap:
            def __init__(self, on):
                self.on = on

            def apply(self, x):
                if self.on:
                    return x
                print("off")
    ''')
    assert summarize(text)["Wrap.apply"].arg_flow in (None, ("graph",))


def test_other_returns_filled_out_of_sight_keep_the_graph():
    # the pool is filled by another method (`self.handle(w, out)`): the summary cannot see it cut
    text = textwrap.dedent('''
        import torch


        class Pool:
            def __init__(self, size):
                self.size = size

            def query(self, ws):
                if self.size == 0:
                    return ws
                out = []
                for w in ws:
                    self.handle(w, out)
                return torch.stack(out, 0)

            def handle(self, w, out):
                out.append(w)
    ''')
    assert summarize(text)["Pool.query"].arg_flow == ("graph",)
