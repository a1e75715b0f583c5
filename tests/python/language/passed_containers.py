# A list or dict passed to a function with a body holds, after the call,
# what the function left in it (torchvision's
# `_ovewrite_named_param(kwargs, "groups", 32)`); `in` and `not in` are
# decided for a dict's keys and for lists of known items.
from typing import Any, Dict

import torch
from torch import nn


def overwrite_named_param(kwargs: Dict[str, Any], param: str, new_value: Any) -> None:
    if param in kwargs:
        if kwargs[param] != new_value:
            raise ValueError(f"{param} must be {new_value}")
    else:
        kwargs[param] = new_value


def head(**kwargs: Any) -> nn.Linear:
    overwrite_named_param(kwargs, "out_features", 7)
    return nn.Linear(16, kwargs["out_features"])


def add_block(layers, width: int):
    layers.append(nn.Linear(width, 2 * width))
    if width not in [1, 2, 3]:
        layers.append(nn.ReLU())


x = torch.randn(2, 16)
logits = head()(x)  #~ shape logits: Tensor[2, 7]
agreed = head(out_features=7)(x)  #~ shape agreed: Tensor[2, 7]

layers = [nn.Linear(3, 4)]
add_block(layers, 4)
mlp = nn.Sequential(*layers)
hidden = mlp(torch.randn(5, 3))  #~ shape hidden: Tensor[5, 8]
activation = mlp[2](hidden)  #~ shape activation: Tensor[5, 8]

settings = {"in_features": 16}
if "out_features" not in settings:
    settings["out_features"] = 10
projected = nn.Linear(**settings)(x)  #~ shape projected: Tensor[2, 10]

config = {}
overwrite_named_param(config, "width", 32)
wide = nn.Linear(16, config["width"])(torch.randn(2, 8))  #~ error: `nn.Linear` gets the wrong number of input features
