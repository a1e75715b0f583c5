# §3: int arithmetic (// floors, % , / a float, int()), comparisons,
# and/or/not, conditional expressions, powers, tensor operators.
import torch


def h(x, d, flag):
    half = d // 2
    rest = d % 2
    ratio = d / 2
    whole = int(ratio)
    square = d ** 2
    ok = d > 1 and not flag or d == 0
    width = half if ok else d
    y = x @ x.transpose(0, 1) + x * 2 - x / 3
    return y ** 2, width, whole, square, rest
