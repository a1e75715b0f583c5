# A recursive helper called with values a summary's placeholders cannot
# stand for (a float, a string built at each level: diffusers'
# `assert_tensors_close`, which compares nested outputs element by
# element). The recursive call gets no summary of its own, so the analysis
# stays shallow (it went a thousand summaries deep, about a minute a file)
# and the helper still checks its callers' tensors.
import torch


def assert_close(actual, expected, atol=1e-5, rtol=1e-5, msg=""):
    if isinstance(actual, (list, tuple)) or isinstance(expected, (list, tuple)):
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_close(a, e, atol=atol, rtol=rtol, msg=f"{msg} [element {i}]")
        return
    if actual.shape != expected.shape:
        raise AssertionError(f"{msg} shape mismatch: {actual.shape} vs {expected.shape}")
    assert torch.allclose(actual, expected, atol=atol, rtol=rtol), msg


def depth(tree, level=0.5):
    if isinstance(tree, (list, tuple)):
        return max([depth(t, level * 2) for t in tree] + [0]) + 1
    return 0


x = torch.zeros(2, 3)
assert_close(x, torch.zeros(2, 3), atol=1e-4, msg="same")
assert_close([x, x], [x, x], msg="pairs")
d = depth([[1], [2, [3]]])
total = torch.zeros(2, 3) + x  #~ shape total: Tensor[2, 3]
