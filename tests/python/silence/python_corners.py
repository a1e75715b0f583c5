# Python that is no shape error, and was once reported or crashed the
# checker. Nothing in this file may be reported.
import random

import torch
import torch.nn as nn


# A decorated function, called from the script: its summary's positions
# are anchored in its place, decorators included.
@torch.no_grad()
def doubled(x):
    return x * 2


twice = doubled(torch.randn(3, 4))  #~ shape twice: Tensor[3, 4]


# Python's own `random`, whose `randint` is not torch's.
class Shuffler:
    def __init__(self):
        self._rng = random.Random(0)
        self._buffer = []

    def pick(self):
        return self._rng.randint(0, len(self._buffer) - 1)


# An interface method: it ends without `return`, which is no shape error.
class Interface(nn.Module):
    def forward(self) -> torch.Tensor:
        pass


# `*key` takes any number of arguments: a count tensorfit does not bind is
# no error (and a wrong one would be Python's TypeError, not a shape error).
class EnforceUnique:
    def __init__(self):
        self.seen = set()

    def see(self, *key):
        self.seen.add(key)


unique = EnforceUnique()
unique.see(1, 2)
