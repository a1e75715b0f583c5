# §9: einops functions and layers, with axis lengths as keywords.
import torch
from einops import rearrange, reduce, repeat
from einops.layers.torch import Rearrange

x = torch.randn(2, 3, 8, 8)
a = rearrange(x, "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=4, p2=4)
b = reduce(x, "b c h w -> b c", "mean")
c = repeat(x, "b c h w -> b c h w k", k=2)
layer = Rearrange("b c h w -> b (c h w)")
d = layer(x)
