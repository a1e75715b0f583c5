# Module classes that only build an `nn.Sequential` (torchvision's
# `Conv2dNormActivation`): `__init__` computes the layers and passes them to
# `super().__init__`, and a subclass passes its own arguments on. Their
# instances are Sequentials: called, indexed and sliced. `isinstance` of a
# builtin type is decided where the value's kind is known.
from typing import Sequence

import torch
from torch import nn


class ConvNormAct(nn.Sequential):
    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size=3,
        stride=1,
        padding=None,
        norm_layer=nn.BatchNorm2d,
        activation_layer=nn.ReLU,
        conv_layer=nn.Conv2d,
    ):
        if padding is None:
            if isinstance(kernel_size, int):
                padding = (kernel_size - 1) // 2
            else:
                padding = tuple((k - 1) // 2 for k in kernel_size)
        layers = [conv_layer(in_channels, out_channels, kernel_size, stride, padding, bias=False)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer(inplace=True))
        super().__init__(*layers)
        self.out_channels = out_channels


class Conv2dNormAct(ConvNormAct):
    """Two-dimensional, as torchvision's subclass."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size=3, stride=1, norm_layer=nn.BatchNorm2d):
        super().__init__(in_channels, out_channels, kernel_size, stride, None, norm_layer, nn.ReLU, nn.Conv2d)


x = torch.randn(2, 3, 32, 32)
same = ConvNormAct(3, 16)(x)  #~ shape same: Tensor[2, 16, 32, 32]
strided = Conv2dNormAct(3, 16, stride=2)(x)  #~ shape strided: Tensor[2, 16, 16, 16]
pointwise = Conv2dNormAct(3, 8, kernel_size=1, norm_layer=None)(x)  #~ shape pointwise: Tensor[2, 8, 32, 32]
block = Conv2dNormAct(3, 16, stride=2)
conv_only = block[0](x)  #~ shape conv_only: Tensor[2, 16, 16, 16]
stem = nn.Sequential(block, Conv2dNormAct(16, 32))
features = stem(x)  #~ shape features: Tensor[2, 32, 16, 16]
wrong = Conv2dNormAct(4, 16)(x)  #~ error: `nn.Conv2d` gets the wrong number of input channels


def pairs(size):
    if isinstance(size, (list, tuple)):
        return size
    return (size, size)


pooled = nn.AdaptiveAvgPool2d(pairs(4))(x)  #~ shape pooled: Tensor[2, 3, 4, 4]
shaped = nn.AdaptiveAvgPool2d(pairs((2, 5)))(x)  #~ shape shaped: Tensor[2, 3, 2, 5]
sequence = isinstance([1, 2], Sequence)
