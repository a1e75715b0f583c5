# Migrations in a file that imports jaxtyping (PYTHON.md §6): a bare
# parameter and a jaxtyping `_` get the annotation their body determines,
# written in jaxtyping with the file's own names (hover and code action).
import torch
from torch import Tensor, nn
from jaxtyping import Float


def patches(images):  #~ annotate images: Shaped[Tensor, "_ 3 _ _"]
    # conv2d with 3 input channels fixes the channels; unpacking the
    # shape fixes the rank.
    b, c, h, w = images.shape
    return nn.functional.conv2d(images, torch.randn(16, 3, 4, 4), stride=4)


def tokens(x: Float[Tensor, "b _ _"], w: Float[Tensor, "64 10"]):  #~ annotate x: Float[Tensor, "b _ 64"]
    return x @ w


out = patches(torch.randn(2, 3, 32, 32))  #~ shape out: Tensor[2, 16, 8, 8]
logits = tokens(torch.randn(2, 5, 64), torch.randn(64, 10))  #~ shape logits: Tensor[2, 5, 10]
