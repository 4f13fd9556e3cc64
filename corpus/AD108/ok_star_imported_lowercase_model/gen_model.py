# The model of ok_star_imported_lowercase_model/train.py (not a case itself).
import torch
from torch import nn


class styletransfer(nn.Module):
    """An embedding, an encoder and a decoder, with the auto-encoder's
    parameters gathered in a named list (a lower-case class, as some
    research code writes them)."""

    def __init__(self):
        super().__init__()
        self.emb_matrix = nn.Linear(6, 8)
        self.enc = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
        self.dec = nn.Linear(8, 6)
        self.enc_params = list(self.enc.parameters())
        self.aed_params = list(self.emb_matrix.parameters()) + self.enc_params + list(self.dec.parameters())

    def encoder(self, x):
        return self.enc(self.emb_matrix(x))

    def decoder(self, enc_out):
        return self.dec(enc_out)
