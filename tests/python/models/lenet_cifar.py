# The classic CIFAR-10 CNN of the PyTorch tutorial, with the classic
# mistake: fc1's in_features written for 28x28 MNIST images (16 * 4 * 4)
# while CIFAR's 32x32 images leave 16 * 5 * 5 features after two
# convolutions and poolings.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 4 * 4, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_classes)

    def features(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        return torch.flatten(x, 1)

    def forward(self, x):
        x = self.features(x)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


net = Net()
images = torch.randn(4, 3, 32, 32)  #~ shape images: Tensor[4, 3, 32, 32]
flat = net.features(images)  #~ shape flat: Tensor[4, 400]
logits = net(images)  #~ error: `nn.Linear` gets the wrong number of input features
mnist = torch.randn(4, 3, 28, 28)
ok = net(mnist)  #~ shape ok: Tensor[4, 10]
