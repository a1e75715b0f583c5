# A field a method other than `__init__` assigns, set on an object from
# outside (kornia's tests: `results._original_res_logits = t`, then
# `results.squeeze(0)`; `tracker.previous_homography = h`, then
# `tracker.reset_tracking()`): the method's change to its object is not
# followed, so the value set is not kept either, where it would be stale
# after the call. What is read back is unknown, and the asserts are no
# errors.
from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class Results:
    logits: torch.Tensor
    _extra: Optional[torch.Tensor] = None

    def squeeze(self, dim: int = 0):
        self.logits = self.logits.squeeze(dim)
        if isinstance(self._extra, torch.Tensor):
            self._extra = self._extra.squeeze(dim)
        return self

    def half(self):
        self._extra = self._extra[:, :16]
        return self


class Tracker:
    def __init__(self, size):
        self.size = size
        self.previous = None

    def reset(self):
        self.previous = None

    def step(self, x):
        if self.previous is not None:
            x = x + self.previous
        self.previous = x
        return x


r = Results(torch.randn(1, 3, 8, 8))
r._extra = torch.randn(1, 3, 32, 32)
squeezed = r.squeeze(dim=0)
assert squeezed._extra.shape == (3, 32, 32)

h = Results(torch.randn(2, 4))
h._extra = torch.randn(1, 32)
halved = h.half()
assert halved._extra.shape == (1, 16)

tracker = Tracker(4)
tracker.previous = torch.randn(3, 3)
tracker.reset()
assert tracker.previous is None
out = tracker.step(torch.randn(2, 5))
