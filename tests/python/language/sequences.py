# Python's builtins over iterables (the Python documentation's "Built-in
# Functions"): `list`, `tuple`, `sorted`, `reversed`, `enumerate`, `range`
# as a value, `any`, `all`, and `sum`, `min`, `max` and `tuple` of a
# generator. Each goes over what Python iterates: a list's or tuple's
# items, a string's characters, a dict's keys, a shape's sizes.
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, widths=(8, 4, 16), dims="3 5"):
        super().__init__()
        ordered = sorted(widths)
        self.first = nn.Linear(2, ordered[0])
        self.last = nn.Linear(2, list(reversed(widths))[0])
        sizes = tuple(int(d) for d in dims.split())
        self.sized = nn.Linear(2, sizes[1])
        self.count = nn.Linear(2, len(list(range(1, 10, 3))))
        pairs = list(enumerate(widths, 1))
        self.pair = nn.Linear(2, pairs[2][0] + pairs[2][1])
        some = any([w > 10 for w in widths])
        every = all([w > 2 for w in widths])
        self.flag = nn.Linear(2, 1 if some and every else 7)
        self.total = nn.Linear(2, sum(w for w in widths) + max(w * 2 for w in widths))
        self.keys = nn.Linear(2, len(sorted({"b": 1, "a": 2, "c": 3})[0] * 6))

    def forward(self, x):
        return (
            self.first(x),
            self.last(x),
            self.sized(x),
            self.count(x),
            self.pair(x),
            self.flag(x),
            self.total(x),
            self.keys(x),
        )


outs = Net()(torch.randn(5, 2))
smallest = outs[0]  #~ shape smallest: Tensor[5, 4]
last = outs[1]  #~ shape last: Tensor[5, 16]
sized = outs[2]  #~ shape sized: Tensor[5, 5]
counted = outs[3]  #~ shape counted: Tensor[5, 3]
pair = outs[4]  #~ shape pair: Tensor[5, 19]
flag = outs[5]  #~ shape flag: Tensor[5, 1]
total = outs[6]  #~ shape total: Tensor[5, 60]
keys = outs[7]  #~ shape keys: Tensor[5, 6]
small = Net(widths=(3, 4, 5))(torch.randn(5, 2))[5]  #~ shape small: Tensor[5, 7]
wrong = Net()(torch.randn(5, 3))  #~ error: wrong number of input features
