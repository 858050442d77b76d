#!/usr/bin/python3
"""The python output against PyTorch, case by case (codegen_corpus.py).

For each case: trace the module, let torch's split_module split it while
recording the callback's decisions, export the traced graph with
fxsplit_torch.export, run

    fxsplit split GRAPH --partitioner map --option file=DECISIONS --output python:OUT.py

import OUT.py, and check
  code:      OUT.CODE (the C code generator's text) equals, byte for byte,
             torch's split's GraphModule.code for the top level and every
             submodule, and the module OUT.build() makes prints the same;
  structure: the same submodules in the same order, the same qualname map;
  numerics:  OUT.build(module) returns what torch's split returns.

Usage: test_codegen.py [-k SUBSTRING] [--keep DIR] [--differential]
  --differential  also run the small cases of tests/torch/corpus.py
Environment: FXSPLIT_BIN (the fxsplit binary; default: fxsplit on PATH),
FXSPLIT_PLUGIN_PATH (its plugins).  Exit status 0 only when all match.
"""
import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))

import torch  # noqa: E402  (no torch is a failure, never a skip)
import torch.fx  # noqa: E402
import torch.utils._pytree as pytree  # noqa: E402
from torch.fx.passes.split_module import split_module  # noqa: E402

import codegen_corpus  # noqa: E402
import fxsplit_torch  # noqa: E402

warnings.filterwarnings("ignore")


# How modules are traced (the differential corpus needs its tracing fixes).
TRACE = torch.fx.symbolic_trace


class Mismatch(Exception):
    pass


def first_difference(a, b):
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"first difference at {i}:\n  fxsplit: {a[max(0, i - 40):i + 40]!r}\n  torch:   {b[max(0, i - 40):i + 40]!r}"


def graph_modules(module):
    """{"": top, "submod_0": ...} for the GraphModules of a split module."""
    return {name: m for name, m in module.named_modules()
            if isinstance(m, torch.fx.GraphModule) and (name == "" or "." not in name)}


def same_outputs(a, b):
    fa, sa = pytree.tree_flatten(a)
    fb, sb = pytree.tree_flatten(b)
    if sa != sb or len(fa) != len(fb):
        return False
    for x, y in zip(fa, fb):
        if isinstance(x, torch.Tensor) != isinstance(y, torch.Tensor):
            return False
        if isinstance(x, torch.Tensor):
            if x.shape != y.shape or not torch.allclose(x, y, equal_nan=True):
                return False
        elif x != y:
            return False
    return True


def import_file(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_fxsplit(graph_path, decisions_path, out_path, keep_original_order):
    cmd = [os.environ.get("FXSPLIT_BIN", "fxsplit"), "split", graph_path,
           "--partitioner", "map", "--option", f"file={decisions_path}",
           "--output", f"python:{out_path}"]
    if keep_original_order:
        cmd.append("--keep-original-order")
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise Mismatch(f"fxsplit failed ({r.returncode}): {r.stderr.strip()}")


def trace(module):
    if isinstance(module, torch.fx.GraphModule):
        return module
    return TRACE(module)


def check_case(case, workdir, index):
    """Returns (number of graphs compared byte for byte, note)."""
    module = case.module().eval()
    inputs = case.inputs()
    traced = trace(module)

    decisions = {}
    callback = case.policy(traced)

    def recording(node):
        decisions[node.name] = pid = callback(node)
        return pid

    qualname_map = {}
    try:
        reference = split_module(traced, module, recording, qualname_map,
                                 keep_original_order=case.keep_original_order)
        torch_error = None
    except Exception as e:  # torch's failure is part of the comparison
        reference, torch_error = None, e

    graph_path = os.path.join(workdir, "graph.json")
    decisions_path = os.path.join(workdir, "decisions.json")
    out_path = os.path.join(workdir, "split.py")
    fxsplit_torch.export(traced, None, graph_path)
    with open(decisions_path, "w") as f:
        json.dump(decisions, f)

    if torch_error is not None and not case.current_pytorch_only:
        if not (isinstance(torch_error, RuntimeError) and "cycle" in str(torch_error)):
            raise torch_error
        try:
            run_fxsplit(graph_path, decisions_path, out_path, case.keep_original_order)
        except Mismatch as e:
            if "cycle" in str(e) and not os.path.exists(out_path):
                return 0, "both report a cycle; no file written"
            raise
        raise Mismatch("torch reports a cycle, fxsplit split the graph")

    run_fxsplit(graph_path, decisions_path, out_path, case.keep_original_order)
    out = import_file(out_path, f"fxsplit_codegen_case_{index}")
    built = out.build(module, allow_modules=["codegen_corpus"])  # its wrapped functions

    # torch 1.13 prints fxsplit's graphs as the C generator did
    differing = out.check_code(built)
    if differing:
        name = differing[0]
        raise Mismatch(f"CODE[{name!r}] differs from the rebuilt module's code: "
                       + first_difference(out.CODE[name], graph_modules(built)[name].code))
    compared = len(out.CODE)

    with torch.no_grad():
        got = built(*inputs)
        if case.current_pytorch_only:
            if not same_outputs(got, module(*inputs)):
                raise Mismatch("outputs differ from the unsplit module's")
            return compared, f"not compared with torch 1.13's split: {case.current_pytorch_only}"
        if not same_outputs(got, reference(*inputs)):
            raise Mismatch("outputs differ from torch's split")

    expected = {name: m.code for name, m in graph_modules(reference).items()}
    if list(out.CODE) != list(expected):
        raise Mismatch(f"graphs {list(out.CODE)} but torch's split has {list(expected)}")
    for name, text in expected.items():
        if out.CODE[name] != text:
            raise Mismatch(f"code of {name or 'the top level'!r} differs: "
                           + first_difference(out.CODE[name], text))
    if list(out.QUALNAME_MAP.items()) != list(qualname_map.items()):
        raise Mismatch(f"qualname map {out.QUALNAME_MAP} but torch's is {qualname_map}")
    return compared, ""


def differential_cases():
    """The cases of the differential corpus (tests/torch/corpus.py) but its
    torchvision models, traced with its Python 3.11 tracing fixes."""
    global TRACE
    sys.path.insert(0, os.path.join(HERE, ".."))
    import corpus
    import tracing_fixes
    TRACE = tracing_fixes.symbolic_trace
    cases = []
    for c in corpus.CASES:
        if "torchvision" in c.tags:
            continue
        cases.append(codegen_corpus.Case(
            "differential/" + c.name, c.module, c.inputs, c.policy,
            keep_original_order=c.keep_original_order,
            current_pytorch_only=c.current_pytorch_only))
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-k", default="", help="only cases whose name contains this")
    parser.add_argument("--keep", help="keep each case's files in this directory")
    parser.add_argument("--differential", action="store_true",
                        help="also run the small cases of tests/torch/corpus.py")
    args = parser.parse_args()

    cases = list(codegen_corpus.CASES)
    if args.differential:
        cases += differential_cases()
    cases = [c for c in cases if args.k in c.name]
    if not cases:
        sys.exit(f"no case matches {args.k!r}")

    failed, graphs = 0, 0
    for index, case in enumerate(cases):
        workdir = tempfile.mkdtemp(prefix="fxsplit-codegen-")
        try:
            n, note = check_case(case, workdir, index)
            graphs += n
            print(f"ok    {case.name}: {n} graphs" + (f" ({note})" if note else ""))
        except Mismatch as e:
            failed += 1
            print(f"FAIL  {case.name}: {e}")
        except Exception:
            failed += 1
            print(f"FAIL  {case.name}: unexpected error\n{traceback.format_exc()}")
        finally:
            if args.keep:
                dest = os.path.join(args.keep, case.name.replace("/", "_"))
                shutil.rmtree(dest, ignore_errors=True)
                shutil.copytree(workdir, dest)
            shutil.rmtree(workdir, ignore_errors=True)
    print(f"\n{len(cases) - failed} of {len(cases)} cases passed; "
          f"{graphs} code texts compared byte for byte")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
