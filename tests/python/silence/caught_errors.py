# Errors a program expects or swallows, and changes made where the
# analysis does not follow statements (found on litgpt's tests). A `try`
# body, and the body of a `with` whose context manager expects an error
# (`pytest.raises`, `self.assertRaises`) or swallows it
# (`contextlib.suppress`), is not checked; what it assigns or may change
# in place is unknown after it, never as it was. A container changed by a
# method called inside an expression (`part = store.setdefault(k, [])`)
# is unknown from that statement on.
import contextlib
import unittest
from collections import defaultdict

import torch


def fill(store, names):
    for n in names:
        part = store.setdefault(n, defaultdict(dict))
        part["a"]["b"] = 1


weights = {}
fill(weights, ["q", "k"])
assert len(weights) == 2

counts = {}
first = counts.setdefault("a", 0)
assert len(counts) == 1

d = {}
try:
    d["x"] = 1
except KeyError:
    pass
assert len(d) == 1

e = {}
with contextlib.suppress(KeyError):
    fill(e, ["v"])
assert len(e) == 1

x = torch.randn(2, 3)
with contextlib.suppress(RuntimeError):
    y = x @ torch.randn(4, 5)
kept = x  #~ shape kept: Tensor[2, 3]


class Shapes(unittest.TestCase):
    def test_mismatch(self):
        with self.assertRaises(RuntimeError):
            torch.randn(2, 3) @ torch.randn(4, 5)
        with self.assertRaisesRegex(RuntimeError, "dimensions"):
            torch.cat([torch.randn(2, 3), torch.randn(2, 3, 4)])


Shapes("test_mismatch").test_mismatch()


# A `return` inside a `try` (nanochat's sandbox returns a result with
# `timeout=True` from its `except subprocess.TimeoutExpired:`) may be where
# the function ends: its result is unknown, never the last `return`'s.
def timed(limit):
    try:
        if limit < 1:
            raise TimeoutError("too slow")
    except TimeoutError:
        return {"timeout": True}
    return {"timeout": False}


result = timed(0)
assert result["timeout"]


# A list filled inside a `try` in a loop (peft's memory script appends
# each step's memory use; a KeyboardInterrupt ends the loop early): after
# the loop it holds what the `try` left, never the empty list it started as.
def measured(steps, interrupt_at):
    log = []
    for step in range(steps):
        try:
            if step == interrupt_at:
                raise KeyboardInterrupt
            log.append(step + 1)
        except KeyboardInterrupt:
            break
    return sum(log) / len(log)


def measured_in_branch(flag):
    log = []
    if flag:
        try:
            log.append(4)
        except ValueError:
            pass
    return sum(log) / len(log)


assert measured(3, 5) == 2
assert measured_in_branch(True) == 4
