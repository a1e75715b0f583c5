# `n ** 2` of numbers is their product (ViT's sequence length
# `(image_size // patch_size) ** 2 + 1`), `2 ** i` of known numbers their
# power; a power of a tensor keeps its shape. A chain of residual blocks whose result broadcasts the input's
# own dimension (`x + fc(x)`: 8 where x's is 1, else x's) stays exact
# however long the chain: the dimension each block returns is named, not
# written out again inside the next one's.
import torch
import torch.nn as nn
from torch import Tensor


class Embedded(nn.Module):
    def __init__(self, image_size: int, patch_size: int, hidden: int) -> None:
        super().__init__()
        seq_length = (image_size // patch_size) ** 2
        seq_length += 1
        self.pos = nn.Parameter(torch.zeros(1, seq_length, hidden))

    def forward(self, x: Tensor) -> Tensor:
        return x + self.pos


embedded = Embedded(32, 16, 8)(torch.randn(2, 5, 8))  #~ shape embedded: Tensor[2, 5, 8]
squared = torch.randn(2, 3) ** 2  #~ shape squared: Tensor[2, 3]
root = torch.randn(2, 3) ** 0.5  #~ shape root: Tensor[2, 3]
cubes = torch.zeros(2 ** 3)  #~ shape cubes: Tensor[8]


# Swin's stage widths: `embed_dim * 2 ** i_stage`, a power with a computed
# exponent.
class Stages(nn.Module):
    def __init__(self, embed_dim: int, depth: int) -> None:
        super().__init__()
        layers = []
        for i_stage in range(depth):
            dim = embed_dim * 2 ** i_stage
            layers.append(nn.Linear(dim, 2 * dim))
        self.layers = nn.Sequential(*layers)

    def forward(self, x: Tensor) -> Tensor:
        return self.layers(x)


staged = Stages(3, 4)(torch.randn(2, 3))  #~ shape staged: Tensor[2, 48]


def squares(k: int) -> Tensor:
    return torch.zeros(k ** 2, 2 ** k)


squared_sizes = squares(3)  #~ shape squared_sizes: Tensor[9, 8]
half = torch.zeros(int(2 ** -1 * 4))  #~ shape half: Tensor[2]


class Residual(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x: Tensor) -> Tensor:
        return x + self.fc(x)


class Chain(nn.Module):
    def __init__(self, depth: int, width: int) -> None:
        super().__init__()
        self.blocks = nn.Sequential(*[Residual(width) for _ in range(depth)])

    def forward(self, x: Tensor) -> Tensor:
        torch._assert(x.dim() == 3, "a batch of sequences")
        return self.blocks(x)


chained = Chain(24, 8)(torch.randn(2, 5, 8))  #~ shape chained: Tensor[2, 5, 8]


# A function of the program named `pow` is not what `**` calls.
def pow(a, b):
    return torch.zeros(7)


powered = torch.zeros(3) ** 2  #~ shape powered: Tensor[3]
tiny = int(2 ** -(2 ** 32) + 3)
beyond_int32 = torch.zeros(tiny)  #~ shape beyond_int32: Tensor[3]
