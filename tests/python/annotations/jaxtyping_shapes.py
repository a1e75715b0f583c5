# jaxtyping annotations are read as Tensor types (PYTHON.md §4): names bind
# across a function's parameters and result, `_` is an unknown dimension,
# `*name` a segment, `...` an anonymous one, and arithmetic is allowed.
import torch
from jaxtyping import Float, Int
from torch import Tensor


def project(x: Float[Tensor, "batch d"], w: Float[Tensor, "d k"]) -> Float[Tensor, "batch k"]:
    return x @ w


def shift(x: Float[Tensor, "n"]) -> Float[Tensor, "n-1"]:
    return x[1:] - x[:-1]


def last(x: Float[Tensor, "*batch c"]) -> Float[Tensor, "*batch"]:
    return x.sum(dim=-1)


def any_prefix(x: Float[torch.Tensor, "... 3"]) -> Float[torch.Tensor, "... 3"]:
    return x * 2.0


def wrong_result(x: Float[Tensor, "b 3"]) -> Float[Tensor, "b 4"]:
    return x  #~ error: result type


def maybe_square(x: Float[Tensor, "b c"]) -> Float[Tensor, "b c"]:
    # Holds when b == c: a claim refuted only by a call (LANGUAGE.md §5).
    return x.transpose(0, 1)


def labels(y: Int[Tensor, "b _"]) -> Int[Tensor, "b _"]:
    return y


p = project(torch.randn(4, 8), torch.randn(8, 3))  #~ shape p: Tensor[4, 3]
q = project(torch.randn(4, 8), torch.randn(5, 3))  #~ error: torch.randn(5, 3).shape[0] = 5
s = shift(torch.randn(10))  #~ shape s: Tensor[9]
l = last(torch.randn(2, 5, 7))  #~ shape l: Tensor[2, 5]
a = any_prefix(torch.randn(6, 3))  #~ shape a: Tensor[6, 3]
t = labels(torch.zeros(3, 4, dtype=torch.long))  #~ shape t: Tensor[3, 4]
square = maybe_square(torch.randn(5, 5))  #~ shape square: Tensor[5, 5]
