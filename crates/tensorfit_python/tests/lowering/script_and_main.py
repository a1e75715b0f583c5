# §3: module-level statements and `if __name__ == "__main__":` form the
# script.
import torch
import torch.nn as nn

net = nn.Linear(3, 4)


def main():
    return net(torch.randn(2, 3))


if __name__ == "__main__":
    out = main()
    print(out.shape)
