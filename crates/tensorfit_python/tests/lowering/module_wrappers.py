# §2: a module keeps its class through .to(device), .eval(), torch.compile,
# nn.DataParallel and .module; q, k, v = x.split(...) unpacks.
import torch
import torch.nn as nn

model = nn.Linear(8, 24).to("cpu").eval()
wrapped = nn.DataParallel(model)
inner = wrapped.module
fast = torch.compile(inner)
q, k, v = fast(torch.randn(2, 8)).split(8, dim=1)
