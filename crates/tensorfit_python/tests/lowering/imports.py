# §1: imports under any alias resolve to the operations of one table.
import torch
import torch as th
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor
from torch.nn import Conv2d, functional as G

x = torch.randn(2, 3)
y = th.relu(x)
z = F.softmax(y, dim=1)
w = G.gelu(z)
c = Conv2d(3, 8, 3)
u = nn.Linear(3, 4)(x)
