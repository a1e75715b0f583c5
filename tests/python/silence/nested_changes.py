# A part of a part of a local changed in place (minGPT's
# `config.model.vocab_size = ...` before `GPT(config.model)` asserts it is
# not `None`): the local holds the new part afterwards, never the old one.
import torch


class Node:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)


def model_config():
    c = Node()
    c.vocab_size = None
    c.width = 8
    return c


def config():
    c = Node()
    c.model = model_config()
    c.sizes = [1, 2]
    return c


class Model:
    def __init__(self, cfg):
        assert cfg.vocab_size is not None
        self.table = torch.zeros(cfg.vocab_size, cfg.width)


cfg = config()
cfg.model.vocab_size = 10
model = Model(cfg.model)
table = model.table  #~ shape table: Tensor[10, 8]

cfg.sizes[0] = 5
assert cfg.sizes[0] == 5
