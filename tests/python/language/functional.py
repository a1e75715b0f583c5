# Python's functions over functions (the documentation's "Built-in
# Functions" and `functools`): `map` calls a function on the items of one
# or more iterables (as far as the shortest goes), `filter` keeps the items
# a function holds true of (`None`: the true items), `functools.reduce`
# folds the items from the left, from its third argument where given. What
# they are given may be a lambda, a nested or top-level function, a class,
# a layer or module, or a `functools.partial`.
import inspect
from functools import partial, reduce

import torch
from torch import nn


def conv_block(c_in, c_out):
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.ReLU())


class Tower(nn.Sequential):
    def __init__(self, widths=(3, 8, 16, 32)):
        super().__init__(*map(conv_block, widths[:-1], widths[1:]))


class Folded(nn.Module):
    def __init__(self, widths=(4, 6, 10, 0, 12)):
        super().__init__()
        kept = list(filter(None, widths))
        self.layers = nn.ModuleList(map(lambda pair: nn.Linear(*pair), zip(kept, kept[1:])))
        self.wide = nn.Linear(4, sum(filter(lambda w: w > 5, widths)))

    def forward(self, x):
        return reduce(lambda h, layer: layer(h), self.layers, x), self.wide(x)


images = torch.randn(2, 3, 16, 16)
towered = Tower()(images)  #~ shape towered: Tensor[2, 32, 16, 16]
folded, wide = Folded()(torch.randn(5, 4))
folded_shape = folded  #~ shape folded_shape: Tensor[5, 12]
wide_shape = wide  #~ shape wide_shape: Tensor[5, 28]

t = torch.randn(4, 6)
halves = list(map(lambda k: t[:, :k], [1, 2, 3]))
third = halves[2]  #~ shape third: Tensor[4, 3]
stacked = torch.cat(list(map(torch.relu, [t, t])), dim=1)  #~ shape stacked: Tensor[4, 12]
summed = reduce(lambda a, b: a + b, [t, t, t])  #~ shape summed: Tensor[4, 6]
grown = reduce(lambda acc, k: torch.cat([acc, acc[:, :k]], dim=1), [1, 2], t)  #~ shape grown: Tensor[4, 9]
cut = partial(lambda v, k: v[:, :k], k=5)
parts = list(map(cut, [t, t]))
part = parts[1]  #~ shape part: Tensor[4, 5]
layered = reduce(lambda h, f: f(h), [nn.Linear(6, 3), nn.ReLU(), nn.Linear(3, 2)], t)  #~ shape layered: Tensor[4, 2]
wrong = reduce(lambda h, f: f(h), [nn.Linear(6, 3), nn.Linear(6, 2)], t)  #~ error: wrong number of input features


# `inspect.isclass`, `inspect.isfunction` and `callable` decide what a
# parameter that takes "a class, a factory or a layer" was given.
class Head(nn.Module):
    def __init__(self, width, out=None):
        super().__init__()
        if inspect.isclass(out):
            self.out = out(width, 3)
        elif inspect.isfunction(out):
            self.out = out(width)
        elif callable(out):
            self.out = out
        else:
            self.out = nn.Linear(width, 1)

    def forward(self, x):
        return self.out(x)


h = torch.randn(2, 8)
by_class = Head(8, nn.Linear)(h)  #~ shape by_class: Tensor[2, 3]
by_factory = Head(8, lambda w: nn.Linear(w, 5))(h)  #~ shape by_factory: Tensor[2, 5]
by_layer = Head(8, nn.Linear(8, 7))(h)  #~ shape by_layer: Tensor[2, 7]
by_default = Head(8)(h)  #~ shape by_default: Tensor[2, 1]


# `sorted`, `min` and `max` by a key: stable, `reverse` too; `min` and
# `max` give the first of the smallest or largest.
counts = {"a": 8, "b": 3, "c": 5}
by_count = sorted(counts, key=lambda name: counts[name])
smallest = nn.Linear(2, counts[by_count[0]])(torch.randn(1, 2))  #~ shape smallest: Tensor[1, 3]
longest = sorted(["x", "yy", "z"], key=lambda s: len(s), reverse=True)
first_short = nn.Linear(2, 10 if longest[1] == "x" else 20)(torch.randn(1, 2))  #~ shape first_short: Tensor[1, 10]
widest = nn.Linear(2, max([4, 9, 2], key=lambda w: -w))(torch.randn(1, 2))  #~ shape widest: Tensor[1, 2]
tied = nn.Linear(2, min(6, 7, 8, key=lambda w: w // 4))(torch.randn(1, 2))  #~ shape tied: Tensor[1, 6]


# A builtin named as a value is a function of one argument.
dims = list(map(int, "3 5".split()))
by_int = nn.Linear(2, dims[1])(torch.randn(1, 2))  #~ shape by_int: Tensor[1, 5]
shortest = sorted(["ccc", "a", "bb"], key=len)
by_len = nn.Linear(2, 4 if shortest[0] == "a" else 9)(torch.randn(1, 2))  #~ shape by_len: Tensor[1, 4]
by_abs = nn.Linear(2, sum(map(abs, [-2, 3])))(torch.randn(1, 2))  #~ shape by_abs: Tensor[1, 5]
