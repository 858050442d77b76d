#!/usr/bin/python3
"""The capability partitioner against PyTorch's CapabilityBasedPartitioner.

For torchvision models traced with torch.fx (exported with fxsplit_torch
at test time) and several support lists, both partition the graph:
PyTorch's CapabilityBasedPartitioner (allows_single_node_partition=True,
so both count every supported group) and `fxsplit split --partitioner
capability`.  fxsplit must
  - succeed (its partitions never form a cycle),
  - put only supported or only unsupported nodes in each partition, with
    every supported node in a supported one,
  - produce no more supported partitions than PyTorch.

Support lists use fxsplit's selectors; PyTorch gets an OperatorSupport that
matches nodes by the same rules (fnmatch on the qualified function name or
its last component, the method name, the module class qualified or short).

Usage: compare.py [-k MODEL]   Environment: FXSPLIT_BIN, FXSPLIT_PLUGIN_PATH.
Prints a table; exit status 0 only when every case holds.
"""
import argparse
import fnmatch
import json
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))

import torch  # noqa: E402
import torch.fx  # noqa: E402
import torchvision  # noqa: E402
from torch.fx.node import _get_qualified_name  # noqa: E402
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner  # noqa: E402
from torch.fx.passes.operator_support import OperatorSupportBase  # noqa: E402

import fxsplit_torch  # noqa: E402
import tracing_fixes  # noqa: E402

CALLS = ("call_function", "call_method", "call_module")


def node_keys(gm, node):
    """What selectors of each kind see of @node: (kind, text) pairs."""
    if node.op == "call_function":
        q = _get_qualified_name(node.target)
        return [("function", q), ("function", q.rsplit(".", 1)[-1])]
    if node.op == "call_method":
        return [("method", node.target)]
    if node.op == "call_module":
        cls = type(gm.get_submodule(node.target))
        q = f"{cls.__module__}.{cls.__qualname__}"
        return [("class", q), ("class", cls.__name__), ("module", node.target)]
    return []


def parse(selectors):
    out = []
    for item in re.split(r"[,\s]+", selectors.strip()):
        kind, _, pattern = item.partition(":") if ":" in item else ("name", "", item)
        out.append((kind, pattern))
    return out


def supported(gm, node, selectors):
    """fxsplit's rule, getitem_with_producer included (the default, which
    mirrors PyTorch's moving getitems into their producer's partition)."""
    if node.op not in CALLS:
        return False
    if (node.op == "call_function" and node_keys(gm, node)[1][1] == "getitem"
            and isinstance(node.args[0], torch.fx.Node) and node.args[0].op in CALLS):
        return supported(gm, node.args[0], selectors)
    keys = node_keys(gm, node) + [("name", node.name)]
    return any(k == kind and fnmatch.fnmatchcase(text, pattern)
               for kind, pattern in selectors for k, text in keys)


class GlobSupport(OperatorSupportBase):
    """The support list as PyTorch sees it: the node's own target only
    (its partitioner then moves getitems to their producers itself)."""
    def __init__(self, gm, selectors):
        self.gm, self.selectors = gm, selectors

    def is_node_supported(self, submodules, node):
        if node.op not in CALLS:
            return False
        keys = node_keys(self.gm, node) + [("name", node.name)]
        return any(k == kind and fnmatch.fnmatchcase(text, pattern)
                   for kind, pattern in self.selectors for k, text in keys)


def torch_count(gm, selectors):
    partitioner = CapabilityBasedPartitioner(gm, GlobSupport(gm, selectors),
                                             allows_single_node_partition=True)
    return len(partitioner.propose_partitions())


def fxsplit_run(graph_path, allow, workdir):
    out = os.path.join(workdir, "split.json")
    cmd = [os.environ.get("FXSPLIT_BIN", "fxsplit"), "split", graph_path, "--verbose",
           "--partitioner", "capability", "--option", f"allow={allow}",
           "--output", f"json:{out}"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"fxsplit failed ({run.returncode}): {run.stderr.strip()}")
    m = re.search(r"capability: (\d+) supported partition", run.stderr)
    if not m:
        raise RuntimeError(f"no partition count in fxsplit's log: {run.stderr.strip()}")
    with open(out) as f:
        return int(m.group(1)), json.load(f)["partitions"]


def models():
    yield "resnet18", lambda: torch.fx.symbolic_trace(torchvision.models.resnet18())
    yield "resnet50", lambda: torch.fx.symbolic_trace(torchvision.models.resnet50())
    yield "mobilenet_v2", lambda: torch.fx.symbolic_trace(torchvision.models.mobilenet_v2())
    yield "vit_b_16", lambda: tracing_fixes.symbolic_trace(torchvision.models.vit_b_16())


FIXED_LISTS = [
    "class:Conv2d class:BatchNorm2d",
    "class:Conv2d class:BatchNorm2d class:ReLU* function:relu class:Linear function:flatten",
    "function:add function:relu class:ReLU* method:*",
    "class:*Norm* class:Linear class:MultiheadAttention function:getitem",
]


def random_lists(gm, count, seed):
    """Random halves of the graph's own node kinds, as explicit selectors."""
    keys = sorted({f"{k}:{t}" for n in gm.graph.nodes for k, t in node_keys(gm, n)[:1]})
    rng = random.Random(seed)
    for _ in range(count):
        yield " ".join(k for k in keys if rng.random() < 0.5) or keys[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default="")
    args = ap.parse_args()
    failures = 0
    print(f"{'model':14} {'support list':64} {'PyTorch':>7} {'fxsplit':>7}")
    with tempfile.TemporaryDirectory() as workdir:
        for name, trace in models():
            if args.k not in name:
                continue
            gm = trace()
            graph_path = os.path.join(workdir, f"{name}.json")
            fxsplit_torch.export(gm, None, graph_path)
            by_name = {n.name: n for n in gm.graph.nodes}
            for allow in FIXED_LISTS + list(random_lists(gm, 4, seed=len(name))):
                selectors = parse(allow)
                expected = torch_count(gm, selectors)
                problems = []
                try:
                    got, partitions = fxsplit_run(graph_path, allow, workdir)
                    pure = 0
                    for p in partitions:
                        kinds = {supported(gm, by_name[n], selectors) for n in p["nodes"]}
                        if len(kinds) != 1:
                            problems.append(f"partition {p['name']} mixes supported and unsupported nodes")
                        pure += kinds == {True}
                    if pure != got:
                        problems.append(f"{pure} supported partitions in the result, {got} logged")
                    if got > expected:
                        problems.append(f"more supported partitions than PyTorch")
                except RuntimeError as e:
                    got, problems = "-", [str(e)]
                shown = allow if len(allow) <= 64 else allow[:61] + "..."
                print(f"{name:14} {shown:64} {expected:>7} {got:>7}")
                for p in problems:
                    print(f"  FAIL: {p}")
                failures += bool(problems)
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
