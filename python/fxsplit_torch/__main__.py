"""python3 -m fxsplit_torch export FILE.py:FACTORY --input-shape 1,3,224,224 -o graph.json

Traces the module FACTORY() defined in FILE.py (or an importable module
path, `torchvision.models:resnet18`) with torch.fx and exports it as an
fxsplit graph file, with shapes from example inputs of the given shapes.
"""
import argparse
import importlib
import importlib.util
import os
import sys

import torch
import torch.fx

from .export import ExportError, export


def _load_factory(spec):
    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name:
        raise SystemExit(f"fxsplit_torch: '{spec}': expected MODULE_OR_FILE:FACTORY")
    if path.endswith(".py") or os.path.sep in path:
        mod_spec = importlib.util.spec_from_file_location("_fxsplit_user_module", path)
        if mod_spec is None or not os.path.exists(path):
            raise SystemExit(f"fxsplit_torch: {path}: no such file")
        module = importlib.util.module_from_spec(mod_spec)
        mod_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(path)
    if not hasattr(module, name):
        raise SystemExit(f"fxsplit_torch: {path} has no '{name}'")
    return getattr(module, name)


def _shape(text):
    try:
        return tuple(int(d) for d in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of sizes")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m fxsplit_torch")
    sub = parser.add_subparsers(dest="command", required=True)
    exp = sub.add_parser("export", help="trace a model and write it as an fxsplit graph file")
    exp.add_argument("factory", help="FILE.py:FACTORY or package.module:FACTORY")
    exp.add_argument("--input-shape", type=_shape, action="append", default=[],
                     help="shape of one example input, e.g. 1,3,224,224 (repeat per input)")
    exp.add_argument("-o", "--output", required=True, help="graph file to write")
    args = parser.parse_args(argv)

    model = _load_factory(args.factory)()
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
