# Functions called through a class (PYTHON.md §2): class methods and the
# static methods of classes that are not modules, found along the class's
# bases in the file. Inside a class method called through a class of the
# file, `cls` is that class (`cls(...)` builds it, `cls.helper(...)` calls
# its functions); called any other way, `cls` is unknown.
# The static methods of a module or a plain class are its methods, called
# on an instance (inlined in `__init__` without a `self`), and class
# functions, called through the class (also in a `partial`).
from functools import partial

import torch
from torch import nn


class Sizes(dict):
    @staticmethod
    def hidden(width):
        return width * 4


class Config(Sizes):
    @classmethod
    def heads(cls, width):
        return width // 64

    @classmethod
    def named(cls, name):
        return cls.lookup(name)


class Block(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.up = nn.Linear(width, Config.hidden(width))
        self.down = nn.Linear(Config.hidden(width), width)

    @classmethod
    def wide(cls, width):
        return Block(width * 2)

    def forward(self, x):
        return self.down(torch.relu(self.up(x)))


x = torch.randn(2, 128)
y = Block(128)(x)  #~ shape y: Tensor[2, 128]
z = Block.wide(64)(x)  #~ shape z: Tensor[2, 128]
heads = Config.heads(128)
per_head = x.view(2, heads, 64)  #~ shape per_head: Tensor[2, 2, 64]
bad = Block.wide(32)(x)  #~ error: `nn.Linear` gets the wrong number of input features


class LayerConfig:
    def __init__(self, channels: int, width_mult: float):
        self.channels = self.adjust(channels, width_mult)

    @staticmethod
    def adjust(channels: int, width_mult: float):
        return int(channels * width_mult)


adjust = partial(LayerConfig.adjust, width_mult=0.5)
conv = nn.Conv2d(3, LayerConfig(64, 0.5).channels, 1)(torch.randn(1, 3, 4, 4))  #~ shape conv: Tensor[1, 32, 4, 4]
through_class = torch.zeros(LayerConfig.adjust(10, 1.5), adjust(10))  #~ shape through_class: Tensor[15, 5]


class StageParams:
    def __init__(self, widths, depth: int):
        self.widths = widths
        self.depth = depth

    @classmethod
    def doubled(cls, width: int, depth: int, **kwargs):
        widths = cls._double([width] * depth)
        return cls(widths, depth)

    @staticmethod
    def _double(widths):
        return [2 * w for w in widths]


class WideParams(StageParams):
    pass


params = StageParams.doubled(16, 3)
stage = nn.Linear(params.widths[0], params.depth)(torch.randn(2, 32))  #~ shape stage: Tensor[2, 3]
wrong_stage = nn.Linear(params.widths[2], 4)(torch.randn(2, 16))  #~ error: `nn.Linear` gets the wrong number of input features
# Built through a derived class, `cls` is the derived class (whose
# instance, with no body of its own, is not followed yet: unknown, never
# the base's).
wide = WideParams.doubled(4, 2)
wide_stage = nn.Linear(wide.widths[1], 1)(torch.randn(5, 8))
fits = wide_stage + torch.zeros(5, 1)
