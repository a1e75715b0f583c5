# §3: positional, keyword, *list and **dict arguments; shape queries.
import torch


def g(x, sizes, options):
    a = x.reshape(*sizes)
    b = torch.cat([a, a], dim=0)
    c = torch.nn.functional.dropout(b, **options)
    n = x.size(0) + x.shape[1] + x.dim() + x.ndim + x.numel() + len(x)
    rest = x.shape[:-1]
    return c, n, rest
