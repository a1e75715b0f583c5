# Changes in place (PYTHON.md §3): `+=` extends a list and adds to a
# number; an item or attribute assigned, or a container changed by a
# method tensorfit does not follow (`add_module`), makes the value unknown,
# never stale: a stale value would be a wrong shape or a false error.
import torch
from torch import nn


def make_layers(widths, features):
    layers = []
    for width in widths:
        layers += [nn.Linear(features, width), nn.ReLU()]
        features += width - features
    return nn.Sequential(*layers)


mlp = make_layers([8, 16], 4)
out = mlp(torch.randn(2, 4))  #~ shape out: Tensor[2, 16]


class Grown(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(4, 8))
        self.features.add_module("wider", nn.Linear(8, 16))
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        return self.head(self.features(x))


grown = Grown()(torch.randn(3, 4))

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1000))
model[2] = nn.Linear(8, 10)
finetuned = model(torch.randn(2, 4))

# A tensor's items set in place, with slices or several keys (Swin's
# attention mask): its shape stays.
mask = torch.zeros(6, 6)
count = 0
for h in ((0, -3), (-3, None)):
    for w in ((0, -3), (-3, None)):
        mask[h[0] : h[1], w[0] : w[1]] = count
        count += 1
windows = mask.view(2, 3, 2, 3)  #~ shape windows: Tensor[2, 3, 2, 3]
