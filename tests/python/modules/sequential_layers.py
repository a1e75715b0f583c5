# An `nn.Sequential` applies its layers in turn; when two of them
# disagree, the message names the input of the layer that refuses it as
# the program could write it: `stack[:2](x)` is the output of the first two.
import torch
import torch.nn as nn

stack = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 4, 3))
y = stack(torch.randn(1, 3, 10, 10))  #~ shape y: Tensor[1, 4, 6, 6]

broken = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(16, 4, 3))
x = torch.randn(1, 3, 10, 10)
z = broken(x)  #~ error: `nn.Conv2d` gets the wrong number of input channels: broken[:2](x).shape[-3] = 8 but in_channels = 16


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Linear(4, 6),
            nn.Sequential(nn.ReLU(), nn.Linear(5, 2)),
        )

    def forward(self, x):
        return self.features(x)  #~ error: `nn.Linear` gets the wrong number of input features: self.features[1][:1](self.features[:1](x)).shape[-1] = 6 but in_features = 5


out = Net()(torch.randn(2, 4))
