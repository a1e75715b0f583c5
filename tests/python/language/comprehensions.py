# List comprehensions over any sequence, with `if` clauses, tuple targets
# and nested comprehensions: each runs where Python runs it, and its names
# are its own.
import torch
import torch.nn as nn

depths = [32, 16, 24]
halves = [d // 2 for d in depths]
first = torch.zeros(halves[0])  #~ shape first: Tensor[16]

widths = [w * 2 for w, keep in zip([4, 8, 16], [True, False, True]) if keep]
last = torch.zeros(widths[-1], len(widths))  #~ shape last: Tensor[32, 2]

i = 10
grid = [[i * j for j in range(2)] for i in range(3)]
corner = torch.zeros(grid[2][1], len(grid))  #~ shape corner: Tensor[2, 3]
still = torch.zeros(i)  #~ shape still: Tensor[10]

rows = [[k + m for k in range(m)] for m in range(1, 4)]
ragged = torch.zeros(len(rows[2]), rows[2][2])  #~ shape ragged: Tensor[3, 5]


def pick(x):
    # The comprehension runs only when the condition is false.
    return x if x.shape[1] == 8 else [nn.Linear(4, 4)(r) for r in x]


kept = pick(torch.randn(2, 8))


def summed(x, s):
    return x.sum(-1) if isinstance(s, torch.Tensor) else x


not_a_tensor = summed(torch.randn(2, 3), 0.5)  #~ shape not_a_tensor: Tensor[2, 3]
a_tensor = summed(torch.randn(2, 3), torch.randn(1))  #~ shape a_tensor: Tensor[2]
