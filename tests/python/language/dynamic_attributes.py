# Attributes set by a name computed at run time (ShuffleNetV2's
# `setattr(self, f"stage{i}", ...)` in a loop over `zip`), and operations
# that need the rank of a parameter (`x.chunk(2, dim=1)` in `forward`),
# which each call decides with its own tensors.
from typing import List

import torch
import torch.nn as nn


def shuffle(x: torch.Tensor, groups: int) -> torch.Tensor:
    batch, channels, height, width = x.size()
    x = x.view(batch, groups, channels // groups, height, width)
    return torch.transpose(x, 1, 2).contiguous().view(batch, -1, height, width)


class Half(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.branch = nn.Conv2d(channels // 2, channels // 2, 3, padding=1)

    def forward(self, x):
        x1, x2 = x.chunk(2, dim=1)
        return shuffle(torch.cat((x1, self.branch(x2)), dim=1), 2)


class Net(nn.Module):
    def __init__(self, repeats: List[int], channels: List[int]) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, channels[0], 3, stride=2, padding=1)
        self.stage2: nn.Sequential
        self.stage3: nn.Sequential
        names = [f"stage{i}" for i in [2, 3]]
        width = channels[0]
        for name, count, out in zip(names, repeats, channels[1:]):
            blocks = [nn.Conv2d(width, out, 1)]
            for _ in range(count - 1):
                blocks.append(Half(out))
            setattr(self, name, nn.Sequential(*blocks))
            width = out

    def forward(self, x):
        return self.stage3(self.stage2(self.stem(x)))


net = Net([2, 3], [4, 8, 16])
y = net(torch.randn(2, 3, 16, 16))  #~ shape y: Tensor[2, 16, 8, 8]
stage = net.stage2(torch.randn(2, 4, 8, 8))  #~ shape stage: Tensor[2, 8, 8, 8]
half = Half(6)(torch.randn(1, 6, 5, 5))  #~ shape half: Tensor[1, 6, 5, 5]


# A field set by its own name and by `setattr` with a computed one: which
# came last is not known.
class Either(nn.Module):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.head = nn.Linear(4, 4)
        setattr(self, name, nn.Linear(4, 16))

    def forward(self, x):
        return self.head(x)


either = Either("head")(torch.randn(2, 4))
fits = either + torch.zeros(2, 16)


# `setattr(self, ...)` in another method than `__init__` may set any
# attribute.
class Later(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Linear(4, 4)

    def widen(self, name: str) -> None:
        setattr(self, name, nn.Linear(4, 16))

    def forward(self, x):
        return self.head(x)


later = Later()
later.widen("head")
wide = later(torch.randn(2, 4))
fits_wide = wide + torch.zeros(2, 16)
