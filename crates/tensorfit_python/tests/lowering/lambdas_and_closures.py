# §1: lambdas and nested functions (first-class functions).
import torch


def outer(x):
    scale = 2

    def inner(y):
        return y * scale

    double = lambda t: t * 2
    return inner(double(x))


act = (lambda: torch.nn.ReLU(inplace=True))()


def late(x, n):
    k = 2
    cut = lambda t, extra=n: t[:, : k + extra]
    k = 3
    for i in range(2):
        x = (lambda t: t * i)(x)
    return cut(x)


def deeper(x, n):
    def outer_fn(t):
        return (lambda u: u[:n])(t)

    return outer_fn(x)


def special(x):
    @torch.no_grad()
    def decorated(t):
        return t

    def generator(t):
        yield t

    return decorated(x), generator(x)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.call = lambda t: self.fc(t)

    def forward(self, x):
        run = lambda t: self.fc(t)
        return run(x)
