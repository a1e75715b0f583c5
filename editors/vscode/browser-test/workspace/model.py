import torch
x = torch.randn(2, 3)
y = x @ torch.randn(4, 5)
