# A layer that picks its activation by name, for `uses_activations.py`:
# what another file's class requires is reported where this file's code
# builds it.
import torch.nn as nn
import torch.nn.functional as F


def activation_named(name):
    if name == "relu":
        return F.relu
    elif name == "gelu":
        return F.gelu
    else:
        raise RuntimeError(f"activation {name} not supported")


class Encoder(nn.Module):
    def __init__(self, dim, dropout=0.1, activation="relu"):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.dropout = nn.Dropout(dropout)
        self.activation = activation_named(activation)

    def forward(self, x):
        return self.dropout(self.activation(self.fc(x)))
