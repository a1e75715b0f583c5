# `__init__` runs for each instance (PYTHON.md §2): branches on the
# constructor's arguments, counted loops that build lists, `ModuleList`,
# `ModuleDict`, `Sequential(OrderedDict(...))`, layer classes passed as
# arguments, and loops over layer lists in `forward`.
from collections import OrderedDict

import torch
import torch.nn as nn


class Stack(nn.Module):
    def __init__(self, width, depth, norm_layer=nn.BatchNorm1d, final=None):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(depth):
            self.layers.append(nn.Linear(width, width))
        self.norms = nn.ModuleList([norm_layer(width) for _ in range(depth)])
        if final is None:
            self.head = nn.Identity()
        else:
            self.head = nn.Linear(width, final)

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = self.norms[i](torch.relu(layer(x)))
        return self.head(x)


class Towers(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.branches = nn.ModuleDict({
            "small": nn.Conv2d(channels, 8, kernel_size=1),
            "large": nn.Conv2d(channels, 8, kernel_size=5, padding=2),
        })
        self.stem = nn.Sequential(OrderedDict([
            ("conv", nn.Conv2d(16, 32, 3, padding=1)),
            ("relu", nn.ReLU()),
        ]))

    def forward(self, x):
        a = self.branches["small"](x)
        b = self.branches.large(x)
        return self.stem(torch.cat([a, b], dim=1))


plain = Stack(16, 3)
y = plain(torch.randn(4, 16))  #~ shape y: Tensor[4, 16]
headed = Stack(16, 2, final=5)
z = headed(torch.randn(4, 16))  #~ shape z: Tensor[4, 5]
count = len(headed.layers)
wrong = headed(torch.randn(4, 12))  #~ error: in_features

towers = Towers(3)
t = towers(torch.randn(2, 3, 20, 20))  #~ shape t: Tensor[2, 32, 20, 20]
