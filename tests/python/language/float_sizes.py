# Python's numbers decide sizes: floats computed from literals
# (`width_mult`), `int`, `round`, `math.ceil`, `math.floor`, `min`, `max`,
# `abs`, `//` on floats, and `a if c else b`.
import math
from typing import Optional

import torch
from torch import nn


def make_divisible(v: float, divisor: int, min_value: Optional[int] = None) -> int:
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class Stem(nn.Module):
    def __init__(self, width_mult: float = 1.0, depth_mult: float = 1.0):
        super().__init__()
        channels = make_divisible(32 * width_mult, 8)
        layers = [nn.Conv2d(3, channels, 3, padding=1)]
        for _ in range(int(math.ceil(2 * depth_mult))):
            layers.append(nn.Conv2d(channels, channels, 3, padding=1))
        self.body = nn.Sequential(*layers)
        self.out_channels = channels

    def forward(self, x):
        return self.body(x)


x = torch.randn(2, 3, 8, 8)
narrow = Stem(width_mult=0.75)(x)  #~ shape narrow: Tensor[2, 24, 8, 8]
wide = Stem(width_mult=1.4, depth_mult=1.2)(x)  #~ shape wide: Tensor[2, 48, 8, 8]
deep = Stem(depth_mult=1.6).body[3](torch.randn(2, 32, 8, 8))  #~ shape deep: Tensor[2, 32, 8, 8]

rounded = torch.zeros(round(2.5), round(3.5), round(2.6))  #~ shape rounded: Tensor[2, 4, 3]
floored = torch.zeros(math.floor(7 / 2), int(7.9 // 2), abs(-3))  #~ shape floored: Tensor[3, 3, 3]
least = torch.zeros(min(5, 4, 6), max([2, 3]), int(max(1.0, 0.5) * 3))  #~ shape least: Tensor[4, 3, 3]

ratio = 0.25
hidden = 4 if ratio > 0.5 else 2
mlp = nn.Sequential(nn.Linear(8, hidden * 8), nn.ReLU(), nn.Linear(hidden * 8, 8))
out = mlp(torch.randn(2, 8))  #~ shape out: Tensor[2, 8]
inner = mlp[0](torch.randn(2, 8))  #~ shape inner: Tensor[2, 16]
bad = nn.Linear(int(8 * 1.5), 2)(torch.randn(2, 8))  #~ error: `nn.Linear` gets the wrong number of input features
