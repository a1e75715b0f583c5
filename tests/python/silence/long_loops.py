# A list built by a loop too long to run iteration by iteration (more than
# 64, or a count not known) holds what an unknown number of iterations
# made of it: unknown, not its first two iterations' items (RWKV-v3's
# `zigzag`, built over 512 channels, was taken for 2 and its sum with a
# 512-row tensor reported).
import torch

attn_sz = 512
zigzag = (torch.tensor([(i + 1) % 3 - 1 for i in range(attn_sz)]) * 0.5).unsqueeze(1)
time_first = torch.ones(attn_sz, 1) * 0.3 + zigzag

xs = []
for i in range(100):
    xs.append(i)
steps = torch.zeros(len(xs)) + torch.ones(100)

short = torch.tensor([i * 2 for i in range(10)])  #~ shape short: Tensor[10]
