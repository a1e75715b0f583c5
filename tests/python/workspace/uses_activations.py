# Errors inside another file's class are reported at this file's call
# that builds it (fairseq's SparseTransformerSentenceEncoder passes its
# arguments by position to a base that has one more parameter, so a
# `bool` lands on `activation_fn`).
import torch
from activations import Encoder


class Sparse(Encoder):
    def __init__(self, dim, activation="relu", bidirectional=True):
        super().__init__(dim, activation, bidirectional)


class Plain(Encoder):
    def __init__(self, dim, activation="gelu"):
        super().__init__(dim, 0.0, activation)


plain = Plain(8)
y = plain(torch.randn(2, 8))  #~ shape y: Tensor[2, 8]
unknown = Encoder(8, activation="swish")  #~ error: this call of `Encoder` fails: `name == "gelu"` is false
sparse = Sparse(8)  #~ error: this call of `Sparse` fails
