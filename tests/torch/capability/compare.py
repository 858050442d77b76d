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
  - produce no more supported partitions than PyTorch,
  - label each partition "supported" or "unsupported" as it is.

Support lists use fxsplit's selectors; PyTorch gets an OperatorSupport that
matches nodes by the same rules (fnmatch on the qualified function name or
its last component, the method name, the module class qualified or short),
and for items with a dtype condition ("class:Linear@float32|float16") the
output dtypes of ShapeProp's tensor_meta, as OperatorSupport's dtype
checks read them.

With non_compute_ops (PyTorch 1.13's CapabilityBasedPartitioner has no
such argument; later versions drop non-compute nodes at a partition's
edges with remove_bookend_non_compute_ops), fxsplit must also keep every
supported compute node supported, and no supported partition may start or
end with a non-compute node: none whose inputs in the partition are all
non-compute, none whose users in the partition are.

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
from torch.fx.passes.shape_prop import TensorMetadata  # noqa: E402

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
    """(kind, pattern, dtypes or None) per item."""
    out = []
    for item in re.split(r"[,\s]+", selectors.strip()):
        item, _, cond = item.partition("@")
        kind, _, pattern = item.partition(":") if ":" in item else ("name", "", item)
        dtypes = {"torch." + d.removeprefix("torch.") for d in cond.split("|")} if cond else None
        out.append((kind, pattern, dtypes))
    return out


def output_dtypes(node):
    """The dtypes of the tensors ShapeProp found @node to produce (None
    when it produces something else)."""
    tm = node.meta.get("tensor_meta")
    # TensorMetadata is a NamedTuple: test it before tuples of them
    metas = [tm] if isinstance(tm, TensorMetadata) or not isinstance(tm, (list, tuple)) else tm
    if not metas or not all(isinstance(m, TensorMetadata) for m in metas):
        return None
    return {str(m.dtype) for m in metas}


def matches(gm, node, selectors):
    keys = node_keys(gm, node) + [("name", node.name)]
    for kind, pattern, dtypes in selectors:
        if any(k == kind and fnmatch.fnmatchcase(text, pattern) for k, text in keys):
            found = output_dtypes(node) if dtypes else None
            if not dtypes or (found is not None and found <= dtypes):
                return True
    return False


def supported(gm, node, selectors):
    """fxsplit's rule, getitem_with_producer included (the default, which
    mirrors PyTorch's moving getitems into their producer's partition)."""
    if node.op not in CALLS:
        return False
    if (node.op == "call_function" and node_keys(gm, node)[1][1] == "getitem"
            and isinstance(node.args[0], torch.fx.Node) and node.args[0].op in CALLS):
        return supported(gm, node.args[0], selectors)
    return matches(gm, node, selectors)


class GlobSupport(OperatorSupportBase):
    """The support list as PyTorch sees it: the node's own target only
    (its partitioner then moves getitems to their producers itself)."""
    def __init__(self, gm, selectors):
        self.gm, self.selectors = gm, selectors

    def is_node_supported(self, submodules, node):
        return node.op in CALLS and matches(self.gm, node, self.selectors)


def torch_count(gm, selectors):
    partitioner = CapabilityBasedPartitioner(gm, GlobSupport(gm, selectors),
                                             allows_single_node_partition=True)
    return len(partitioner.propose_partitions())


def fxsplit_run(graph_path, allow, workdir, non_compute=None):
    out = os.path.join(workdir, "split.json")
    cmd = [os.environ.get("FXSPLIT_BIN", "fxsplit"), "split", graph_path, "--verbose",
           "--partitioner", "capability", "--option", f"allow={allow}",
           "--output", f"json:{out}"]
    if non_compute:
        cmd += ["--option", f"non_compute_ops={non_compute}"]
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
    # 64x64 images (16 patches): the same graph, and ShapeProp takes 0.3 s, not 17
    yield "vit_b_16", lambda: tracing_fixes.symbolic_trace(torchvision.models.vit_b_16(image_size=64))


FIXED_LISTS = [
    "class:Conv2d class:BatchNorm2d",
    "class:Conv2d class:BatchNorm2d class:ReLU* function:relu class:Linear function:flatten",
    "function:add function:relu class:ReLU* method:*",
    "class:*Norm* class:Linear class:MultiheadAttention function:getitem",
    # dtype conditions
    "class:Conv2d@float32 class:BatchNorm2d@float16 function:add@float32|float64 method:*@float32",
    "function:*@float32 class:*@bfloat16|float32 method:size@int64 class:Linear@float16",
]

# (allow, non_compute_ops): views and reshapes among supported ops
NON_COMPUTE = [
    ("function:flatten function:add method:* class:Linear class:ReLU* class:Dropout",
     "function:flatten method:view method:reshape method:permute method:transpose "
     "method:size class:Dropout"),
    ("class:* function:* method:*", "function:getitem function:flatten method:* class:Dropout"),
]


def bookend_problems(gm, partitions, non_compute):
    """The later PyTorch's rule on fxsplit's result: no supported partition
    starts or ends with a non-compute node (checked from the definition)."""
    nc = parse(non_compute)
    by_name = {n.name: n for n in gm.graph.nodes}
    problems = []
    for p in partitions:
        if p.get("label") != "supported":
            continue
        nodes = [by_name[n] for n in p["nodes"]]
        inside = set(nodes)
        start, end = {}, {}
        for n in nodes:  # graph order
            start[n] = matches(gm, n, nc) and all(start[i] for i in n.all_input_nodes if i in inside)
        for n in reversed(nodes):
            end[n] = matches(gm, n, nc) and all(end[u] for u in n.users if u in inside)
        edge = [n.name for n in nodes if start[n] or end[n]]
        if edge:
            problems.append(f"partition {p['name']} starts or ends with non-compute {edge[:3]}")
    return problems


def check(gm, name, graph_path, workdir, allow, non_compute=None):
    """Runs one case; prints its line and returns its problems."""
    selectors = parse(allow)
    by_name = {n.name: n for n in gm.graph.nodes}
    expected = torch_count(gm, selectors)
    problems = []
    try:
        got, partitions = fxsplit_run(graph_path, allow, workdir, non_compute)
        nc = parse(non_compute) if non_compute else []
        pure = 0
        for p in partitions:
            nodes = [by_name[n] for n in p["nodes"]]
            kinds = {supported(gm, n, selectors) for n in nodes}
            is_supported = p.get("label") == "supported"
            if p.get("label") not in ("supported", "unsupported"):
                problems.append(f"partition {p['name']} is labelled {p.get('label')!r}")
            if is_supported and kinds != {True}:
                problems.append(f"supported partition {p['name']} holds unsupported nodes")
            # without non_compute_ops unsupported partitions hold unsupported
            # nodes only; with them also non-compute nodes moved off an edge
            if not is_supported and any(supported(gm, n, selectors) and not matches(gm, n, nc)
                                        for n in nodes):
                problems.append(f"unsupported partition {p['name']} holds supported nodes")
            pure += is_supported
        if pure != got:
            problems.append(f"{pure} supported partitions in the result, {got} logged")
        if got > expected:
            problems.append("more supported partitions than PyTorch")
        if non_compute:
            kept = {n for p in partitions if p["label"] == "supported" for n in p["nodes"]}
            lost = [n.name for n in gm.graph.nodes if supported(gm, n, selectors)
                    and not matches(gm, n, nc) and n.name not in kept]
            if lost:
                problems.append(f"supported compute nodes left unsupported: {lost[:3]}")
            problems += bookend_problems(gm, partitions, non_compute)
    except RuntimeError as e:
        got, problems = "-", [str(e)]
    shown = allow if len(allow) <= 64 else allow[:61] + "..."
    print(f"{name:14} {shown:64} {expected:>7} {got:>7}{'  non_compute' if non_compute else ''}")
    for p in problems:
        print(f"  FAIL: {p}")
    return problems


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
            with torch.no_grad():
                fxsplit_torch.export(gm, (torch.rand(1, 3, 64, 64),), graph_path)
            for allow in FIXED_LISTS + list(random_lists(gm, 4, seed=len(name))):
                failures += bool(check(gm, name, graph_path, workdir, allow))
            for allow, non_compute in NON_COMPUTE:
                failures += bool(check(gm, name, graph_path, workdir, allow, non_compute))
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
