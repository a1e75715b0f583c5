# §1, §2: a class derived from another class of the file; super() and
# methods read through the base.
import torch.nn as nn


class Base(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        return self.fc(x)


class Wide(Base):
    def __init__(self):
        super().__init__(32)
        self.extra = nn.ReLU()

    def forward(self, x):
        return self.extra(super().forward(x))
