# Python's `enum` (the `enum` module's documentation): a class derived from
# `Enum`, `IntEnum`, `StrEnum` or `Flag` has its class attributes as
# members, each one object of the class. `Mode.SAME == Mode.SAME` and `is`
# hold of a member and itself only; a member of an `IntEnum` or of
# `class E(str, Enum)` is also the `int` or `str` it holds, equal to it
# and computing as it; `E(value)` and `E["NAME"]` look a member up;
# `for m in E` goes over the members, aliases left out; `auto()` counts on
# from the member before it.
from enum import Enum, IntEnum, auto

import torch
from torch import nn


class Mode(str, Enum):
    SAME = "same"
    DOUBLE = "double"
    TRIPLE = "triple"


class Width(IntEnum):
    NARROW = 8
    WIDE = auto()
    WIDEST = auto()


class Act(Enum):
    RELU = 1
    GELU = 2
    DEFAULT = 1


# An `__init__` that returns early on one mode and sets the projection on
# the others: each instance follows its own path.
class Block(nn.Module):
    def __init__(self, channels, mode=Mode.DOUBLE):
        super().__init__()
        self.proj = None
        if mode == Mode.SAME:
            return
        if mode is Mode.TRIPLE:
            self.proj = nn.Conv2d(channels, channels * 3, 1)
            return
        self.proj = nn.Conv2d(channels, channels * 2, 1)

    def forward(self, x):
        if self.proj is None:
            return x
        return self.proj(x)


x = torch.randn(2, 16, 8, 8)
double = Block(16)(x)  #~ shape double: Tensor[2, 32, 8, 8]
same = Block(16, Mode.SAME)(x)  #~ shape same: Tensor[2, 16, 8, 8]
triple = Block(16, Mode("triple"))(x)  #~ shape triple: Tensor[2, 48, 8, 8]
# A `str` enumeration's member equals its string.
by_text = Block(16, "same")(x)  #~ shape by_text: Tensor[2, 16, 8, 8]
by_name = Block(16, Mode["TRIPLE"])(x)  #~ shape by_name: Tensor[2, 48, 8, 8]


class Head(nn.Module):
    def __init__(self, width=Width.NARROW, act=Act.DEFAULT):
        super().__init__()
        # An `IntEnum` member computes as its number; `auto()` is 9, 10.
        self.fc = nn.Linear(4, width * 2)
        # `DEFAULT` has `RELU`'s value: it is `RELU`.
        self.act = nn.ReLU() if act is Act.RELU else nn.Identity()
        total = 0
        for w in Width:
            total += w.value
        self.all = nn.Linear(4, total)
        self.named = nn.Linear(4, len(Act.GELU.name))
        # A plain member equals no number.
        self.plain = nn.Linear(4, 1 if Act.RELU == 1 else 5)

    def forward(self, x):
        return self.act(self.fc(x)), self.all(x), self.named(x), self.plain(x)


h = torch.randn(3, 4)
outputs = Head()(h)
fc = outputs[0]  #~ shape fc: Tensor[3, 16]
every = outputs[1]  #~ shape every: Tensor[3, 27]
named = outputs[2]  #~ shape named: Tensor[3, 4]
plain = outputs[3]  #~ shape plain: Tensor[3, 5]
wide = Head(Width(10))(h)[0]  #~ shape wide: Tensor[3, 20]
wrong = Head()(torch.randn(3, 5))  #~ error: wrong number of input features
