# §2: lists by literal, append, extend, + and comprehension; Sequential
# from a list and from an OrderedDict; ModuleList and ModuleDict.
from collections import OrderedDict

import torch.nn as nn


class Net(nn.Module):
    def __init__(self, depths=(1, 2)):
        super().__init__()
        layers = [nn.Conv2d(3, 8, 3)]
        layers.extend([nn.ReLU()])
        layers = layers + [nn.Flatten()]
        self.stem = nn.Sequential(*layers)
        self.named = nn.Sequential(OrderedDict([("conv", nn.Conv2d(8, 8, 1)), ("act", nn.ReLU())]))
        self.blocks = nn.ModuleList([nn.Linear(d, d) for d in depths])
        self.heads = nn.ModuleDict({"cls": nn.Linear(8, 2), "box": nn.Linear(8, 4)})

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.heads["cls"](x)
