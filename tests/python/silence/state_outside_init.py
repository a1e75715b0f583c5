# A field that a method other than `__init__` assigns is state: its value
# from `__init__` (here `None`) is not what `forward` reads, so nothing is
# concluded from it, and the assert is no error.
import torch
import torch.nn as nn


class Cache(nn.Module):
    def __init__(self):
        super().__init__()
        self.memory = None
        self.fc = nn.Linear(4, 4)

    def remember(self, x):
        self.memory = x

    def forward(self, x):
        assert self.memory is not None
        return self.fc(x) + self.memory


cache = Cache()
cache.remember(torch.randn(2, 4))
y = cache(torch.randn(2, 4))
h = cache.fc(torch.randn(2, 4))  #~ shape h: Tensor[2, 4]


# A field `__init__` sets to `None` that another object's method assigns
# (PyTorch-GAN's MUNIT fills its adaptive norms' `weight` and `bias` in a
# loop over `self.modules()`): not `None` when `forward` runs.
class AdaptiveNorm(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n
        self.weight = None
        self.bias = None

    def forward(self, x):
        assert self.weight is not None and self.bias is not None
        return x * self.weight.view(1, -1) + self.bias.view(1, -1)


class Styled(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = AdaptiveNorm(4)

    def assign(self, params):
        for m in self.modules():
            if m.__class__.__name__ == "AdaptiveNorm":
                m.bias = params[:, : m.n].contiguous().view(-1)
                m.weight = params[:, m.n : 2 * m.n].contiguous().view(-1)

    def forward(self, x, style):
        self.assign(style)
        return self.norm(x)


styled = Styled()(torch.randn(2, 4), torch.randn(1, 8))


# A list or dict field a method fills through `self` (fairseq's caption
# statistics append to `self.stat["video_tps"]` in `save_stat`, and
# `print_stat` divides by its length): other methods read it filled, not
# as `__init__` left it. A helper only `__init__` calls builds the
# instance and keeps its list known.
class Statistics:
    def __init__(self, width):
        self.stat = {"tps": [], "lens": []}
        self.items = []
        self.blocks = torch.nn.ModuleList()
        self._build(width)

    def _build(self, width):
        for _ in range(2):
            self.blocks.append(torch.nn.Linear(width, width))

    def save(self, value):
        self.stat["tps"].append(value)
        self.items.append(value)

    def report(self):
        return sum(self.items) / len(self.items) + sum(self.stat["tps"]) / len(self.stat["tps"])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


statistics = Statistics(6)
statistics.save(2.0)
mean = statistics.report()
through = statistics.forward(torch.randn(3, 6))  #~ shape through: Tensor[3, 6]
