# A U-Net (Ronneberger et al. 2015) with padded convolutions, as most
# PyTorch ports write it: the decoder upsamples with a transposed
# convolution and concatenates the encoder's feature map (`torch.cat`
# skips) before two more convolutions.
import torch
import torch.nn as nn
import torch.nn.functional as F


class DoubleConv(nn.Module):
    """(convolution => batch norm => ReLU) twice."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_channels)
        self.conv2 = nn.Conv2d(out_channels, out_channels, kernel_size=3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_channels)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(x)))


class Down(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.pool = nn.MaxPool2d(2)
        self.conv = DoubleConv(in_channels, out_channels)

    def forward(self, x):
        return self.conv(self.pool(x))


class Up(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.up = nn.ConvTranspose2d(in_channels, in_channels // 2, kernel_size=2, stride=2)
        self.conv = DoubleConv(in_channels, out_channels)

    def forward(self, x, skip):
        x = self.up(x)
        x = torch.cat([skip, x], dim=1)
        return self.conv(x)


class UNet(nn.Module):
    def __init__(self, n_channels=3, n_classes=2):
        super().__init__()
        self.inc = DoubleConv(n_channels, 64)
        self.down1 = Down(64, 128)
        self.down2 = Down(128, 256)
        self.down3 = Down(256, 512)
        self.up1 = Up(512, 256)
        self.up2 = Up(256, 128)
        self.up3 = Up(128, 64)
        self.outc = nn.Conv2d(64, n_classes, kernel_size=1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x4 = self.down3(x3)
        x = self.up1(x4, x3)
        x = self.up2(x, x2)
        x = self.up3(x, x1)
        return self.outc(x)


class BrokenUp(nn.Module):
    """The skip's channels forgotten: the convolution after the
    concatenation expects only the upsampled half."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.up = nn.ConvTranspose2d(in_channels, in_channels // 2, kernel_size=2, stride=2)
        self.conv = DoubleConv(in_channels // 2, out_channels)

    def forward(self, x, skip):
        x = torch.cat([skip, self.up(x)], dim=1)
        return self.conv(x)


model = UNet()
image = torch.randn(1, 3, 64, 64)
mask = model(image)  #~ shape mask: Tensor[1, 2, 64, 64]
bottom = model.down3(model.down2(model.down1(model.inc(image))))  #~ shape bottom: Tensor[1, 512, 8, 8]
odd = model(torch.randn(1, 3, 60, 60))  #~ error: `torch.cat` needs equal sizes in dimension 2
broken = BrokenUp(128, 64)(torch.randn(1, 128, 16, 16), torch.randn(1, 64, 32, 32))  #~ error
