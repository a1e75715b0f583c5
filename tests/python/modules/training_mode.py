# A module's `training` flag (GoogLeNet returns its auxiliary outputs only
# while training): `eval()` and `train(mode)` set the flag of the module
# and of every module it holds, and return the module, as `to(...)`,
# `cuda()` and `float()` do. A mode no such call set is unknown (it can be
# switched in ways not followed), so both branches are followed; a class's
# own `train` or `eval` is called, and leaves the module unknown. A
# channel count known only as a quotient (`-1` in a `reshape` of
# symbolic sizes), which `chunk(2)` needs as a number: the method is redone
# with the call's own numbers.
import torch
import torch.nn as nn
from torch import Tensor


class Head(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 3)
        self.aux = nn.Linear(8, 5)

    def forward(self, x: Tensor):
        if self.training:
            return self.fc(x), self.aux(x)
        return self.fc(x)


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.head = Head()

    def forward(self, x: Tensor):
        return self.head(self.body(x))


x = torch.randn(2, 4)
# Not known to train: either output, so nothing is shown or reported.
either_mode = Net()(x)
trained, aux = Net().train()(x)  #~ shape aux: Tensor[2, 5]
evaluated = Net().eval()(x)  #~ shape evaluated: Tensor[2, 3]

net = Net()
net.eval()
after_eval = net(x)  #~ shape after_eval: Tensor[2, 3]
net.train()
main, after_train = net(x)  #~ shape after_train: Tensor[2, 5]
net.train(False)
after_train_false = net(x)  #~ shape after_train_false: Tensor[2, 3]

moved = Net().to("cpu").eval()
on_cpu = moved(x)  #~ shape on_cpu: Tensor[2, 3]
linear = nn.Linear(4, 6).float()
converted = linear(x)  #~ shape converted: Tensor[2, 6]

# `train(mode)` with a mode not known: either output.
def either(mode: bool):
    net = Net()
    net.train(mode)
    return net(x)


# `torch.jit.is_scripting()` is false where PyTorch runs the code as
# written (GoogLeNet returns a named tuple only for TorchScript).
class Scripted(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x: Tensor):
        if torch.jit.is_scripting():
            return self.fc(x), x
        if torch.jit.is_tracing():
            return x
        return self.fc(x)


eager = Scripted()(x)  #~ shape eager: Tensor[2, 2]


# The flag is set on the held modules too.
held = Net().eval().head(torch.randn(3, 8))  #~ shape held: Tensor[3, 3]


def shuffle(x: Tensor, groups: int) -> Tensor:
    n, c, h, w = x.size()
    x = x.view(n, groups, c // groups, h, w).transpose(1, 2)
    return x.reshape(n, -1, h, w)


class Halves(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels // 2, channels // 2, 3, padding=1)

    def forward(self, x: Tensor) -> Tensor:
        a, b = x.chunk(2, dim=1)
        return shuffle(torch.cat((a, self.conv(b)), dim=1), 2)


class Twice(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.first = nn.Conv2d(6, 6, 3, stride=2, padding=1)
        self.second = Halves(6)

    def forward(self, x: Tensor) -> Tensor:
        n, c, h, w = x.shape
        y = shuffle(self.first(x), 3)  #~ shape y: Tensor[n, 6, (h + 1) // 2, (w + 1) // 2]
        return self.second(y)


halves = Twice()(torch.randn(2, 6, 5, 5))  #~ shape halves: Tensor[2, 6, 3, 3]


# Switched in a way not followed (a helper, a loop over `modules()`):
# unknown, never the mode it had.
def freeze(model: nn.Module) -> None:
    model.eval()


frozen = Net().train()
freeze(frozen)
after_helper = frozen(x)
fits_helper = after_helper[0] + torch.zeros(3)
looped = Net().train()
for m in looped.modules():
    m.eval()
after_loop = looped(x)
fits_loop = after_loop[0] + torch.zeros(3)


class Runner:
    def __init__(self) -> None:
        self.w = torch.zeros(3)

    def __len__(self) -> int:
        return 3

    def eval(self):
        return torch.zeros(5)


runner = Runner()
runner.eval()
lengths = torch.zeros(len(runner)) + torch.zeros(3)
