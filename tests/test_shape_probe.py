"""A loop that builds a network's layers and runs a probe through each new one to learn the next
layer's shape (HowToTrainYourMAML's build_network) is not an evaluation that sums over batches
(analysis/eval_loops.py): its graph is one forward deep."""
import pathlib

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

CORPUS = pathlib.Path(__file__).parent.parent / "corpus" / "AD101"


def _ad101(path):
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f.line for f in findings if f.code == "AD101"]


def test_shape_probe_through_layers_built_in_the_loop(tmp_path):
    path = tmp_path / "probe.py"
    text = (CORPUS / "ok_shape_probe_builds_layers.py").read_text()
    path.write_text(text)
    assert _ad101(path) == []
    # control: the same chain through layers built before the loop sums over the loop's inputs
    path.write_text(text.replace('            self.layer_dict[f"conv{i}"] = Stage(out.shape[1], 4)\n', "")
                    .replace('        self.layer_dict = nn.ModuleDict()\n',
                             '        self.layer_dict = nn.ModuleDict({f"conv{i}": Stage(1, 1) for i in '
                             'range(self.stages)})\n'))
    assert _ad101(path) != []
