#!/usr/bin/python3
"""Exports the benchmark's model graphs with shapes (ShapeProp on one
224x224 image): torchvision resnet50, mobilenet_v2 and vit_b_16 (traced with
tests/torch/tracing_fixes.py, which torch 1.13 needs on Python 3.11), and
vit-deep: a 5,750-layer torchvision VisionTransformer (32x32 image, patch
16, hidden 8, 2 heads, MLP 16) of about 100,000 call nodes.

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
    "vit-deep": lambda: torchvision.models.VisionTransformer(
        image_size=32, patch_size=16, num_layers=DEEP_LAYERS, num_heads=2, hidden_dim=8,
        mlp_dim=16),
}
DEEP_LAYERS = int(os.environ.get("FXSPLIT_BENCH_DEEP_LAYERS", "5750"))


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
            size = 32 if name == "vit-deep" else 224
            fxsplit_torch.export(gm, (torch.rand(1, 3, size, size),), path)
        print(f"exported {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
