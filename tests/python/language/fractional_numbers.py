# A constructor parameter that `__init__` only stores, or uses as a
# number, is read as one; it may hold a float (fairseq's noising:
# `word_blanking_prob`, a probability). A comparison that orders it is not
# decided as if it were an integer, where `0 < p < 1` never holds once
# `p == 0` is ruled out; a call that passes known numbers still decides
# it, so the assertions below that fail for the numbers given are errors.
import torch
import torch.nn as nn


class WordDropout:
    def __init__(self, default_dropout_prob=0.1):
        self.default_dropout_prob = default_dropout_prob

    def noising(self, x, dropout_prob=None):
        if dropout_prob is None:
            dropout_prob = self.default_dropout_prob
        if dropout_prob == 0:
            return x
        assert 0 < dropout_prob < 1
        return x * 2


class Noising:
    def __init__(self, word_dropout_prob, word_blanking_prob):
        self.word_dropout_prob = word_dropout_prob
        self.word_blanking_prob = word_blanking_prob
        self.word_dropout = WordDropout()

    def noising(self, x):
        x = self.word_dropout.noising(x, dropout_prob=self.word_dropout_prob)
        return self.word_dropout.noising(x, dropout_prob=self.word_blanking_prob)


class Threshold(nn.Module):
    def __init__(self, low, high):
        super().__init__()
        self.low = low
        self.high = high

    def forward(self, x):
        assert self.low < self.high < self.low + 1
        return x.clamp(self.low, self.high)


class Heads(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        assert heads > 0  #~ error: assertion `heads > 0` does not hold: heads = 0
        self.proj = nn.Linear(dim, dim * heads)

    def forward(self, x):
        return self.proj(x)


noise = Noising(0.1, 0.2)
y = noise.noising(torch.randn(3, 4))  #~ shape y: Tensor[3, 4]
z = Threshold(0.25, 0.75)(torch.randn(5))  #~ shape z: Tensor[5]
wide = Threshold(3, 5)(torch.randn(5))  #~ error: this call of `Threshold.forward` fails: assertion `self.low < self.high < self.low + 1` does not hold
heads = Heads(8, 2)(torch.randn(2, 8))  #~ shape heads: Tensor[2, 16]
no_heads = Heads(8, 0)
