# §1: lambdas and nested functions (first-class functions).
import torch


def outer(x):
    scale = 2

    def inner(y):
        return y * scale

    double = lambda t: t * 2
    return inner(double(x))


act = (lambda: torch.nn.ReLU(inplace=True))()
