# §3: indexing and slicing with PyTorch's semantics.
import torch

x = torch.randn(4, 5, 6)
a = x[:, 0]
b = x[..., :3]
c = x[:, None]
d = x[-1, 1:-1, ::2]
e = x[x > 0]
