# §2: self.training and torch.jit.is_scripting() as paths; eval() and
# train() set the flag.
import torch
import torch.nn as nn


class Drop(nn.Module):
    def __init__(self):
        super().__init__()
        self.p = nn.Dropout(0.1)

    def forward(self, x):
        if self.training and not torch.jit.is_scripting():
            x = self.p(x)
        return x


net = Drop()
net.eval()
y = net(torch.randn(2, 3))
