# A module-level name changed by `+=` is assigned twice: no constant a
# function can read as its first value (it read `HIDDEN` as 4, and flagged
# a correct `Linear(8, 2)` call).
import torch
from torch import nn

HIDDEN = 4
HIDDEN += 4


def build():
    return nn.Linear(HIDDEN, 2)


y = build()(torch.randn(3, 8))
