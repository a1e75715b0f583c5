# Python 2 code and text that does not parse: tree-sitter recovers, and
# tensorfit reports nothing, not even the syntax errors (those are the
# Python server's to report).
import torch

print "hello", torch.__version__
exec "x = 1"
def broken(x:
    return x +

class Half(torch.nn.Module):
    def __init__(self):
        super(Half, self).__init__()
        self.fc = torch.nn.Linear(4,
    def forward(self, x):
        return self.fc(x

y = Half()(torch.randn(2, 4))
