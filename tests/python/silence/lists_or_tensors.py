# False alarms found on timm's model files (issue 24's report). An
# unannotated parameter may be a list: `repeats[::-1]` reverses it, though
# a tensor refuses a negative step (timm's `_scale_stage_depth`). And
# `assert False, "Not supported"` marks a method that always raises, like
# `raise` (timm's `HighResolutionNetFeatures.forward_features`).
import math

import torch
import torch.nn as nn
from torch import Tensor


def scale_stage_depth(repeats, depth_multiplier=1.0):
    num_repeat = sum(repeats)
    num_repeat_scaled = int(math.ceil(num_repeat * depth_multiplier))
    repeats_scaled = []
    for r in repeats[::-1]:
        rs = max(1, round(r / num_repeat * num_repeat_scaled))
        repeats_scaled.append(rs)
        num_repeat -= r
        num_repeat_scaled -= rs
    return repeats_scaled[::-1]


def decode(stages):
    repeats = []
    for count in stages:
        repeats.append(count)
    return scale_stage_depth(repeats, 1.2)


depths = decode([1, 2, 2])
fits = torch.zeros(len(depths)) + torch.zeros(3)


class Features(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 8)

    def forward_features(self, x: Tensor) -> Tensor:
        assert False, "Not supported"

    def forward(self, x: Tensor) -> Tensor:
        return self.fc(x)


features = Features()(torch.randn(2, 4))  #~ shape features: Tensor[2, 8]
