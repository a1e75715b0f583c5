# The script's names live past the `if` and the loop that assign them, as
# Python's do: after `x = a; if c: x = b`, `x` is either, so nothing that
# only one of them would break is an error.
import os
import torch

x = torch.randn(3)
if os.environ.get("TENSORFIT_NEVER_SET") is None:
    x = torch.randn(4)
y = x + torch.randn(4)

if os.environ.get("TENSORFIT_NEVER_SET") is None:
    hidden = 16
else:
    hidden = 16
layer = torch.nn.Linear(hidden, 10)
out = layer(torch.randn(2, hidden))  #~ shape out: Tensor[2, 10]

seen = None
for step in range(3):
    seen = torch.randn(step + 1, 5)
last = seen.sum(0)  #~ shape last: Tensor[5]

features = torch.randn(2, 7)
try:
    features = torch.cat([features, features], dim=1)
except RuntimeError:
    pass
both = features @ torch.randn(14, 3)
wrong = torch.randn(2, 7) @ torch.randn(6, 3)  #~ error: shape mismatch in matrix multiplication
