"""python3 -m fxsplit_torch export FILE.py:FACTORY --input-shape 1,3,224,224 -o graph.json

Traces the module FACTORY() defined in FILE.py (or an importable module
path, `torchvision.models:resnet18`) with torch.fx and exports it as an
fxsplit graph file, with shapes from example inputs of the given shapes.
"""
import argparse
import sys

import torch
import torch.fx

from .export import ExportError, export
from .factory import load_factory, shape_arg


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m fxsplit_torch")
    sub = parser.add_subparsers(dest="command", required=True)
    exp = sub.add_parser("export", help="trace a model and write it as an fxsplit graph file")
    exp.add_argument("factory", help="FILE.py:FACTORY or package.module:FACTORY")
    exp.add_argument("--input-shape", type=shape_arg, action="append", default=[],
                     help="shape of one example input, e.g. 1,3,224,224 (repeat per input)")
    exp.add_argument("-o", "--output", required=True, help="graph file to write")
    args = parser.parse_args(argv)

    model = load_factory(args.factory)()
    model.train(False)
    gm = torch.fx.symbolic_trace(model)
    inputs = tuple(torch.rand(s) for s in args.input_shape) or None
    try:
        export(gm, inputs, args.output)
    except ExportError as e:
        print(f"fxsplit_torch: {e}", file=sys.stderr)
        return 2
    print(f"wrote {args.output}: {len(gm.graph.nodes)} nodes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
