#!/usr/bin/python3
"""The buckets partitioner against DDPOptimizer's rule.

PyTorch 1.13 has no DDPOptimizer (torch/_dynamo/backends/distributed.py
came later), so this file applies its rule itself, as written there, to
the torch.fx graph and the module's own parameters: walking the nodes in
reverse (placeholders and the output skipped), before adding a node close
the open bucket when its bytes reached bucket_bytes_cap (first_bucket_cap
while it is the first) and one of its nodes has a user outside it; add the
node and the bytes (untyped_storage().nbytes()) of the parameters it uses
(named_parameters() of a call_module target, the get_attr's tensor if it
requires grad); at the end fuse a front bucket without parameters into
the next.  fxsplit differs on purpose in one point: a parameter used by
several nodes counts once (DDP's reducer has it in one bucket); the models
here share none, which the test checks.

For resnet50 and vit_b_16 (exported with fxsplit_torch at test time) and
several caps, `fxsplit split --partitioner buckets` must give the same
partitions (the call nodes of each bucket, in graph order) and log the
same bucket bytes.  The defaults must be DDP's (bucket_cap_mb=25 and
torch.distributed's first bucket bytes).

Usage: compare.py   Environment: FXSPLIT_BIN, FXSPLIT_PLUGIN_PATH.
Exit status 0 only when every case holds; it never skips.
"""
import inspect
import json
import operator
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))

import torch  # noqa: E402
import torch.distributed  # noqa: E402
import torch.fx  # noqa: E402
import torchvision  # noqa: E402

import fxsplit_torch  # noqa: E402
import tracing_fixes  # noqa: E402

CALLS = ("call_function", "call_method", "call_module")
MIB = 1024 * 1024


def node_params(gm, node):
    """The parameters @node uses, as DDPOptimizer finds them."""
    if node.op == "call_module":
        return [p for _, p in gm.get_submodule(node.target).named_parameters() if p.requires_grad]
    if node.op == "get_attr":
        value = operator.attrgetter(node.target)(gm)
        return [value] if value.requires_grad else []
    return []


def has_external_output(nodes):
    """bucket_has_external_output: @nodes are in reverse graph order."""
    members = set()
    for n in nodes:
        members.add(n)
        if any(u not in members for u in n.users):
            return True
    return False


def ddp_buckets(gm, cap, first_cap):
    """[(bytes, [call node names])] in graph order, by DDPOptimizer's rule."""
    buckets = [[0, []]]  # front first, as DDPOptimizer inserts at 0
    seen = set()
    for node in reversed(gm.graph.nodes):
        if node.op in ("output", "placeholder"):
            continue
        size, nodes = buckets[0]
        if size >= cap or (len(buckets) == 1 and size >= first_cap):
            if has_external_output(nodes):
                buckets.insert(0, [0, []])
        for p in node_params(gm, node):
            assert id(p) not in seen, f"{node.name}: a shared parameter (the test assumes none)"
            seen.add(id(p))
            # untyped_storage() in current PyTorch, storage() in 1.13
            storage = p.untyped_storage() if hasattr(p, "untyped_storage") else p.storage()
            buckets[0][0] += storage.nbytes()
        buckets[0][1].append(node)
    if len(buckets) > 1 and buckets[0][0] == 0:
        buckets[1][1].extend(buckets.pop(0)[1])
    return [(size, [n.name for n in reversed(nodes) if n.op in CALLS]) for size, nodes in buckets]


def fxsplit_buckets(graph_path, options, workdir):
    out = os.path.join(workdir, "split.json")
    cmd = [os.environ.get("FXSPLIT_BIN", "fxsplit"), "split", graph_path, "--verbose",
           "--partitioner", "buckets", "--output", f"json:{out}"]
    for o in options:
        cmd += ["--option", o]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"fxsplit failed ({run.returncode}): {run.stderr.strip()}")
    m = re.search(r"buckets: (\d+) buckets? of parameters, in graph order: (.*)", run.stderr)
    if not m:
        raise RuntimeError(f"no bucket line in fxsplit's log: {run.stderr.strip()}")
    with open(out) as f:
        split = json.load(f)
    order = {n["name"]: i for i, n in enumerate(json.load(open(graph_path))["nodes"])}
    parts = [sorted(p["nodes"], key=order.get) for p in split["partitions"]]
    return int(m.group(1)), m.group(2), parts


def human(b):
    """units_append_bytes (plugins/common/units.c)."""
    if b < 1024:
        return f"{b} B"
    v, units = b / 1024, ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    u = 0
    while v >= 1024 and u + 1 < len(units):
        v, u = v / 1024, u + 1
    return f"{v:.1f} {units[u]}"


def check(graph_path, options, expected, workdir):
    """fxsplit's bucket count and what differs from @expected."""
    try:
        count, sizes, parts = fxsplit_buckets(graph_path, options, workdir)
    except RuntimeError as e:
        return "-", [str(e)]
    problems = []
    if [nodes for _, nodes in expected if nodes] != parts:
        problems.append("the partitions differ from DDPOptimizer's buckets")
    want = ", ".join(human(s) for s, _ in expected)
    if count != len(expected) or sizes != want:
        problems.append(f"logged {count} buckets ({sizes}), DDPOptimizer has {len(expected)} ({want})")
    return count, problems


CASES = [
    ([], 25 * MIB, MIB),
    (["bucket_bytes_cap=5MiB"], 5 * MIB, MIB),
    (["bucket_bytes_cap=10 MB", "first_bucket_cap=10MB"], 10 ** 7, 10 ** 7),
    (["bucket_bytes_cap=2MiB", "first_bucket_cap=0"], 2 * MIB, 0),
    (["bucket_bytes_cap=1GiB"], 1024 * MIB, MIB),
]


def main():
    failures = 0
    ddp_default = inspect.signature(torch.nn.parallel.DistributedDataParallel).parameters["bucket_cap_mb"].default
    if ddp_default * MIB != CASES[0][1] or torch.distributed._DEFAULT_FIRST_BUCKET_BYTES != CASES[0][2]:
        print("FAIL: the defaults are not DDP's")
        failures += 1
    models = [("resnet50", lambda: torch.fx.symbolic_trace(torchvision.models.resnet50())),
              ("vit_b_16", lambda: tracing_fixes.symbolic_trace(torchvision.models.vit_b_16()))]
    print(f"{'model':10} {'options':42} {'DDP buckets':>11} {'fxsplit':>7}")
    with tempfile.TemporaryDirectory() as workdir:
        for name, trace in models:
            gm = trace()
            graph_path = os.path.join(workdir, f"{name}.json")
            fxsplit_torch.export(gm, None, graph_path)
            for options, cap, first_cap in CASES:
                expected = ddp_buckets(gm, cap, first_cap)
                count, problems = check(graph_path, options, expected, workdir)
                print(f"{name:10} {' '.join(options) or '(defaults)':42} {len(expected):>11} {count:>7}")
                print("".join(f"  FAIL: {p}\n" for p in problems), end="")
                failures += bool(problems)
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
