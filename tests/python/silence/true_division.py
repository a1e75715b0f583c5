# Python's `/` of ints is a float. A quotient of sizes the analysis does
# not know is a float of unknown value, never the floor it takes in the
# Tensor language: `round(src_h * (height / src_h))` is `height` (diffusers'
# LTX-2 video resizing), where a floored quotient gave 0 and a false
# "size 0" error. `int(a * (b / 64.0))` is still the floor of the exact
# quotient (ResNeXt's widths).
import torch
import torch.nn.functional as F


def resize(video: torch.Tensor, height: int, width: int) -> torch.Tensor:
    b, c, src_h, src_w = video.shape
    if height >= src_h and width >= src_w:
        return video
    scale = min(height / src_h, width / src_w)
    new_h = round(src_h * scale)
    new_w = round(src_w * scale)
    return F.interpolate(video, size=(new_h, new_w), mode="bilinear", align_corners=False)


def bottleneck_width(planes: int, base_width: int, groups: int) -> int:
    return int(planes * (base_width / 64.0)) * groups


small = resize(torch.randn(1, 3, 8, 8), 4, 4)
wide = torch.zeros(bottleneck_width(64, 4, 32))  #~ shape wide: Tensor[128]
