# The same name imported from two files, each under a name of its own
# (detectron2's `LVIS_CATEGORIES as LVIS_V0_5_CATEGORIES` beside
# `LVIS_CATEGORIES as LVIS_V1_CATEGORIES`): neither stands for the other's
# value, so no assertion about them is refused.
import torch
from zoo.widths_small import WIDTHS as SMALL
from zoo.widths_large import WIDTHS as LARGE


def stems():
    assert len(SMALL) == 3
    assert len(LARGE) == 2
    return torch.zeros(len(SMALL), len(LARGE))


grid = stems()
