#!/usr/bin/python3
"""PyTorch's split_module against fxsplit_torch.split_module, side by side.

For each graph (torchvision's resnet50, mobilenet_v2, vit_b_16, and deep
VisionTransformers of growing depth), both split the same symbolic_trace'd
GraphModule into 8 contiguous stages with the same Python callback, in the
same process, alternately; the best of --repeat runs each (one run from
30,000 nodes on).  Each row also checks that both results print the same
code.  Needs libfxsplit built (build/core/, or FXSPLIT_LIBRARY).

Usage: /usr/bin/python3 bench/torch_split_module.py [--depths 12,100,500,2000,6000]
                                                   [--models resnet50,mobilenet_v2,vit_b_16]
                                                   [--repeat 5]
"""
import argparse
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "torch"))

import torch  # noqa: E402
import torch.fx  # noqa: E402
from torch.fx.passes.split_module import split_module as torch_split_module  # noqa: E402

import fxsplit_torch  # noqa: E402
import tracing_fixes  # noqa: E402  (torch 1.13 traces vit on Python 3.11 with these)

warnings.filterwarnings("ignore")


def graphs(models, depths):
    import torchvision
    for name in models:
        yield name, getattr(torchvision.models, name)()
    for depth in depths:
        yield (f"VisionTransformer x{depth}",
               torchvision.models.VisionTransformer(image_size=32, patch_size=16, num_layers=depth,
                                                    num_heads=2, hidden_dim=8, mlp_dim=16))


def stages(gm, k=8):
    calls = [n for n in gm.graph.nodes if n.op.startswith("call_")]
    table = {n: i * k // len(calls) for i, n in enumerate(calls)}
    return table.__getitem__


def same_code(gm, theirs, ours):
    """Both print the same code, once torch 1.13's submodule placeholders
    get the original's type as current PyTorch gives them (docs/split-
    semantics.md; tests/torch/report does the same)."""
    types = {n.name: n.type for n in gm.graph.nodes if n.type is not None}
    subs = [(name, sub) for name, sub in theirs.named_children()
            if isinstance(sub, torch.fx.GraphModule)]
    for name, sub in subs:
        for node in sub.graph.nodes:
            if node.op == "placeholder" and node.type is None and node.target in types:
                node.type = types[node.target]
        sub.recompile()
    return theirs.code == ours.code and all(getattr(ours, name).code == sub.code
                                            for name, sub in subs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="resnet50,mobilenet_v2,vit_b_16")
    parser.add_argument("--depths", default="12,100,500,2000,6000")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    models = [m for m in args.models.split(",") if m]
    depths = [int(d) for d in args.depths.split(",") if d]
    print(f"torch {torch.__version__}, libfxsplit {fxsplit_torch.load_library().path}")
    print("| graph | nodes | PyTorch split_module | fxsplit_torch.split_module | speed-up | same code |")
    print("|---|---:|---:|---:|---:|---|")
    for name, model in graphs(models, depths):
        model.eval()
        gm = tracing_fixes.symbolic_trace(model)
        n = len(gm.graph.nodes)
        callback = stages(gm)
        runs = args.repeat if n < 30000 else 1
        best = [float("inf"), float("inf")]
        results = [None, None]
        for _ in range(runs):
            for k, split in enumerate((torch_split_module, fxsplit_torch.split_module)):
                results[k] = None
                start = time.perf_counter()
                results[k] = split(gm, model, callback)
                best[k] = min(best[k], time.perf_counter() - start)
        same = same_code(gm, *results)
        print(f"| {name} | {n:,} | {best[0] * 1e3:,.1f} ms | {best[1] * 1e3:,.1f} ms "
              f"| {best[0] / best[1]:.2f}x | {'yes' if same else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
