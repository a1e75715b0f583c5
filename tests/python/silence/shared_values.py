# Values changed where the statement at hand does not show it (found on
# open_clip's, nanochat's and diffusers' tests and LLaVA): by a closure
# that may run at any later call (a hook, a monkeypatched function), by a
# module function filling a module-level registry, through a second name
# for the same value (`inner = cfg.model; inner.size = 4`). Such a value is
# unknown, never stale; what no change reaches keeps its shape.
import torch
from torch import nn

REGISTRY = {}


def register(name):
    def decorate(cls):
        REGISTRY[name] = cls
        return cls

    return decorate


@register("plain")
class Plain:
    pass


assert len(REGISTRY) == 1

CALLS = []


def record_call(x):
    CALLS.append(x)


def run(f):
    f(1)


run(record_call)
assert len(CALLS) == 1


def closure_through_a_helper():
    calls = []

    def record(x):
        calls.append(x)

    run(record)
    assert len(calls) == 1


def closure_with_nonlocal():
    count = 0

    def increment():
        nonlocal count
        count += 1

    increment()
    assert count == 1


def closure_in_a_dict():
    seen = []
    handlers = {"on": lambda x: seen.append(x)}
    handlers["on"](2)
    assert len(seen) == 1


class Width:
    def __init__(self):
        self.size = 8


class Config:
    def __init__(self):
        self.model = Width()


def change_through_a_second_name(narrow):
    cfg = Config()
    inner = cfg.model
    if narrow:
        inner.size = 4
    return nn.Linear(cfg.model.size, 2)


narrowed = change_through_a_second_name(True)(torch.randn(3, 4))

cfg = Config()
kept = cfg.model
for _ in range(2):
    cfg.model.size = 4
through_the_first_name = nn.Linear(kept.size, 2)(torch.randn(3, 4))

store = {"a": [1]}
part = store["a"]
part.append(2)
assert len(store["a"]) == 2

tables = [{"a": 1}]
for table in tables:
    table["b"] = 2
assert len(tables[0]) == 2

untouched = Config()
wide = nn.Linear(untouched.model.size, 2)(torch.randn(1, 8))  #~ shape wide: Tensor[1, 2]
first = nn.Sequential(nn.Linear(8, 4), nn.ReLU())
rest = first[1:]
rest.append(nn.Linear(4, 3))
tail = first(torch.randn(2, 8))  #~ shape tail: Tensor[2, 4]

closure_through_a_helper()
closure_with_nonlocal()
closure_in_a_dict()
