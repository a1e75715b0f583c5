# Sizes computed with tensor arithmetic on known items, as RegNet computes
# its stage widths: `torch.arange`, `torch.tensor` of a list, `+ - * /`,
# `torch.log`, `torch.pow`, `torch.round`, `torch.divide`, `torch.diff`,
# `.int()`, `.tolist()`, with PyTorch's element types (an int64 tensor
# times a Python float is float32) and rounding (ties to even).
import math

import torch
import torch.nn as nn
from torch import Tensor


def stage_widths(depth: int, w_0: int, w_a: float, w_m: float):
    widths_cont = torch.arange(depth) * w_a + w_0
    capacity = torch.round(torch.log(widths_cont / w_0) / math.log(w_m))
    widths = (torch.round(torch.divide(w_0 * torch.pow(w_m, capacity), 8)) * 8).int().tolist()
    num_stages = len(set(widths))
    splits = [w != wp for w, wp in zip(widths + [0], [0] + widths)]
    stage = [w for w, t in zip(widths, splits[:-1]) if t]
    depths = torch.diff(torch.tensor([d for d, t in enumerate(splits) if t])).int().tolist()
    return num_stages, stage, depths


count, widths, depths = stage_widths(16, 48, 27.89, 2.09)
stages = torch.zeros(count)  #~ shape stages: Tensor[4]
first = torch.zeros(widths[0], widths[3])  #~ shape first: Tensor[48, 440]
blocks = torch.zeros(depths[0], depths[1], depths[2], depths[3])  #~ shape blocks: Tensor[1, 3, 6, 6]

# 80 * 2.25 / 8 is 22.5, a tie: rounded to the even 22.
count, widths, depths = stage_widths(18, 80, 34.01, 2.25)
tie = torch.zeros(widths[1])  #~ shape tie: Tensor[176]

# float32 arithmetic, not Python's double: 0.1 * 3 is 0.3 in float32, and
# truncating (0.3 * 10) gives 3 (Python's 0.1 * 3 * 10 is 3.0000000000000004).
tenths = (torch.tensor([0.1]) * 3 * 10).int().tolist()
three = torch.zeros(tenths[0])  #~ shape three: Tensor[3]
halves = torch.round(torch.tensor([1.5, 2.5, 3.5, 4.5])).int().tolist()
even = torch.zeros(halves[0], halves[1], halves[2], halves[3])  #~ shape even: Tensor[2, 2, 4, 4]

# A tensor with known items is still a tensor of its shape everywhere else.
ramp = torch.arange(6)  #~ shape ramp: Tensor[6]
grid = ramp.reshape(2, 3) * 2  #~ shape grid: Tensor[2, 3]
steps = torch.diff(torch.zeros(4, 5), dim=0)  #~ shape steps: Tensor[3, 5]
# Empty (n past the size): not followed, like every empty tensor.
rows = torch.diff(torch.zeros(4, 5), n=7)
nothing = torch.diff(torch.tensor([3]))
int_view = torch.zeros(2, 3).int()  #~ shape int_view: Tensor[2, 3]
rounded = torch.round(torch.randn(4, 2))  #~ shape rounded: Tensor[4, 2]
quotient = torch.divide(torch.randn(4, 2), torch.randn(2))  #~ shape quotient: Tensor[4, 2]


# Modules built from those widths, reached by a name that is no identifier
# (`getattr(stage, "block1-0")`, as RegNet registers its blocks).
class Stage(nn.Sequential):
    def __init__(self, widths) -> None:
        super().__init__()
        for i, w in enumerate(widths[1:]):
            self.add_module(f"block-{i}", nn.Linear(widths[i], w))


stage = Stage(torch.tensor([3, 5, 7]).tolist())
block = getattr(stage, "block-1")(torch.randn(2, 5))  #~ shape block: Tensor[2, 7]
whole = stage(torch.randn(2, 3))  #~ shape whole: Tensor[2, 7]


class Named(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        for i in range(3):
            setattr(self, f"layer{i}", nn.Linear(4, 4 + i))

    def forward(self, x: Tensor) -> Tensor:
        return getattr(self, f"layer{2}")(x)


named = Named()(torch.randn(2, 4))  #~ shape named: Tensor[2, 6]


# A change in place (`add_`, `+=`, `x[0] = ...`, `out=`, through another
# name or a function) may reach the items through any name: from the
# statement that may make it on, they are not known, and the shape still is.
changed = torch.arange(3)
changed.add_(1)
stale = torch.zeros(changed.tolist()[2])
fits = stale + torch.zeros(3)
alias_source = torch.arange(3)
alias = alias_source
alias += 5
via_alias = torch.zeros(alias_source.tolist()[0])
fits = via_alias + torch.zeros(5)
still_three = alias_source + torch.zeros(3)  #~ shape still_three: Tensor[3]


def bump(x):
    x += 4


passed = torch.arange(1, 4)
bump(passed)
bumped = torch.zeros(passed.tolist()[0])
fits = bumped + torch.zeros(5)


class Weighted(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = torch.arange(1, 4) * 3
        self.w.add_(1)
        widths = self.w.tolist()
        self.fc = nn.Linear(widths[0], widths[1])

    def forward(self, x: Tensor) -> Tensor:
        return self.fc(x)


weighted = Weighted()(torch.randn(2, 4))
fits = weighted + torch.zeros(2, 7)

# Conversions that change the items: `.bool()`, `.byte()`, `.short()`.
flags = torch.tensor([0, 2, 3]).bool().long().tolist()
fits = torch.zeros(flags[1] + 1) + torch.zeros(2)
wrapped = torch.tensor([300, -1]).byte().tolist()
fits = torch.zeros(wrapped[0], wrapped[1]) + torch.zeros(44, 255)

# A keyword the analysis does not model: the items are not computed.
decimals = (torch.round(torch.tensor([1.26, 2.5]), decimals=1) * 10).int().tolist()
fits = torch.zeros(decimals[0]) + torch.zeros(13)

# `41 / t` is `t.reciprocal() * 41` in PyTorch: 0.99999994, truncated to 0.
ratio = (41 / torch.tensor([41.0])).int().tolist()
zero_plus_two = torch.zeros(ratio[0] + 2)  #~ shape zero_plus_two: Tensor[2]
remainder = ((torch.tensor([1e20]) % 3) + 1).int().tolist()
three_again = torch.zeros(remainder[0])  #~ shape three_again: Tensor[3]
quarters = torch.arange(1, 10, 2.5)  #~ shape quarters: Tensor[4]
halves_count = torch.zeros(len(set([3 / 2, 1])))  #~ shape halves_count: Tensor[2]

# numpy's linspace, as numpy computes it in float64 (MaxViT's stochastic
# depth rates: the first is 0.0, so `if p:` is decided), and `sum`.
import numpy as np

rates = np.linspace(0, 0.2, sum([2, 2, 5, 2])).tolist()
rate_count = torch.zeros(len(rates))  #~ shape rate_count: Tensor[11]
per_mille = torch.zeros(int(rates[3] * 1000))  #~ shape per_mille: Tensor[60]
sevenths = (np.linspace(1, 2, 8) * 7).tolist()
seven_to_fourteen = torch.zeros(int(sevenths[0]), int(sevenths[7]))  #~ shape seven_to_fourteen: Tensor[7, 14]


class Dropped(nn.Module):
    def __init__(self, p: float) -> None:
        super().__init__()
        if p:
            self.drop = nn.Dropout(p)
        else:
            self.drop = nn.Identity()
        self.fc = nn.Linear(4, 8)

    def forward(self, x: Tensor) -> Tensor:
        return self.drop(self.fc(x))


undropped = Dropped(rates[0])(torch.randn(2, 4))  #~ shape undropped: Tensor[2, 8]
dropped = Dropped(rates[1])(torch.randn(2, 4))  #~ shape dropped: Tensor[2, 8]

# A relative position index, as MaxViT and Swin compute one.
coords = torch.stack(torch.meshgrid([torch.arange(7), torch.arange(7)]))  #~ shape coords: Tensor[2, 7, 7]
flat = torch.flatten(coords, 1)
relative = (flat[:, :, None] - flat[:, None, :]).permute(1, 2, 0)  #~ shape relative: Tensor[49, 49, 2]
swapped = torch.swapaxes(torch.randn(2, 3, 4), -2, -3)  #~ shape swapped: Tensor[3, 2, 4]
