"""A module method that reads what the module's forward kept on `self` (`get_loss()`
reading `self.logits`) returns a value that hangs from that forward's graph: a retain
that lets a later backward walk the forward again is needed (joust's Fisher pass)."""
from pathlib import Path

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

CASE = Path(__file__).resolve().parent.parent / "corpus" / "AD104" / "ok_retain_needed_forward_state_loss.py"


def _codes(src: str, path: str = "train.py"):
    findings, _, _ = check_source(src, path, all_rules(), Options(unsafe=True))
    return [(f.code, f.line) for f in findings]


def test_loss_read_from_forward_state_keeps_the_retain():
    assert _codes(CASE.read_text()) == []


def test_forward_state_of_a_class_in_another_file(tmp_path):
    text = CASE.read_text()
    head, _, rest = text.partition("class Tagger(nn.Module):")
    body, _, loop = rest.partition("\n\n\nmodel = Tagger()")
    (tmp_path / "tagger.py").write_text(
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n"
        "class Tagger(nn.Module):" + body + "\n")
    train = tmp_path / "train.py"
    train.write_text(head + "from tagger import Tagger\n\nmodel = Tagger()" + loop)
    assert _codes(train.read_text(), str(train)) == []


def test_a_detached_store_is_no_such_link():
    # the forward keeps its logits cut: the later backward walks only `h`, so the retain is not needed
    src = CASE.read_text().replace('self.logits["tag"] = self.head(h)', 'self.logits["tag"] = self.head(h).detach()')
    assert ("AD104", 39) in _codes(src)
