# A model file of the zoo: its builder checks the weights it is given with
# the class method its weights enum inherits from `api.py`, and sets
# `num_classes` from them, as torchvision's builders do.
import torch
from torch import nn

from .api import WeightsEnum, overwrite_named_param


class TinyNet(nn.Module):
    def __init__(self, width: int = 16, num_classes: int = 1000):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, width, 3, padding=1), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(width, num_classes)

    def forward(self, x):
        x = self.pool(self.features(x))
        return self.fc(torch.flatten(x, 1))


class TinyNet_Weights(WeightsEnum):
    IMAGENET1K_V1 = "tiny-imagenet"
    DEFAULT = IMAGENET1K_V1


def tiny_net(*, weights=None, progress: bool = True, **kwargs):
    weights = TinyNet_Weights.verify(weights)
    if weights is not None:
        overwrite_named_param(kwargs, "num_classes", 10)
    return TinyNet(**kwargs)
