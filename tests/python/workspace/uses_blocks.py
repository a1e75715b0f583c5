# A model made of classes imported from another file of the workspace
# (`from blocks import ...`, found beside this file as Python finds it).
import torch
from torch import nn
from blocks import ConvBlock, Classifier, Repeat, Scaled, Stem, project
from blocks import ConvBlock as Block


class SmallNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(ConvBlock(3, 16), nn.MaxPool2d(2), ConvBlock(16, 32), nn.MaxPool2d(2))
        self.head = Classifier(32 * 8 * 8, classes)

    def forward(self, x):
        return self.head(self.features(x))


net = SmallNet()
logits = net(torch.randn(4, 3, 32, 32))  #~ shape logits: Tensor[4, 10]
wrong = net(torch.randn(4, 3, 28, 28))  #~ error: `nn.Linear` gets the wrong number of input features
gray = net(torch.randn(4, 1, 32, 32))  #~ error: `nn.Conv2d` gets the wrong number of input channels
scores = project(torch.randn(4, 6), 3)  #~ shape scores: Tensor[4, 3]


# Classes derived from an imported one that only set it up: a Sequential
# (with a hook that only renames checkpoint keys), and a module whose
# attribute the derived `__init__` changes.
class WideStem(Stem):
    _version = 2

    def __init__(self, channels):
        super().__init__(3, 2 * channels)

    def _load_from_state_dict(self, state_dict, prefix, *args):
        if prefix + "old" in state_dict:
            state_dict[prefix + "new"] = state_dict.pop(prefix + "old")
        super()._load_from_state_dict(state_dict, prefix, *args)


class Triple(Repeat):
    def __init__(self):
        super().__init__()
        self.times = 3


stem = WideStem(8)(torch.randn(1, 3, 16, 16))  #~ shape stem: Tensor[1, 16, 8, 8]
tripled = Triple()(torch.randn(2, 4))  #~ shape tripled: Tensor[2, 12]
renamed = Block(3, 5)(torch.randn(1, 3, 4, 4))  #~ shape renamed: Tensor[1, 5, 4, 4]


# The base reads the class attribute the derived class sets: Python's
# value, or unknown, never the base's.
class Wide(Scaled):
    expansion = 4

    def __init__(self, channels):
        super().__init__(channels)


wide = Wide(2)(torch.randn(3, 2))
fits_wide = wide + torch.zeros(3, 8)


# A Sequential builder that changes what it built other than by
# registering layers: unknown afterwards.
class Replaced(nn.Sequential):
    def __init__(self):
        super().__init__(nn.Linear(4, 8))
        self[0] = nn.Linear(4, 16)


class SetByName(nn.Sequential):
    def __init__(self):
        super().__init__(nn.Linear(4, 8))
        setattr(self, "out", nn.Linear(8, 10))


replaced = Replaced()(torch.randn(2, 4))
fits_replaced = replaced + torch.zeros(2, 16)
set_by_name = SetByName()(torch.randn(2, 4))
fits_set_by_name = set_by_name + torch.zeros(2, 10)
