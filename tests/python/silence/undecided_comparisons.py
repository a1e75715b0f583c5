# A comparison tensorfit does not decide (`src.shape != dst.shape` of
# parameters of unknown rank, in kornia's `ImageRegistrator.register`)
# decides paths that are not known to be taken: a guard inside one binds
# no caller, whatever the caller passes.
import torch
import torch.nn.functional as F


class Registrator:
    def __init__(self, allow_shape_mismatch=False):
        self.allow_shape_mismatch = allow_shape_mismatch

    def register(self, src, dst):
        if src.shape != dst.shape:
            if not self.allow_shape_mismatch:
                raise ValueError("images of different shapes")
            src = F.interpolate(src, size=dst.shape[-2:])
        return src


def matching(src, dst, strict=True):
    same = src.shape == dst.shape
    if not same:
        if strict:
            raise ValueError("different shapes")
    return src


registrator = Registrator()
a = torch.randn(1, 3, 40, 60)
b = torch.randn(1, 3, 40, 60)
warped = registrator.register(a, b)  #~ shape warped: Tensor[1, 3, 40, 60]
kept = matching(a, b)  #~ shape kept: Tensor[1, 3, 40, 60]
small = torch.randn(1, 3, 20, 30)
loose = Registrator(allow_shape_mismatch=True).register(small, b)
