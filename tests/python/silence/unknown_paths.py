# Paths decided by values tensorfit knows nothing of: no failure on them is
# a proof (docs/python.md, "Unknown, never an error"). Shapes from real
# library code (torch 1.13's own files) that were once false alarms.


def count_quantized(node):
    # The loop over an unknown list may not run; the assertion holds for
    # the programs that call this.
    found = 0
    for arg in node.args:
        if arg is not None:
            found += 1
    assert found > 0
    return found


def expect_none(value, msg):
    # `value` has no annotation: a caller may pass `None`.
    assert value is None, msg


class Group:
    # Filled in later by the program (`Group.WORLD = pg`), not a constant.
    WORLD = None


def is_initialized():
    return Group.WORLD is not None


def default_group():
    if not is_initialized():
        raise RuntimeError("not initialised")
    return Group.WORLD


def validate(args, kwargs):
    # `args` is a tuple of tensors, not a tensor: read as a tensor, its
    # items' ranks would contradict each other.
    weight = args[1]
    bias = args[2]
    if len(weight.size()) != 2:
        raise ValueError("weight needs 2 dims")
    if len(bias.size()) != 1:
        raise ValueError("bias needs 1 dim")


def sharded(types, args, kwargs, pg):
    validate(args, kwargs)
    return args[0]


def matmul_shape(t1, t2):
    d1 = len(t1)
    d2 = len(t2)
    if d1 == 1 and d2 == 1:
        return []
    elif d1 >= 1 and d2 >= 1:
        return [d1]
    else:
        assert False, "both arguments to matmul need to be at least 1D"


def parse(value, desc, arg_name=None, node_name=None):
    if desc == "none":
        return value
    if value.node().kind() == "onnx::Constant":
        return value
    if arg_name is None or node_name is None:
        raise ValueError("expected a constant")
    raise ValueError(f"expected a constant for {arg_name} of {node_name}")


def constant(value, desc):
    return parse(value, desc)


class Frozen:
    ready = False

    def __init__(self):
        self.ready = True

    def __setattr__(self, key, value):
        if self.ready:
            raise AttributeError("frozen")
