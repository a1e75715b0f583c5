# Unpacked arguments and collected parameters (PYTHON.md §2): `*args`
# collects the remaining positional arguments as a tuple, `**kwargs` the
# named ones no other parameter takes as a dict, and `f(*xs, **kw)` passes
# their items on. What torchvision's builders do: `resnet50(**kwargs)`
# calls `_resnet(..., **kwargs)`, which calls `ResNet(block, layers,
# **kwargs)`.
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self, num_classes: int = 1000, width: int = 64):
        super().__init__()
        self.fc = nn.Linear(width, num_classes)

    def forward(self, x):
        return self.fc(x)


def _classifier(width, **kwargs):
    return Classifier(width=width, **kwargs)


def classifier(**kwargs):
    return _classifier(32, **kwargs)


def add(x, y, alpha=1):
    return x + y


def forward_all(*args, **kwargs):
    return add(*args, **kwargs)


default = classifier()(torch.randn(2, 32))  #~ shape default: Tensor[2, 1000]
ten = classifier(num_classes=10)(torch.randn(2, 32))  #~ shape ten: Tensor[2, 10]
bad = classifier(num_classes=10)(torch.randn(2, 64))  #~ error: wrong number of input features

ok = forward_all(torch.randn(2, 3), torch.randn(3))  #~ shape ok: Tensor[2, 3]
named = forward_all(torch.randn(2, 3), y=torch.randn(4, 1, 1))  #~ shape named: Tensor[4, 2, 3]
clash = forward_all(torch.randn(2, 3), y=torch.randn(4))  #~ error: cannot broadcast

size = (3, 8)
z = torch.zeros(*size)  #~ shape z: Tensor[3, 8]
flat = z.view(*z.shape[:1], -1)  #~ shape flat: Tensor[3, 8]
sizes = [2, 5]
w = torch.ones(*sizes, 4)  #~ shape w: Tensor[2, 5, 4]

# Items Python computes from known values are known when unpacked; the
# items of a value tensorfit does not know are unknown, and so is the
# call: nothing is reported.
dims = tuple(int(d) for d in "3 4".split())
known = torch.zeros(*dims)  #~ shape known: Tensor[3, 4]
drawn = tuple(torch.randint(1, 5, (2,)).tolist())
unknown = torch.zeros(*drawn)


# `_` bound twice (or any target already bound) is still an unpacking: a
# shape gives its dimensions, and its rank must be the count.
def spatial(x):
    x = torch.relu(x)
    _, h, w, _ = x.shape
    return torch.zeros(h, w)


grid = spatial(torch.randn(2, 5, 6, 3))  #~ shape grid: Tensor[5, 6]
too_few = spatial(torch.randn(5, 6, 3))  #~ error: a shape of 3 dimensions is unpacked into 4 names
