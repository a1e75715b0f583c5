# Building blocks imported by uses_blocks.py (PYTHON.md §1, workspace
# imports): checked on their own too.
import torch
from torch import nn


class ConvBlock(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)
        self.norm = nn.BatchNorm2d(out_channels)

    def forward(self, x):
        return torch.relu(self.norm(self.conv(x)))


class Classifier(nn.Module):
    def __init__(self, features, classes):
        super().__init__()
        self.fc = nn.Linear(features, classes)

    def forward(self, x):
        return self.fc(torch.flatten(x, 1))


class Stem(nn.Sequential):
    def __init__(self, in_channels, out_channels):
        super().__init__(nn.Conv2d(in_channels, out_channels, 3, stride=2, padding=1), nn.ReLU())


class Repeat(nn.Module):
    def __init__(self):
        super().__init__()
        self.times = 1

    def forward(self, x):
        return x.repeat(1, self.times)


class Scaled(nn.Module):
    expansion = 1

    def __init__(self, channels):
        super().__init__()
        self.fc = nn.Linear(channels, channels * self.expansion)

    def forward(self, x):
        return self.fc(x)


def project(x, classes):
    weight = torch.randn(classes, x.shape[-1])
    return x @ weight.t()


probe = ConvBlock(3, 8)(torch.randn(1, 3, 4, 4))  #~ shape probe: Tensor[1, 8, 4, 4]
