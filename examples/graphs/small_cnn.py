"""The model behind small-cnn.json: a small CNN with a residual block.

Regenerate the graph file (needs torch; run from the repository root):

    PYTHONPATH=python /usr/bin/python3 examples/graphs/small_cnn.py examples/graphs/small-cnn.json

Each call node also gets a "stage" meta entry (0: stem, 1: residual block,
2: head), which conf/map-meta.ini uses to partition by meta key, and the
same as a string tag "part" ("stem", "block", "head"), which
conf/map-tags.ini uses.
"""
import json
import sys

import torch
import torch.fx
from torch import nn


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.block_conv1 = nn.Conv2d(16, 16, 3, padding=1)
        self.block_bn1 = nn.BatchNorm2d(16)
        self.block_conv2 = nn.Conv2d(16, 16, 3, padding=1)
        self.block_bn2 = nn.BatchNorm2d(16)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = self.stem(x)
        y = torch.relu(self.block_bn1(self.block_conv1(x)))
        y = self.block_bn2(self.block_conv2(y))
        x = torch.relu(x + y)
        x = torch.flatten(self.pool(x), 1)
        return self.fc2(torch.relu(self.fc1(x)))


# The call nodes of the residual block, by their traced names.
BLOCK = {"block_conv1", "block_bn1", "relu", "block_conv2", "block_bn2", "add", "relu_1"}


PARTS = ("stem", "block", "head")


def stage_of(name):
    if name.startswith("stem"):
        return 0
    return 1 if name in BLOCK else 2


def main(path):
    from fxsplit_torch import graph_to_dict

    torch.manual_seed(0)
    gm = torch.fx.symbolic_trace(SmallCNN().eval())
    graph = graph_to_dict(gm, (torch.randn(2, 3, 16, 16),))
    for node in graph["nodes"]:
        if node["op"].startswith("call_"):
            node.setdefault("meta", {})["stage"] = stage_of(node["name"])
            node["meta"]["part"] = PARTS[node["meta"]["stage"]]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(graph, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
