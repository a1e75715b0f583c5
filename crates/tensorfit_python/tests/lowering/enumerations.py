from enum import Enum, IntEnum, StrEnum, auto


class Mode(str, Enum):
    SAME = "same"
    NEXT = auto()
    _ignore_ = ["x"]


class Width(IntEnum):
    NARROW = 8
    WIDE = auto()


class Kind(StrEnum):
    CONV = auto()


class Colour(Enum):
    RED = 1

    def describe(self):
        return self.name
