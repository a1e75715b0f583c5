# Functions made inside a body (the Python language reference, "Lambdas"
# and "Function definitions"; the tutorial's "Defining Functions"): a
# `lambda` or nested `def` is a value that can be called where it is made,
# stored, passed, returned and given to `functools.partial`. Its body reads
# the parameters and locals of the function around it (a closure), and its
# defaults are evaluated where it is made.
# Python reads a free name when the function runs: a name assigned again
# after the function is made, or a loop variable, has a value tensorfit
# does not pin to one place, so what depends on it is unknown, never the
# value it had when the function was made.
import functools

import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, c_in, c_out, activation=lambda: nn.ReLU(inplace=True), norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or (lambda c: nn.BatchNorm2d(c))
        self.conv = nn.Conv2d(c_in, c_out, 3, padding=1)
        self.norm = norm_layer(c_out)
        self.act = activation()
        self.pool = lambda t: F.max_pool2d(t, 2)

    def forward(self, x):
        return self.pool(self.act(self.norm(self.conv(x))))


def make_scale(k):
    def scale(x):
        return x[:, :k]

    return scale


def apply_twice(f, x):
    return f(f(x))


def widen(x, width):
    pad = lambda t, extra=width: torch.cat([t, t[:, :extra]], dim=1)
    return pad(x)


def nested(x, n):
    def first(t):
        return t[:, :n]

    def second(t):
        return first(t) * 2

    return second(x)


def late(x):
    k = 2
    cut = lambda t: t[:, :k]
    k = 3
    return cut(x)


def in_loop(x):
    cuts = []
    for k in range(1, 3):
        cuts.append(lambda t: t[:, :k])
    return cuts[0](x)


def widths_kept(x, width):
    conv = lambda c: nn.Conv2d(c, width, 3)
    return conv(3)(x), nn.Linear(width, 2)


def appended(x):
    layers = [nn.Linear(10, 4)]

    def grow():
        layers.append(nn.Linear(4, 3))

    grow()
    return nn.Sequential(*layers)(x)


x = torch.randn(2, 3, 16, 16)
y = Block(3, 8)(x)  #~ shape y: Tensor[2, 8, 8, 8]
grouped = Block(3, 8, activation=lambda: nn.GELU(), norm_layer=lambda c: nn.GroupNorm(2, c))(x)  #~ shape grouped: Tensor[2, 8, 8, 8]

t = torch.randn(4, 10)
twice = (lambda v: v * 2)(t)  #~ shape twice: Tensor[4, 10]
keyword = (lambda v, w: v @ w)(w=torch.randn(10, 6), v=t)  #~ shape keyword: Tensor[4, 6]
gathered = (lambda *vs: torch.cat(vs, dim=1))(t, t)  #~ shape gathered: Tensor[4, 20]
named = (lambda **kw: kw["a"] + kw["b"])(a=t, b=t)  #~ shape named: Tensor[4, 10]
scaled = make_scale(3)(t)  #~ shape scaled: Tensor[4, 3]
folded = apply_twice(make_scale(7), t)  #~ shape folded: Tensor[4, 7]
reduced = apply_twice(lambda v: v.sum(0, keepdim=True), t)  #~ shape reduced: Tensor[1, 10]
wider = widen(t, 4)  #~ shape wider: Tensor[4, 14]
both = nested(t, 5)  #~ shape both: Tensor[4, 5]
part = functools.partial(lambda v, k: v[:k], k=2)(t)  #~ shape part: Tensor[2, 10]
later = late(t)  #~ shape later: Tensor[4, ?]
looped = in_loop(t)  #~ shape looped: Tensor[4, ?]

kept, kept_linear = widths_kept(x, 16)
kept_shape = kept  #~ shape kept_shape: Tensor[2, 16, 14, 14]
kept_out = kept_linear(torch.randn(4, 16))  #~ shape kept_out: Tensor[4, 2]
# A list a nested function changes is unknown to the function around it
# (PyTorch gives [4, 3]); a number it only passes to a call is kept.
grown = appended(t)

act = (lambda: nn.ReLU(inplace=True))()
activated = act(torch.randn(2, 7))  #~ shape activated: Tensor[2, 7]
lin = nn.Linear(5, 2)
bad = (lambda v: lin(v))(torch.randn(4, 3))  #~ error: `nn.Linear` gets the wrong number of input features
bad_block = Block(4, 8)(x)  #~ error: wrong number of input channels


# An object whose class defines `__call__` is called through it, as a
# function is (a module's `__call__` runs its `forward`).
class Keep:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return x[:, : self.k]


kept_by_object = Keep(3)(t)  #~ shape kept_by_object: Tensor[4, 3]
kept_twice = apply_twice(Keep(2), t)  #~ shape kept_twice: Tensor[4, 2]


# A list changed in place after the function is made is not the list the
# function took: PyTorch builds both layers, and `Linear(3, 2)` fits.
def changed_later(x):
    layers = [nn.Linear(10, 4)]
    build = lambda: nn.Sequential(*layers)
    layers.append(nn.Linear(4, 3))
    return build()(x)


checked_later = nn.Linear(3, 2)(changed_later(t))
script_layers = [nn.Linear(10, 4)]
script_build = lambda: nn.Sequential(*script_layers)
script_layers.append(nn.Linear(4, 3))
checked_script = nn.Linear(3, 2)(script_build()(t))
