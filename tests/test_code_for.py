"""positions.code_for gives libcst's own code for every node."""
import glob
import os

import libcst as cst

from autodetach.analysis.walk import nodes
from autodetach.positions import code_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_code_for_matches_libcst_on_every_node():
    files = [os.path.join(ROOT, "corpus", "migration", "train_mnist_03.py")] + \
        sorted(glob.glob(os.path.join(ROOT, "corpus", "migration", "word_lm_03", "*.py")))
    assert len(files) > 1
    checked = 0
    for path in files:
        with open(path, encoding="utf-8") as fh:
            module = cst.parse_module(fh.read())
        assert code_for(module, module) == module.code
        for node in nodes(module):
            assert code_for(module, node) == module.code_for_node(node)
            checked += 1
    assert checked > 1000


def test_code_for_keeps_the_module_defaults():
    module = cst.parse_module("if x:\r\n\tif y:\r\n\t\tz = (1,\r\n\t\t     2)\r\n")
    stmt = module.body[0]
    assert code_for(module, stmt) == module.code_for_node(stmt) == module.code
