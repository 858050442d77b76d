#!/usr/bin/python3
"""Exports the benchmark's model graphs with shapes (ShapeProp on one
224x224 image): torchvision resnet50, mobilenet_v2 and vit_b_16 (traced with
tests/torch/tracing_fixes.py, which torch 1.13 needs on Python 3.11).

Usage: export_models.py OUTDIR
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "torch"))

import torch  # noqa: E402
import torchvision  # noqa: E402

import fxsplit_torch  # noqa: E402
import tracing_fixes  # noqa: E402

MODELS = {
    "resnet50": torchvision.models.resnet50,
    "mobilenet_v2": torchvision.models.mobilenet_v2,
    "vit_b_16": torchvision.models.vit_b_16,
}


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    torch.manual_seed(0)
    for name, make in MODELS.items():
        path = os.path.join(outdir, f"{name}.json")
        if os.path.exists(path):
            continue
        model = make().eval()
        gm = tracing_fixes.symbolic_trace(model)
        with torch.no_grad():
            fxsplit_torch.export(gm, (torch.rand(1, 3, 224, 224),), path)
        print(f"exported {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
