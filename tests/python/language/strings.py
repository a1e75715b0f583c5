# Python's `str` methods and `is` on literals (the Python documentation's
# "String Methods" and "Format String Syntax"; "Identity comparisons"):
# model code names its modules with `"{}".format(i)`, `"_".join(...)` and
# `split`, and picks configurations with `startswith` and `is`. Each
# result is Python's where the string and arguments are known; CPython's
# `is` holds of equal identifier-like strings and small integers, which it
# keeps one object of.
import torch
from torch import nn


def stack(depth, prefix="unit"):
    seq = nn.Sequential()
    for i in range(depth):
        seq.add_module("{}{:02d}".format(prefix, i + 1), nn.Linear(8, 8))
    seq.add_module("_".join(["head", str(depth)]), nn.Linear(8, 3))
    return seq


s = stack(2)
x = torch.randn(4, 8)
y = s(x)  #~ shape y: Tensor[4, 3]
first = s.unit01(x)  #~ shape first: Tensor[4, 8]
head = s.head_2(x)  #~ shape head: Tensor[4, 3]
named = stack(1, prefix="{name}-".format(name="b").replace("-", ""))
b01 = named.b01(x)  #~ shape b01: Tensor[4, 8]


def width_of(arch):
    family, size = arch.split("_", 1)
    if family.startswith(("res", "wide")) and size.isdigit():
        return int(size)
    return len(arch.rstrip("x").upper().center(9, "*"))


# The same format specification in its other spellings: an f-string's
# `{x:spec}` and `{x!r}`, `format(x, spec)`, `repr(x)`, printf-style `%`;
# and a string indexed and sliced.
def stack_spelled(depth, tag="c"):
    seq = nn.Sequential()
    for i in range(depth):
        seq.add_module(f"{tag!s}{i:02d}", nn.Linear(8, 8))
    seq.add_module("head%03d" % depth, nn.Linear(8, 8))
    seq.add_module(format(depth, ">3").strip() + repr("x")[1] + "abc"[-2:], nn.Linear(8, 3))
    return seq


spelled = stack_spelled(2)
c01 = spelled.c01(x)  #~ shape c01: Tensor[4, 8]
head002 = spelled.head002(x)  #~ shape head002: Tensor[4, 8]
last = getattr(spelled, "2xbc")(x)  #~ shape last: Tensor[4, 3]

res = nn.Linear(8, width_of("resnet_18"))(x)  #~ shape res: Tensor[4, 18]
vit = nn.Linear(8, width_of("vit_bxx"))(x)  #~ shape vit: Tensor[4, 9]


class Block(nn.Module):
    def __init__(self, block_type="proj", scale=2):
        super().__init__()
        if block_type is "proj" and scale is 2:
            self.f = nn.Linear(8, 16)
        else:
            self.f = nn.Linear(8, 4)

    def forward(self, x):
        return self.f(x)


proj = Block()(x)  #~ shape proj: Tensor[4, 16]
other = Block("plain")(x)  #~ shape other: Tensor[4, 4]
bad = Block()(torch.randn(4, 3))  #~ error: wrong number of input features
