# `if cond: raise` is a guard (PYTHON.md §3): the function goes on only
# where `cond` is false, and raising is what it does otherwise. A call that
# makes `cond` true is the error, at the call; the function itself is not.
import torch
from torch import nn


def heads_of(x, n_head):
    if x.size(-1) % n_head != 0:
        raise ValueError("the width must divide into heads")
    B, T, C = x.size()
    return x.view(B, T, n_head, C // n_head)


def canonical_dim(rank: int, idx: int) -> int:
    if idx >= 0 and idx < rank:
        return idx
    if idx < 0:
        wrapped = idx + rank
    else:
        wrapped = idx
    if wrapped < 0 or wrapped >= rank:
        raise IndexError("dimension out of range")
    return wrapped


split = heads_of(torch.randn(2, 5, 12), 4)  #~ shape split: Tensor[2, 5, 4, 3]
last = canonical_dim(3, -1)
uneven = heads_of(torch.randn(2, 5, 10), 4)  #~ error: `if x.size(-1) % n_head != 0: raise` raises: x.size(-1) % n_head = 2


# A branch that can leave before its `raise` (a `return` in it, found in
# LLaVA's `tokenizer_image_token`) is no guard: it raises only on some paths.
def as_tensor(ids, return_tensors=None):
    if return_tensors is not None:
        if return_tensors == "pt":
            return torch.tensor(ids)
        raise ValueError(f"unsupported: {return_tensors}")
    return ids


def first_positive(values):
    for v in values:
        if v <= 0:
            continue
        return v
    raise ValueError("no positive value")


def widths(channels, n):
    out = []
    for i in range(n):
        if channels % (i + 1) != 0:
            break
        out.append(channels // (i + 1))
    else:
        raise ValueError("n too large")
    return out


ids = as_tensor([1, 2, 3], return_tensors="pt")  #~ shape ids: Tensor[3]
plain = as_tensor([1, 2, 3])
positive = first_positive([-1, 2])
some = widths(6, 4)


# A guard after a branch that returns only on a nested condition holds
# only where that branch did not return (diffusers' `_get_task_class`:
# `if name is not None: if found is not None: return found`, then
# `if throw_error_if_not_exist: raise`).
def task_class(mapping, name, throw_error_if_not_exist=True):
    if name is not None:
        found = mapping.get(name, None)
        if found is not None:
            return found
    if throw_error_if_not_exist:
        raise ValueError(f"no task for {name}")


def lookup(name):
    return task_class({"a": 1, "b": 2}, name)


def nested_return(a, b, strict=True):
    if a:
        if b:
            return 1
    if strict:
        raise ValueError("no")
    return 2


found = lookup("b")
both = nested_return(True, True)
lenient = nested_return(False, True, False)
strict = nested_return(True, False)  #~ error: `if strict: raise` raises


# An `assert` names its condition as the file writes it: `mode in
# self.MODES`, `not` and `and` in words (generative-models' test script
# asks for an attention mode its block no longer has). A class's own
# requirement is reported where it stands, with a note at the construction
# that fails it.
class Block(torch.nn.Module):
    MODES = {"softmax": 1, "softmax-xformers": 2}

    def __init__(self, mode="softmax", fused=False):
        super().__init__()
        assert mode in self.MODES  #~ error: assertion `mode in self.MODES` does not hold
        assert not (fused and mode == "softmax")  #~ error: assertion `not (fused and mode == "softmax")` does not hold
        self.mode = mode


plain = Block("softmax-xformers")
flash = Block("flash-cosine")
fused = Block(fused=True)


# A class's function is named as the file calls it: `Ops.heads`.
class Ops:
    @staticmethod
    def heads(x, n):
        if x.shape[-1] % n != 0:
            raise ValueError("not divisible")
        return x


halves = Ops.heads(torch.randn(2, 5), 2)  #~ error: this call of `Ops.heads` fails
