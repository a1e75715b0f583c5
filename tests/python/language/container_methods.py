# The methods that read a dict, list or tuple (the Python documentation's
# "Mapping Types" and "Common Sequence Operations"): builders read their
# options with `kwargs.get("num_classes", 1000)`, configs with
# `cfg.get("width")`, and position layers with `xs.index(v)`.
import torch
from torch import nn


def head(**kwargs):
    num_classes = kwargs.get("num_classes", 1000)
    width = kwargs.get("width", 16)
    return nn.Linear(width, num_classes)


x = torch.randn(2, 16)
default = head()(x)  #~ shape default: Tensor[2, 1000]
ten = head(num_classes=10)(x)  #~ shape ten: Tensor[2, 10]
wide = head(width=32, num_classes=5)(torch.randn(2, 32))  #~ shape wide: Tensor[2, 5]
narrow = head(width=8)(x)  #~ error: wrong number of input features


class Net(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        stages = cfg.get("stages", [8, 16, 32])
        last = stages[-1]
        # `dropout` is absent: `get` gives `None`.
        self.drop = cfg.get("dropout") is None
        self.fc = nn.Linear(stages.index(16) + stages.count(8), last)

    def forward(self, x):
        return self.fc(x)


config = {"stages": [8, 16, 8, 24]}
y = Net(config)(torch.randn(2, 3))  #~ shape y: Tensor[2, 24]
z = Net({})(torch.randn(2, 2))  #~ shape z: Tensor[2, 32]
copied = Net(config.copy())(torch.randn(2, 3))  #~ shape copied: Tensor[2, 24]
