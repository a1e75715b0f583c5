# §4: jaxtyping annotations, bare Tensor, int and bool.
import torch
from jaxtyping import Float, Int
from torch import Tensor


def mix(
    x: Float[Tensor, "batch c h w"],
    y: Float[Tensor, "batch _ h w"],
    z: Int[Tensor, "*rest d-1 2*d"],
    t: Tensor,
    n: int,
    flag: bool = False,
) -> Float[Tensor, "batch c h w"]:
    return x
