# PyTorch's named arguments beside the contracts' parameters (found on
# MAE's `imgs.reshape(shape=(...))`, where the shape was lost and a false
# error followed): numpy's `axis=`/`keepdims=`, a variadic parameter given
# by its name and one sequence, and the tensor options, which never change
# a shape. Any other name may choose another overload (`x.view(dtype=...)`):
# the result is unknown, never a guess.
import torch

x = torch.randn(2, 12)
y = torch.randn(2, 3)

patches = x.reshape(shape=(2, 3, 4))  #~ shape patches: Tensor[2, 3, 4]
flat = torch.reshape(x, shape=(24,))  #~ shape flat: Tensor[24]
viewed = x.view(size=(6, 4))  #~ shape viewed: Tensor[6, 4]
swapped = x.permute(dims=(1, 0))  #~ shape swapped: Tensor[12, 2]
grown = x[:1].expand(size=(3, 12))  #~ shape grown: Tensor[3, 12]
tiled = x.repeat(repeats=(2, 1))  #~ shape tiled: Tensor[4, 12]
zeros = torch.zeros(size=(4, 5))  #~ shape zeros: Tensor[4, 5]
noise = torch.randn(size=[2, 3], dtype=torch.float64)  #~ shape noise: Tensor[2, 3]

rows = x.sum(axis=1)  #~ shape rows: Tensor[2]
kept = torch.mean(x, axis=-1, keepdims=True)  #~ shape kept: Tensor[2, 1]
joined = torch.cat([x, y], axis=1)  #~ shape joined: Tensor[2, 15]
best = x.argmax(axis=1)  #~ shape best: Tensor[2]
front = x.unsqueeze(axis=0)  #~ shape front: Tensor[1, 2, 12]

placed = torch.zeros(2, 3, dtype=torch.float16, device="cpu", requires_grad=True)  #~ shape placed: Tensor[2, 3]
summed = torch.sum(x, dtype=torch.float64, dim=0)  #~ shape summed: Tensor[12]

# Another overload, by a name the contract does not have: unknown, so no
# binding is shown and no error follows (a view into no dimensions was).
halves = x.view(dtype=torch.int16)
drawn = torch.randint(high=10, size=(2, 3))

# A wrong size through a named shape is still an error.
wrong = x.reshape(shape=(5, 5))  #~ error: cannot `torch.reshape`

# `nn.Identity` ignores the arguments it is given.
same = torch.nn.Identity(12)(x)  #~ shape same: Tensor[2, 12]
kept_too = torch.nn.Identity(inplace=True)(x)  #~ shape kept_too: Tensor[2, 12]
