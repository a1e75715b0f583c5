# §3: assignments (plain, annotated, augmented), unpacking, if/elif/else,
# for, while, return, with, pass.
import torch


def f(x, n: int = 3):
    b, c, h, w = x.shape
    y: torch.Tensor = x.flatten(1)
    total = 0
    total += c
    if h > w:
        y = y * 2
    elif h == w:
        pass
    else:
        y = y + 1
    for i in range(n):
        total = total + i
    while total > 100:
        total = total // 2
    with torch.no_grad():
        z = y.sum(dim=1)
    return z, total
