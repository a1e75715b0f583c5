# §1: f-strings, % formatting, builtins on numbers, dict views, zip.
import torch.nn as nn


class Named(nn.Module):
    def __init__(self, widths=(4, 8)):
        super().__init__()
        seq = nn.Sequential()
        for i, w in enumerate(widths):
            seq.add_module(f"fc{i + 1}", nn.Linear(w, w))
            seq.add_module("act%d" % i, nn.ReLU())
        self.seq = seq
        self.total = sum(widths) + max(widths) + min(widths) + abs(-1)
        pairs = dict(zip(["a", "b"], widths))
        self.keys = list(pairs.keys())

    def forward(self, x):
        return self.seq(x)
