# Modules registered by name: `add_module` on an `nn.Sequential` (names
# made with `%` and f-strings), classes derived from `nn.Sequential` that
# register layers as attributes or with `add_module` in a loop, an
# `OrderedDict` of layers, and a class derived from `nn.ModuleDict` whose
# `forward` iterates over `self.items()` (DenseNet's dense block).
from collections import OrderedDict
import typing
from typing import List, Tuple

import torch
import torch.nn as nn
from torch import Tensor


class Features(nn.Module):
    def __init__(self, config: Tuple[int, int] = (2, 3), width: int = 8) -> None:
        super().__init__()
        self.features = nn.Sequential(OrderedDict([("conv0", nn.Conv2d(3, width, 3))]))
        for i, depth in enumerate(config):
            self.features.add_module("block%d" % (i + 1), nn.Conv2d(width, width, 1))
        self.features.add_module(f"last{width}", nn.Conv2d(width, 4, 1))

    def forward(self, x):
        return self.features(x)


net = Features((2, 3), 8)
x = torch.randn(1, 3, 10, 10)
y = net(x)  #~ shape y: Tensor[1, 4, 8, 8]
by_name = net.features.conv0(x)  #~ shape by_name: Tensor[1, 8, 8, 8]
last = net.features.last8(torch.randn(1, 8, 5, 5))  #~ shape last: Tensor[1, 4, 5, 5]
count = torch.zeros(len(net.features))  #~ shape count: Tensor[4]


class Transition(nn.Sequential):
    def __init__(self, a: int, b: int) -> None:
        super().__init__()
        self.norm = nn.BatchNorm2d(a)
        self.conv = nn.Conv2d(a, b, kernel_size=1)
        self.rate = 0.5  # a plain attribute, not a layer
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)


t = Transition(8, 4)(torch.randn(1, 8, 10, 10))  #~ shape t: Tensor[1, 4, 5, 5]


class Stage(nn.Sequential):
    def __init__(self, width: int, depth: int, index: int = 0) -> None:
        super().__init__()
        for i in range(depth):
            self.add_module(f"block{index}-{i}", nn.Conv2d(width, width, 3, stride=2, padding=1))


s = Stage(4, 3, 1)(torch.randn(1, 4, 16, 16))  #~ shape s: Tensor[1, 4, 2, 2]


class Bottleneck(nn.Sequential):
    def __init__(self, w_in: int, w_out: int, se_ratio: float) -> None:
        layers: OrderedDict[str, nn.Module] = OrderedDict()
        layers["a"] = nn.Conv2d(w_in, w_out, 1)
        if se_ratio:
            layers["se"] = nn.ReLU()
        layers["c"] = nn.Conv2d(w_out, 2 * w_out, 1)
        super().__init__(layers)


b = Bottleneck(3, 6, 0.25)
w = b(torch.randn(1, 3, 5, 5))  #~ shape w: Tensor[1, 12, 5, 5]
second = b[1](torch.randn(1, 6, 5, 5))  #~ shape second: Tensor[1, 6, 5, 5]

pairs = [(f"fc{i}", nn.Linear(4, 4)) for i in range(3)]
mlp = nn.Sequential(OrderedDict(pairs))
m = mlp(torch.randn(2, 4))  #~ shape m: Tensor[2, 4]
broken = nn.Sequential(OrderedDict([("fc", nn.Linear(4, 4)), ("out", nn.Linear(5, 2))]))
bad = broken(torch.randn(2, 4))  #~ error: `nn.Linear` gets the wrong number of input features: broken[:1](torch.randn(2, 4)).shape[-1] = 4 but in_features = 5


class DenseLayer(nn.Module):
    def __init__(self, c_in: int, growth: int, memory_efficient: bool = False) -> None:
        super().__init__()
        self.conv = nn.Conv2d(c_in, growth, 3, padding=1)
        self.memory_efficient = memory_efficient

    def uses_checkpoints(self, inputs: List[Tensor]) -> bool:
        for tensor in inputs:
            if tensor.requires_grad:
                return True
        return False

    @torch.jit._overload_method  # noqa: F811
    def forward(self, input: List[Tensor]) -> Tensor:  # noqa: F811
        pass

    def forward(self, input: Tensor) -> Tensor:  # noqa: F811
        if isinstance(input, Tensor):
            features = [input]
        else:
            features = input
        if self.memory_efficient and self.uses_checkpoints(features):
            raise RuntimeError("not in this test")
        return self.conv(torch.cat(features, 1))


class DenseBlock(nn.ModuleDict):
    def __init__(self, layers: int, c_in: int, growth: int) -> None:
        super().__init__()
        for i in range(layers):
            self.add_module("layer%d" % (i + 1), DenseLayer(c_in + i * growth, growth))

    def forward(self, x: Tensor) -> Tensor:
        features = [x]
        for name, layer in self.items():
            features.append(layer(features))
        return torch.cat(features, 1)


block = DenseBlock(3, 8, 4)
dense = block(torch.randn(2, 8, 6, 6))  #~ shape dense: Tensor[2, 20, 6, 6]
inner = block.layer2(torch.randn(2, 12, 6, 6))  #~ shape inner: Tensor[2, 4, 6, 6]

widths = [w_in * 2 for w_in, keep in zip([4, 8, 16], [True, False, True]) if keep]
last_width = torch.zeros(widths[-1])  #~ shape last_width: Tensor[32]
strides = [2] * 3
pooled = nn.MaxPool2d(strides[2])(torch.randn(1, 1, 8, 8))  #~ shape pooled: Tensor[1, 1, 4, 4]

# A name registered again keeps its place; a position is a name too.
named = nn.Sequential(OrderedDict([("a", nn.Linear(4, 8)), ("b", nn.Linear(8, 2))]))
named.add_module("a", nn.Linear(4, 8))
r = named(torch.randn(3, 4))  #~ shape r: Tensor[3, 2]
by_position = nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 2))
by_position.add_module("1", nn.Linear(8, 8))
p = by_position(torch.randn(3, 4))  #~ shape p: Tensor[3, 8]
tail = by_position[1:]
tail.add_module("1", nn.Linear(8, 3))
q = tail(torch.randn(3, 8))  #~ shape q: Tensor[3, 3]


# What `load_state_dict` may replace (a class's `_load_from_state_dict`)
# is unknown after it, never stale.
class Stem(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.Sequential(nn.Conv2d(3, 8, 3))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        self.layers = nn.Sequential(nn.Conv2d(3, 16, 3))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)

    def forward(self, x):
        return self.layers(x)


stem = Stem()
image = torch.randn(1, 3, 10, 10)
fresh = stem(image)  #~ shape fresh: Tensor[1, 8, 8, 8]
stem.load_state_dict({}, strict=False)
loaded = stem(image)
fits = loaded + torch.zeros(1, 16, 8, 8)


# A container class changed by another method than `__init__`: what it
# holds is unknown.
class Growing(nn.ModuleDict):
    def __init__(self) -> None:
        super().__init__()
        self.add_module("a", nn.Linear(4, 4))

    def grow(self) -> None:
        self.add_module("b", nn.Linear(4, 16))

    def forward(self, x: Tensor) -> Tensor:
        for name, layer in self.items():
            x = layer(x)
        return x


grown = Growing()
grown.grow()
out = grown(torch.randn(2, 4))
fits_grown = out + torch.zeros(2, 16)


# A Sequential given to a function that registers a layer in it; one
# changed through another object's attribute is unknown.
def grow(stack):
    stack.add_module("wide", nn.Linear(8, 16))


grown_stack = nn.Sequential(nn.Linear(4, 8))
grow(grown_stack)
widened = grown_stack(torch.randn(2, 4))  #~ shape widened: Tensor[2, 16]
holder = Features((2, 3), 8)
holder.features.add_module("extra", nn.Conv2d(4, 12, 1))
changed = holder(torch.randn(1, 3, 10, 10))
fits_changed = changed + torch.zeros(1, 12, 8, 8)


# Tensors changed in place keep their shape (torchvision's
# `stochastic_depth`: `noise.bernoulli_(p)`, `noise.div_(p)`), and a
# number made from a parameter's rank is known at each call.
def drop_rows(x: Tensor, p: float, training: bool = True) -> Tensor:
    if not training or p == 0.0:
        return x
    size = [x.shape[0]] + [1] * (x.ndim - 1)
    noise = torch.empty(size, dtype=x.dtype)
    noise = noise.bernoulli_(1.0 - p)
    noise.div_(1.0 - p)
    return x * noise


dropped = drop_rows(torch.randn(2, 16, 8, 8), 0.2)  #~ shape dropped: Tensor[2, 16, 8, 8]


# `typing.OrderedDict` builds the same dict (MaxViT's `MBConv`).
def typed_layers() -> nn.Sequential:
    layers = typing.OrderedDict()
    layers["fc"] = nn.Linear(4, 8)
    layers["act"] = nn.ReLU()
    return nn.Sequential(layers)


typed = typed_layers()(torch.randn(2, 4))  #~ shape typed: Tensor[2, 8]
