# §2: a helper method that builds layers, a class and a partial passed as
# arguments, and a config object.
from dataclasses import dataclass
from functools import partial

import torch.nn as nn


@dataclass
class Config:
    width: int = 16
    depth: int = 2


class Stage(nn.Module):
    def __init__(self, cfg, block=nn.Conv2d, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = partial(nn.BatchNorm2d, eps=1e-3)
        self.layers = self._make_layer(block, cfg.width, cfg.depth)
        self.norm = norm_layer(cfg.width)

    def _make_layer(self, block, width, depth):
        return nn.Sequential(*[block(width, width, 3, padding=1) for _ in range(depth)])

    def forward(self, x):
        return self.norm(self.layers(x))
