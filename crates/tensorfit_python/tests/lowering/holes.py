# §5: `...` as an argument is a hole; in a subscript it is indexing. Lazy
# layers have their inferred size as a hole.
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(..., 10)
        self.conv = nn.Conv2d(in_channels=..., out_channels=8, kernel_size=3)
        self.lazy = nn.LazyLinear(4)

    def forward(self, x):
        return self.fc(x[..., 0])
