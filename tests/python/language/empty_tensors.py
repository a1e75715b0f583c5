# PyTorch creates empty tensors (a size of 0) but refuses negative sizes.
# An empty tensor's shape is not followed (tensorfit's dimensions are
# positive), so nothing below it is reported; a negative size is an error.
import torch

empty = torch.zeros(0, 4)
no_steps = torch.arange(0)
nothing = torch.empty(0)
none_more = empty.new_zeros(0, 3)
countdown = torch.arange(5, 0, -1)
grid = torch.zeros(2, 4)  #~ shape grid: Tensor[2, 4]
negative = torch.zeros(-1, 2)  #~ error: negative dimension -1
backwards = torch.arange(5, 0)  #~ error: end is before its start
joined = torch.cat([empty, grid])
