from dataclasses import dataclass, field


@dataclass
class Config:
    hidden: int = 16
    lr: float = 1e-3
    parts: tuple = field(default=("encoder", "decoder"))
