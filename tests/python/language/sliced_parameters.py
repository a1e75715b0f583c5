# A slice of a parameter whose rank the function does not know
# (`x[:, 58:]`) is known at the front only: a layer that keeps all but the
# last dimensions of it (a convolution, a pooling, a `Linear`) cannot
# write its result without the rank, which each call passes. It is
# neither an error nor a shape with the front counted twice.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor


class Split(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 1)

    def forward(self, x: Tensor) -> Tensor:
        kept, changed = x[:, :4], x[:, 4:]
        return torch.cat((kept, self.conv(changed)), dim=1)


split = Split()(torch.randn(2, 8, 5, 5))  #~ shape split: Tensor[2, 8, 5, 5]


def convolved(x: Tensor) -> Tensor:
    return F.conv2d(x[:, 4:], torch.randn(3, 4, 1, 1))


def pooled(x: Tensor) -> Tensor:
    return F.adaptive_avg_pool2d(x[1:], (2, 2))


def projected(x: Tensor) -> Tensor:
    return nn.Linear(5, 7)(x[:, 2:])


def resized(x: Tensor) -> Tensor:
    return F.interpolate(x[:, 1:], size=(8, 8))


conv = convolved(torch.randn(2, 8, 5, 5))  #~ shape conv: Tensor[2, 3, 5, 5]
pool = pooled(torch.randn(3, 8, 5, 5))  #~ shape pool: Tensor[2, 8, 2, 2]
projection = projected(torch.randn(2, 4, 5))  #~ shape projection: Tensor[2, 2, 7]
resize = resized(torch.randn(2, 4, 5, 5))  #~ shape resize: Tensor[2, 3, 8, 8]


# Still a shape error where every rank the call can pass is refused.
too_few = convolved(torch.randn(2, 4))  #~ error
