# A class derived from another of the file (EfficientNet's
# `MBConvConfig(_MBConvConfig)`): `super().__init__(...)` makes the base's
# part, and what the class does not define itself is the base's: its
# fields, its methods, its static methods, its `__init__` when it has none.
import copy
import math
from dataclasses import dataclass
from functools import partial

import torch
from torch import nn


def _make_divisible(v: float, divisor: int, min_value=None) -> int:
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


@dataclass
class _StageConfig:
    expand_ratio: float
    kernel: int
    input_channels: int
    out_channels: int
    num_layers: int

    @staticmethod
    def adjust_channels(channels: int, width_mult: float) -> int:
        return _make_divisible(channels * width_mult, 8)


class StageConfig(_StageConfig):
    def __init__(self, expand_ratio, kernel, input_channels, out_channels, num_layers, width_mult=1.0, depth_mult=1.0):
        input_channels = self.adjust_channels(input_channels, width_mult)
        out_channels = self.adjust_channels(out_channels, width_mult)
        num_layers = int(math.ceil(num_layers * depth_mult))
        super().__init__(expand_ratio, kernel, input_channels, out_channels, num_layers)


class PlainConfig(_StageConfig):
    pass


class Block(nn.Module):
    def __init__(self, cnf):
        super().__init__()
        hidden = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        self.expand = nn.Conv2d(cnf.input_channels, hidden, 1)
        self.mix = nn.Conv2d(hidden, cnf.out_channels, cnf.kernel, padding=cnf.kernel // 2)

    def forward(self, x):
        return self.mix(self.expand(x))


wide = StageConfig(4, 3, 16, 24, 2, width_mult=1.5)
sizes = torch.zeros(wide.input_channels, wide.out_channels, wide.num_layers)  #~ shape sizes: Tensor[24, 40, 2]
plain = PlainConfig(1, 5, 8, 8, 1)
kernel = torch.zeros(plain.kernel)  #~ shape kernel: Tensor[5]
hidden = torch.zeros(wide.adjust_channels(wide.input_channels, wide.expand_ratio))  #~ shape hidden: Tensor[96]

# A stage as EfficientNet builds it: each block a copy of the stage's
# configuration, the first one's input the stage's, the others' its output.
stage = []
for _ in range(wide.num_layers):
    block_cnf = copy.copy(wide)
    if stage:
        block_cnf.input_channels = block_cnf.out_channels
    stage.append(Block(block_cnf))
blocks = nn.Sequential(*stage)
out = blocks(torch.randn(2, 24, 16, 16))  #~ shape out: Tensor[2, 40, 16, 16]
wrong = blocks(torch.randn(2, 40, 16, 16))  #~ error: `nn.Conv2d` gets the wrong number of input channels


class Wider(Block):
    def __init__(self, cnf, extra):
        super().__init__(cnf)
        self.head = nn.Conv2d(cnf.out_channels, cnf.out_channels + extra, 1)

    def forward(self, x):
        return self.head(self.mix(self.expand(x)))


class Same(Block):
    pass


wider = Wider(plain, 4)(torch.randn(1, 8, 10, 10))  #~ shape wider: Tensor[1, 12, 10, 10]
same = Same(plain)(torch.randn(1, 8, 10, 10))  #~ shape same: Tensor[1, 8, 10, 10]


# The keyword arguments a builder passes on, `pop`ped one by one, and the
# configuration a prefix of its name picks.
def conf(arch: str, **kwargs):
    if arch.startswith("small"):
        make = partial(StageConfig, width_mult=kwargs.pop("width_mult"), depth_mult=kwargs.pop("depth_mult"))
        stages = [make(1, 3, 16, 16, 1), make(6, 3, 16, 24, 2)]
    elif arch.startswith("large"):
        stages = [StageConfig(1, 3, 32, 32, 4)]
    else:
        raise ValueError(f"unknown {arch}")
    return stages, len(kwargs)


stages, left = conf("small_x2", width_mult=2.0, depth_mult=1.5, num_classes=10)
first = torch.zeros(stages[1].input_channels, stages[1].num_layers, left)  #~ shape first: Tensor[32, 3, 1]


# An object changed by the function it is given is not what it was.
def retarget(cnf):
    cnf.out_channels = 7
    return cnf.out_channels


retargeted = StageConfig(1, 3, 16, 16, 1)
seven = torch.zeros(retarget(retargeted))  #~ shape seven: Tensor[7]
fits = torch.zeros(retargeted.out_channels) + torch.zeros(7)


# What the base's part cannot stand for is not followed, never stale: a
# class attribute the base's `__init__` reads, overridden by the derived
# class (Python reads the override), and a method of the base called in
# the derived `__init__` (Python runs it on the derived instance).
class Scaled(nn.Module):
    expansion = 1

    def __init__(self, c):
        super().__init__()
        self.fc = nn.Linear(c, c * self.expansion)

    def forward(self, x):
        return self.fc(x)


class Scaled4(Scaled):
    expansion = 4


scaled = Scaled4(8)(torch.randn(2, 8)) + torch.zeros(32)


class Headed(nn.Module):
    def __init__(self):
        super().__init__()
        self.width = 8

    def make_head(self):
        return nn.Linear(self.width, 10)


class Wide16(Headed):
    def __init__(self):
        super().__init__()
        self.width = 16
        self.head = self.make_head()

    def forward(self, x):
        return self.head(x)


headed = Wide16()(torch.randn(2, 16))


# A pop in a `while` condition runs once per test.
widths = [16, 32, 64]
while widths.pop() > 16:
    pass
left_over = torch.zeros(3) + torch.zeros(len(widths) + 3)
