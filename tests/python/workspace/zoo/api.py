# The weights registry of a model zoo, the way torchvision's `_api.py`
# and `_utils.py` are written: an enum whose subclasses list a model's
# weights, checked by a class method, and a helper that sets a builder's
# keyword argument in place.
from enum import Enum


class WeightsEnum(Enum):
    @classmethod
    def verify(cls, obj):
        if obj is not None:
            if type(obj) is str:
                obj = cls[obj]
            elif not isinstance(obj, cls):
                raise TypeError(f"expected {cls.__name__}")
        return obj

    @staticmethod
    def describe(name):
        return "weights " + name


def overwrite_named_param(kwargs, param, new_value):
    if param in kwargs:
        if kwargs[param] != new_value:
            raise ValueError(f"{param} must be {new_value}")
    else:
        kwargs[param] = new_value
