# A field that a method other than `__init__` assigns is state: its value
# from `__init__` (here `None`) is not what `forward` reads, so nothing is
# concluded from it, and the assert is no error.
import torch
import torch.nn as nn


class Cache(nn.Module):
    def __init__(self):
        super().__init__()
        self.memory = None
        self.fc = nn.Linear(4, 4)

    def remember(self, x):
        self.memory = x

    def forward(self, x):
        assert self.memory is not None
        return self.fc(x) + self.memory


cache = Cache()
cache.remember(torch.randn(2, 4))
y = cache(torch.randn(2, 4))
h = cache.fc(torch.randn(2, 4))  #~ shape h: Tensor[2, 4]
