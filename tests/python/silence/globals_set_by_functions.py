# A module-level name that a function declares `global` is set whenever
# that function runs (detectron2's `_LOCAL_PROCESS_GROUP = None`, set by
# `create_local_process_group`): never its first value elsewhere.
import torch

_GROUP = None
_WIDTH = 4


def create_group(size):
    global _GROUP
    _GROUP = size


def group_size():
    assert _GROUP is not None, "create_group was not called"
    return _GROUP


def features():
    return torch.zeros(2, _WIDTH)


create_group(3)
members = torch.zeros(group_size())
table = features()  #~ shape table: Tensor[2, 4]
