from typing import Dict, List

import torch


class FloatLossDict(Dict[str, float]):
    def total(self) -> float:
        return sum(self.values())


class LossDict(Dict[str, torch.Tensor]):
    def total(self) -> torch.Tensor:
        return sum(self.values())

    def to_float_lossdict(self) -> FloatLossDict:
        fld = FloatLossDict()
        for key in self.keys():
            fld[key] = self[key].detach().clone().cpu().item()
        return fld


def average_float_loss_dict(dicts: List[FloatLossDict]) -> Dict[str, float]:
    return {key: sum(d[key] for d in dicts) / len(dicts) for key in dicts[0]}
