"""Scores of a sequence model: numbers, through numpy and a scorer this project does not define."""
import difflib

import torch


def seq_score(logits, ref):
    tokens = torch.max(logits.data, dim=1)[1]
    tokens = tokens.cpu().numpy()
    return overlap(tokens, ref)


def overlap(tokens, ref):
    return difflib.SequenceMatcher(None, list(tokens), list(ref)).ratio()
