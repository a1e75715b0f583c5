# A script of the zoo's users: `tiny_net()` reaches `WeightsEnum.verify`
# in `zoo/api.py`, a file the script does not import itself, through the
# builder's own imports; without weights, `num_classes` stays the
# builder's default.
import torch
from zoo.tiny import tiny_net, TinyNet_Weights
from zoo.api import WeightsEnum

x = torch.randn(2, 3, 32, 32)
logits = tiny_net()(x)  #~ shape logits: Tensor[2, 1000]
narrow = tiny_net(width=8, num_classes=5)(x)  #~ shape narrow: Tensor[2, 5]
wrong = tiny_net()(torch.randn(2, 4, 32, 32))  #~ error: `nn.Conv2d` gets the wrong number of input channels

# Called through the class, as the builders call it.
none = TinyNet_Weights.verify(None)
if none is not None:
    picked = torch.randn(3)
else:
    picked = torch.randn(4)
chosen = picked * 2  #~ shape chosen: Tensor[4]
named = WeightsEnum.describe("tiny")
