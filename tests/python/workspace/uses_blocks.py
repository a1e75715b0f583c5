# A model made of classes imported from another file of the workspace
# (`from blocks import ...`, found beside this file as Python finds it).
import torch
from torch import nn
from blocks import ConvBlock, Classifier, project


class SmallNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(ConvBlock(3, 16), nn.MaxPool2d(2), ConvBlock(16, 32), nn.MaxPool2d(2))
        self.head = Classifier(32 * 8 * 8, classes)

    def forward(self, x):
        return self.head(self.features(x))


net = SmallNet()
logits = net(torch.randn(4, 3, 32, 32))  #~ shape logits: Tensor[4, 10]
wrong = net(torch.randn(4, 3, 28, 28))  #~ error: `nn.Linear` gets the wrong number of input features
gray = net(torch.randn(4, 1, 32, 32))  #~ error: `nn.Conv2d` gets the wrong number of input channels
scores = project(torch.randn(4, 6), 3)  #~ shape scores: Tensor[4, 3]
