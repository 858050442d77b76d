"""Model factories for the pipeline tests (given to the launcher and the
worker as FILE:FACTORY).  Every rank seeds torch before calling one, so
all ranks build the same weights."""
import os

import torch
import torchvision


def resnet18():
    return torchvision.models.resnet18()


def resnet18_other_fc():
    """resnet18 with another classifier size on rank 1 only: the model
    handshake must refuse it."""
    return torchvision.models.resnet18(num_classes=10 if os.environ.get("RANK") == "1" else 1000)


def vit_b_16():
    return torchvision.models.vit_b_16(image_size=32)


class Skips(torch.nn.Module):
    """Four partitions that are not a chain (tests/torch/pipeline/make.py
    tags them): a value skips a partition, an int and a tuple cross
    ranks, and two partitions share a rank."""

    def __init__(self):
        super().__init__()
        self.a, self.b, self.c, self.d = (torch.nn.Linear(16, 16) for _ in range(4))

    def forward(self, x):
        h = torch.relu(self.a(x))           # partition 0
        n = x.size(0)                       # partition 0: an int
        g = self.b(h)                       # partition 1
        pair = (g * 2, g.sum(dim=1))        # partition 1: a tuple
        k = self.c(pair[0]) + h             # partition 2: h skips partition 1
        k = k.reshape(n, 4, 4)              # partition 2: n crosses ranks
        out = self.d(k.reshape(n, 16)) + pair[1].unsqueeze(1)  # partition 3
        return out, k


def skips():
    return Skips()
