# Items reached through an imported module (`import blocks as b`,
# `b.ConvBlock(...)`), found as `from blocks import ConvBlock` would find
# them: how scripts call `models.resnet50()` after `import
# torchvision.models as models`.
import torch
import blocks as b
import blocks

head = b.Classifier(64, 5)
scores = head(torch.randn(2, 64))  #~ shape scores: Tensor[2, 5]
wrong = head(torch.randn(2, 32))  #~ error: `nn.Linear` gets the wrong number of input features
projected = blocks.project(torch.randn(4, 6), 3)  #~ shape projected: Tensor[4, 3]


def ConvBlock(channels):
    # A local definition of the same name: `b.ConvBlock` is still the
    # module's.
    return channels


features = b.ConvBlock(3, 8)(torch.randn(1, 3, 16, 16))
