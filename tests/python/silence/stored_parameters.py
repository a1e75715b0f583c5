# A constructor's parameter that `__init__` only stores is of no known
# type: a method comparing it with strings (fairseq's emotion-conversion
# pitch predictor, `if self.f0_pred == "mean": ... elif ... == "argmax":
# ... else: raise`) may take either branch, and no caller is told the
# `raise` always runs.
import torch
import torch.nn as nn


def decode(x, mode):
    if mode == "mean":
        return x.mean(-1)
    elif mode == "argmax":
        return x.argmax(-1)
    else:
        raise NotImplementedError(mode)


class Predictor(nn.Module):
    def __init__(self, dim, bins, f0_pred):
        super().__init__()
        self.proj = nn.Linear(dim, bins)
        self.f0_pred = f0_pred

    def forward(self, x):
        x = self.proj(x)
        if self.f0_pred == "mean":
            x = torch.sigmoid(x)
        elif self.f0_pred == "argmax":
            x = torch.softmax(x, dim=-1)
        else:
            raise NotImplementedError(self.f0_pred)
        return x

    def inference(self, x):
        return decode(self(x), self.f0_pred)


predictor = Predictor(16, 8, "argmax")
probs = predictor(torch.randn(4, 16))  #~ shape probs: Tensor[4, 8]
f0 = predictor.inference(torch.randn(4, 16))  #~ shape f0: Tensor[4]
