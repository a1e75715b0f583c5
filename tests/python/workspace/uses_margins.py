# A file with its own `softmax` (pytorch_geometric's example imports the
# graph one, which raises without an `index`) calls a library function
# that calls `F.softmax`: the library's call is PyTorch's operation still.
import torch
from margins import probability_margin


def softmax(src, index=None):
    if index is None:
        raise ValueError("index is required")
    return src.exp() / src.exp().sum()


margin = probability_margin(torch.randn(5, 3), torch.tensor([0, 1, 2, 0, 1]))  #~ shape margin: Tensor[]
grouped = softmax(torch.randn(5), torch.tensor([0, 0, 1, 1, 1]))  #~ shape grouped: Tensor[5]
