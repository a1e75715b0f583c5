# `functools.partial` objects passed as arguments (PYTHON.md §2) and the
# `Lazy*` layers, whose inferred size is a hole (PYTHON.md §5).
import functools
from functools import partial

import torch
from torch import nn


class ConvNormAct(nn.Module):
    def __init__(self, cin, cout, norm_layer=nn.BatchNorm2d):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1, bias=False)
        self.norm = norm_layer(cout)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.norm(self.conv(x)))


class Stem(nn.Module):
    def __init__(self, width, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = partial(nn.BatchNorm2d, eps=1e-3, momentum=0.01)
        self.first = ConvNormAct(3, width, norm_layer)
        self.second = ConvNormAct(width, 2 * width, norm_layer)

    def forward(self, x):
        return self.second(self.first(x))


stem = Stem(16)
features = stem(torch.randn(2, 3, 8, 8))  #~ shape features: Tensor[2, 32, 8, 8]
grouped = Stem(8, norm_layer=functools.partial(nn.GroupNorm, 4))
by_groups = grouped(torch.randn(1, 3, 4, 4))  #~ shape by_groups: Tensor[1, 16, 4, 4]

# A partial of a partial adds its arguments after the first's; a keyword
# of the call overrides the partial's.
wide_linear = partial(partial(nn.Linear, 8), 32)
projected = wide_linear(bias=False)(torch.randn(5, 8))  #~ shape projected: Tensor[5, 32]

# The partial's channel count is the wrong one for this input.
too_few = partial(nn.BatchNorm2d, 6)()
normed = too_few(torch.randn(2, 4, 3, 3))  #~ error


class LazyHead(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.conv = nn.LazyConv2d(8, kernel_size=3)  #~ hole: 3
        self.norm = nn.LazyBatchNorm2d()  #~ hole: 8
        self.fc = nn.LazyLinear(classes)  #~ hole: 200

    def forward(self, x):
        x = self.norm(self.conv(x))
        return self.fc(torch.flatten(x, 1))


head = LazyHead(10)
scores = head(torch.randn(4, 3, 7, 7))  #~ shape scores: Tensor[4, 10]
