# §2: a module's __init__ with defaults, a decided if, a loop over range
# and fields set on self.
import torch.nn as nn


class Block(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=False):
        super().__init__()
        self.conv = nn.Conv2d(inplanes, planes, 3, stride=stride, padding=1)
        if downsample:
            self.down = nn.Conv2d(inplanes, planes * self.expansion, 1, stride=stride)
        else:
            self.down = None
        layers = []
        for i in range(2):
            layers.append(nn.ReLU())
        self.acts = nn.Sequential(*layers)

    def forward(self, x):
        out = self.acts(self.conv(x))
        if self.down is not None:
            out = out + self.down(x)
        return out
