# What tensorfit does not model is unknown, never an error: packages it does
# not read, operations it does not know, attributes of unknown values,
# dynamic Python. Nothing in this file may be reported.
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from einops import rearrange
from timm.layers import DropPath


class Block(nn.Module):
    def __init__(self, dim, heads=8, drop_path=0.1, config=None):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, dim)
        self.drop_path = DropPath(drop_path) if drop_path > 0 else nn.Identity()
        self.scale = (dim // heads) ** -0.5
        self.extra = config.extra_layer if config is not None else None
        for name, p in self.named_parameters():
            setattr(self, name + "_copy", p)

    def forward(self, x, mask=None):
        y = rearrange(x, "b n (h d) -> b h n d", h=8)
        z = torch.fft.rfft(x, dim=-1)
        w = np.zeros((3, 4)) @ np.ones((4, 5))
        if mask is not None:
            x = x.masked_fill(~mask, 0.0)
        x = x + self.drop_path(self.proj(self.norm(x)))
        x = x * math.sqrt(self.scale) + z.real.mean()
        x = x.to(x.device).cuda().float()
        out = [layer(x) for layer in self.layers]
        return x, y, out


block = Block(64)
x = torch.randn(2, 16, 64)
result = block(x)
lazy = getattr(torch, "randn")(3, 3) @ torch.randn(4, 4)
