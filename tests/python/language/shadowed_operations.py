# A PyTorch operation called by its module path is the operation, whatever
# the file names the same: a parameter (`dropout: float` beside
# `F.dropout(...)`, as in Swin's attention), a constant, a function of the
# file (`def relu` beside `F.relu`) or a class (`class Linear` beside
# `nn.Linear`).
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor


class Linear(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.inner = nn.Linear(d, 2 * d)

    def forward(self, x: Tensor) -> Tensor:
        return self.inner(x)


def relu(x):
    return x[0]


def attend(x: Tensor, dropout: float = 0.1) -> Tensor:
    return F.dropout(x, p=dropout)


wide = Linear(4)(torch.randn(3, 4))  #~ shape wide: Tensor[3, 8]
activated = F.relu(torch.randn(3, 4))  #~ shape activated: Tensor[3, 4]
own = relu(torch.randn(3, 4))  #~ shape own: Tensor[4]
dropped = attend(torch.randn(3, 4))  #~ shape dropped: Tensor[3, 4]
dropout = 0.5
again = F.dropout(torch.randn(3, 4), dropout)  #~ shape again: Tensor[3, 4]


# `x.shape[-3:]` of a parameter of unknown rank: known at each call that
# passes a tensor of known rank (Swin's `_patch_merging_pad`).
def merge_pad(x):
    H, W, _ = x.shape[-3:]
    x = F.pad(x, (0, 0, 0, W % 2, 0, H % 2))
    x0 = x[..., 0::2, 0::2, :]
    x1 = x[..., 1::2, 0::2, :]
    return torch.cat([x0, x1], -1)


even = merge_pad(torch.randn(2, 56, 56, 96))  #~ shape even: Tensor[2, 28, 28, 192]
odd = merge_pad(torch.randn(2, 55, 7, 96))  #~ shape odd: Tensor[2, 28, 4, 192]
