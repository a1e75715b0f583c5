# §3: assert and torch._assert are facts; `if cond: raise` is a guard.
import torch


def attention(x, heads):
    B, T, C = x.shape
    assert C % heads == 0, "heads must divide the width"
    torch._assert(T > 0, "empty sequence")
    if x.dim() != 3:
        raise ValueError("expected (B, T, C)")
    return x.view(B, T, heads, C // heads)
