"""Precision on unseen code (audit7).

A save helper of a LoRA library (cloneofsimo/lora's `save_lora_weight`)
collects `up.weight.to(torch.float16)` of each adapter pair in a list it
starts again at each call and saves: the loop goes over the parts of a
model, not over training steps. It was an AD101 (unsafe `.detach()`)."""
import textwrap

import autodetach

SAVE = """
import torch
import torch.nn as nn


def _walk_v2(model, kinds, search_class=None):
    for parent in model.modules():
        for name, child in parent.named_children():
            yield parent, name, child


walk = _walk_v2


def adapter_pairs(model, kinds=("Block",)):
    pairs = []
    for _parent, _name, child in walk(model, kinds, search_class=[nn.Linear]):
        pairs.append((child.up, child.down))
    return pairs


def save_adapters(model, path, kinds=("Block",)):
    weights = []
    for up, down in adapter_pairs(model, kinds=kinds):
        weights.append({body})
        weights.append(down.weight.to("cpu").to(torch.float16))
    torch.save(weights, path)


def blend(model, saved, alpha=1.0):
    for parent, name, child in walk(model, ("Block",), search_class=[nn.Linear]):
        weight = child.up.weight
        new_up = saved.pop(0)
        parent._modules[name].up.weight = nn.Parameter(new_up.to(weight.device) * alpha)
        parent._modules[name].to(weight.device)


@torch.no_grad()
def norms(model):
    out = {{}}
    for name, module in model.named_modules():
        out[name] = module.up.weight.abs().mean().item()
    return out


def save_all(unet, path):
    save_adapters(unet, path)
"""


def _codes(src):
    return [f.code for f in autodetach.check_code(textwrap.dedent(src), select=["AD1"])]


def test_parameters_of_each_part_saved_once_per_call_are_no_leak():
    assert _codes(SAVE.format(body='up.weight.to("cpu").to(torch.float16)')) == []


TRAIN = """
import torch


def fit(model, loader, opt):
    history = []
    for batch in loader:
        loss = (model(batch.x) - batch.y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(loss * batch.weight)
    return len(history)
"""


def test_entries_with_a_weight_run_through_a_model_are_still_reported():
    # `batch.weight` is read, but the body runs the model: each step's graph is kept
    assert "AD101" in _codes(TRAIN)
