# A dataclass's `__post_init__` runs after the fields take their defaults
# and may change them (whisper's `Tokenizer` builds `sot_sequence` there
# over the default `()`): a field it assigns, changes in place, passes to
# a call or may reach through a method of `self` is unknown afterwards,
# never its default. Fields it only reads stay known.
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

import torch


@dataclass
class Tokens:
    size: int
    width: int = 4
    sequence: Tuple[int] = ()
    table: Dict[str, int] = field(default_factory=dict)
    extra: List[int] = field(default_factory=list)

    def __post_init__(self):
        assert self.width > 0
        self.table["start"] = self.size
        self.extra.append(self.size)
        self.sequence = tuple([self.size])


tokens = Tokens(5)
assert 5 in tokens.sequence
assert len(tokens.extra) == 1
assert tokens.table["start"] == 5
embedded = torch.zeros(tokens.size, tokens.width)  #~ shape embedded: Tensor[5, 4]


@dataclass(frozen=True)
class Frozen:
    size: int = 2

    def __post_init__(self):
        object.__setattr__(self, "size", 3)


assert Frozen().size == 3


@dataclass
class Configured:
    heads: int = 2
    layers: List[int] = field(default_factory=list)

    def __post_init__(self):
        self.fill()

    def fill(self):
        self.layers += [self.heads] * 3


assert len(Configured().layers) == 3
