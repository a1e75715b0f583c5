# The modules a container class registers (PyTorch's `nn.Module`
# documentation: `_modules`, `children()`, `named_children()`, iterating
# over an `nn.Sequential`, `nn.ModuleList` or `nn.ModuleDict`): a class
# derived from one of them, whose `__init__` tensorfit follows, goes over
# what its `super().__init__(...)` registered, in order. A class derived
# from `nn.Sequential` without an `__init__` of its own registers its
# arguments in PyTorch's `__init__`, which tensorfit does not read: what
# its `forward` computes from them is unknown, never a guess.
import functools

import torch
from torch import nn


class Chain(nn.Sequential):
    def __init__(self, *layers):
        super().__init__(*layers)

    def forward(self, x):
        for module in self._modules.values():
            x = module(x)
        return x


class Folded(nn.Sequential):
    def __init__(self, *layers):
        super().__init__(*layers)

    def forward(self, x):
        return functools.reduce(lambda h, m: m(h), self, x)


class Named(nn.ModuleDict):
    def __init__(self):
        super().__init__({"a": nn.Linear(4, 6), "b": nn.Linear(6, 3)})

    def forward(self, x):
        for name, child in self.named_children():
            x = child(x)
        return x, len(list(self.children()))


class Bare(nn.Sequential):
    def forward(self, x):
        for module in self._modules.values():
            x = module(x)
        return x


x = torch.randn(3, 4)
chained = Chain(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 7))(x)  #~ shape chained: Tensor[3, 7]
folded = Folded(nn.Linear(4, 5), nn.Linear(5, 9))(x)  #~ shape folded: Tensor[3, 9]
named, count = Named()(x)
named_shape = named  #~ shape named_shape: Tensor[3, 3]
counted = nn.Linear(2, count)(torch.randn(1, 2))  #~ shape counted: Tensor[1, 2]
bare = Bare(nn.Linear(4, 5), nn.Linear(5, 7))(x)
wrong = Chain(nn.Linear(4, 5), nn.Linear(6, 7))(x)  #~ error: wrong number of input features
