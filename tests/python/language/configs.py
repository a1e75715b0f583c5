# Configuration the way torchvision's builders pass it (PYTHON.md §3):
# module-level tables of literals (`cfgs = {"A": [64, "M", 128]}`), strings
# compared with `==` (`v == "M"` is false for the numbers), `typing.cast`,
# flags that decide what a function builds, and dict items set in place.
import torch
from torch import nn
from typing import Dict, List, Union, cast

cfgs: Dict[str, List[Union[str, int]]] = {
    "A": [64, "M", 128, "M"],
    "B": [32, 32, "M"],
}


def make_layers(cfg, batch_norm: bool = False):
    layers: List[nn.Module] = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
        else:
            v = cast(int, v)
            conv2d = nn.Conv2d(in_channels, v, kernel_size=3, padding=1)
            if batch_norm:
                layers += [conv2d, nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
            else:
                layers += [conv2d, nn.ReLU(inplace=True)]
            in_channels = v
    return nn.Sequential(*layers)


a = make_layers(cfgs["A"])(torch.randn(2, 3, 32, 32))  #~ shape a: Tensor[2, 128, 8, 8]
b = make_layers(cfgs["B"], batch_norm=True)(torch.randn(2, 3, 32, 32))  #~ shape b: Tensor[2, 32, 16, 16]
gray = make_layers(cfgs["A"])(torch.randn(2, 1, 32, 32))  #~ error: `nn.Conv2d` gets the wrong number of input channels


def options(pretrained, **kwargs):
    kwargs["num_classes"] = 10
    if pretrained:
        kwargs["dropout"] = 0.5
    return kwargs


def head(features, num_classes=1000, dropout=0.0):
    return nn.Sequential(nn.Dropout(dropout), nn.Linear(features, num_classes))


ten = head(16, **options(False))(torch.randn(4, 16))  #~ shape ten: Tensor[4, 10]

seq = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1000))
seq[2] = nn.Linear(8, 10)
first = seq[0](torch.randn(2, 4))  #~ shape first: Tensor[2, 8]
finetuned = seq(torch.randn(2, 4))  #~ shape finetuned: Tensor[2, 10]


def set_classes(kwargs, n):
    kwargs["num_classes"] = n


# A dict given to a function may come back changed: it is unknown after the
# call, never stale (here `num_classes` is 5, not 10).
settings = {"num_classes": 10}
set_classes(settings, 5)
changed = head(16, **settings)(torch.randn(4, 16))
