#!/usr/bin/python3
"""Times PyTorch's own split_module on the graph of an fxsplit graph file.

Reads the graph file (docs/graph-format.md), builds the same graph as a
torch.fx.GraphModule (targets resolved to the real functions, modules as
torch.nn.Identity and parameters as empty torch.nn.Parameter registered under
their qualified names), then times only

    torch.fx.passes.split_module.split_module(gm, gm, callback)

with the same partition assignment as bench-split (the callback reads a
precomputed dict).  Prints one JSON line per measurement, like bench-split:
the preparation steps, every split run, a summary (median, min, peak memory)
and the partition structure, so that run.py can check that both tools cut
the graph the same way.

Run it with Debian's torch: /usr/bin/python3 bench/torch_split.py GRAPH.json

torch 1.13 names nodes in quadratic time (_Namespace.create_name counts up
from 1 for every new "add_N"), which later PyTorch fixed with a per-base
counter; --linear-naming patches that counter into 1.13 to estimate what a
current PyTorch would take.
"""

import argparse
import builtins
import collections
import gc
import hashlib
import importlib
import json
import os
import statistics
import sys
import time

import torch
import torch.fx
from torch.fx.passes.split_module import split_module


class GraphFileError(Exception):
    """A graph file this script cannot rebuild; the message says where."""


# ---- reading the graph file --------------------------------------------------

TYPE_EXPRS = {
    "torch.Tensor": torch.Tensor,
    "float": float,
    "int": int,
    "bool": bool,
    "str": str,
}


def resolve_qualified(qualname, where):
    """The Python object a qualified name ("_operator.add", "torch.relu") names."""
    parts = qualname.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
            return obj
        except AttributeError:
            break
    if len(parts) == 1 and hasattr(builtins, qualname):
        return getattr(builtins, qualname)
    raise GraphFileError(f"{where}: cannot resolve function '{qualname}'")


def convert_value(value, env, where):
    """A graph file value (docs/graph-format.md, "Values") as a Python value."""
    if isinstance(value, list):
        return [convert_value(v, env, where) for v in value]
    if not isinstance(value, dict):
        return value
    if "node" in value:
        try:
            return env[value["node"]]
        except KeyError:
            raise GraphFileError(f"{where}: reference to unknown node '{value['node']}'") from None
    if "tuple" in value:
        return tuple(convert_value(v, env, where) for v in value["tuple"])
    if "dict" in value:
        return {convert_value(k, env, where): convert_value(v, env, where) for k, v in value["dict"]}
    if "slice" in value:
        return slice(*(convert_value(v, env, where) for v in value["slice"]))
    if "ellipsis" in value:
        return Ellipsis
    if "float" in value:
        return float(value["float"])
    if "opaque" in value:
        return resolve_qualified(value["repr"], where)
    raise GraphFileError(f"{where}: unknown value tag {sorted(value)}")


def ensure_module(root, path, cache):
    """The module at dotted @path under @root, created as an empty Module if missing."""
    if path == "":
        return root
    module = cache.get(path)
    if module is None:
        parent_path, _, leaf = path.rpartition(".")
        parent = ensure_module(root, parent_path, cache)
        module = getattr(parent, leaf, None)
        if module is None:
            module = torch.nn.Module()
            parent.add_module(leaf, module)
        cache[path] = module
    return module


def build_root(attributes):
    """A module tree with every attribute table entry at its qualified name."""
    root = torch.nn.Module()
    cache = {}
    for qualname, attr in attributes.items():
        parent_path, _, leaf = qualname.rpartition(".")
        kind = attr.get("kind")
        if kind == "module":
            parent = ensure_module(root, parent_path, cache)
            if getattr(parent, leaf, None) is None:
                module = torch.nn.Identity()
                parent.add_module(leaf, module)
                cache[qualname] = module
        elif kind == "parameter":
            ensure_module(root, parent_path, cache).register_parameter(
                leaf, torch.nn.Parameter(torch.empty(0)))
        elif kind == "buffer":
            ensure_module(root, parent_path, cache).register_buffer(leaf, torch.empty(0))
        elif kind == "constant":
            setattr(ensure_module(root, parent_path, cache), leaf, torch.empty(0))
        elif kind == "object":
            setattr(ensure_module(root, parent_path, cache), leaf, None)
        else:
            raise GraphFileError(f"$.attributes['{qualname}']: unknown kind {kind!r}")
    return root


def build_graph(nodes):
    """The torch.fx.Graph of the file's nodes, with the same names."""
    graph = torch.fx.Graph()
    env = {}
    functions = {}
    for index, desc in enumerate(nodes):
        where = f"$.nodes[{index}] ('{desc.get('name')}')"
        op = desc["op"]
        target = desc["target"]
        if op == "call_function":
            fn = functions.get(target)
            if fn is None:
                fn = functions[target] = resolve_qualified(target, where)
            target = fn
        args = tuple(convert_value(a, env, where) for a in desc.get("args", []))
        kwargs = {k: convert_value(v, env, where) for k, v in desc.get("kwargs", {}).items()}
        type_expr = TYPE_EXPRS.get(desc["type"]) if "type" in desc else None
        node = graph.create_node(op, target, args, kwargs, name=desc["name"], type_expr=type_expr)
        if node.name != desc["name"]:
            raise GraphFileError(f"{where}: torch.fx renamed the node to '{node.name}'")
        if "meta" in desc:
            node.meta["tensor_meta"] = desc["meta"]
        env[desc["name"]] = node
    return graph


# ---- current PyTorch's naming --------------------------------------------------


def patch_linear_naming():
    """Replaces torch 1.13's _Namespace.create_name with the one of later
    PyTorch releases, which remembers the last number used per base name
    (_base_count) instead of counting up from 1 every time."""
    namespace = torch.fx.graph._Namespace

    def create_name(self, candidate, obj):
        if obj is not None and obj in self._obj_to_name:
            return self._obj_to_name[obj]
        base_count = self.__dict__.setdefault("_base_count", collections.defaultdict(int))
        candidate = self._illegal_char_regex.sub("_", candidate)
        if not candidate:
            candidate = "_unnamed"
        if candidate[0].isdigit():
            candidate = f"_{candidate}"
        match = self._name_suffix_regex.match(candidate)
        if match is None:
            base, num = candidate, None
        else:
            base, num_str = match.group(1, 2)
            num = int(num_str)
        candidate = base if num is None else f"{base}_{num}"
        if not num:
            num = base_count[base]
        while candidate in self._used_names or self._is_illegal_name(candidate, obj):
            num += 1
            candidate = f"{base}_{num}"
        self._used_names.setdefault(candidate, 0)
        base_count[base] = num
        if obj is None:
            self._unassociated_names.add(candidate)
        else:
            self._obj_to_name[obj] = candidate
        return candidate

    namespace.create_name = create_name


# ---- measuring ---------------------------------------------------------------


def status_bytes(field):
    """A /proc/self/status memory field (VmRSS, VmHWM) in bytes."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def reset_peak_rss():
    """Makes VmHWM start again from the current RSS (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def contiguous_ids(n_nodes, k):
    """Node i (every op counted) goes to partition i * k // n, as in bench-split."""
    return [i * k // n_nodes for i in range(n_nodes)]


def partition_structure(split_gm):
    """Per submodule, in call order: name, nodes, inputs (count and a hash of
    their names in order) and outputs, comparable with bench-split's line."""
    result = []
    for node in split_gm.graph.nodes:
        if node.op != "call_module":
            continue
        sub = getattr(split_gm, node.target).graph
        inputs = [n.name for n in sub.nodes if n.op == "placeholder"]
        n_nodes = sum(1 for n in sub.nodes if n.op not in ("placeholder", "output"))
        out = next(n for n in sub.nodes if n.op == "output").args[0]
        n_outputs = len(out) if isinstance(out, tuple) else 1
        digest = hashlib.sha1("\n".join(inputs).encode()).hexdigest()[:16]
        result.append({"name": node.target[len("submod_"):], "nodes": n_nodes,
                       "inputs": len(inputs), "inputs_sha1": digest, "outputs": n_outputs})
    return result


def emit(record):
    print(json.dumps(record), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("graph", help="an fxsplit graph file (bench/gen-graph output)")
    parser.add_argument("--partitions", "-k", type=int, default=8)
    parser.add_argument("--repeat", "-r", type=int, default=3, help="split runs (median reported)")
    parser.add_argument("--mode", choices=["contiguous", "round-robin"], default="contiguous")
    parser.add_argument("--linear-naming", action="store_true",
                        help="patch in later PyTorch's linear-time node naming (see above)")
    args = parser.parse_args()
    if args.partitions < 1 or args.repeat < 1:
        parser.error("--partitions and --repeat must be at least 1")

    if args.linear_naming:
        patch_linear_naming()
    base = {"tool": "torch_split", "torch": torch.__version__, "graph": args.graph,
            "partitions": args.partitions, "mode": args.mode,
            "naming": "linear" if args.linear_naming else "1.13"}
    try:
        t0 = time.perf_counter()
        with open(args.graph) as f:
            doc = json.load(f)
        if doc.get("format") != "fxsplit-graph" or doc.get("version") != 1:
            raise GraphFileError(f"{args.graph}: not an fxsplit graph file of version 1")
        t1 = time.perf_counter()
        root = build_root(doc.get("attributes", {}))
        graph = build_graph(doc["nodes"])
        t2 = time.perf_counter()
        gm = torch.fx.GraphModule(root, graph)
        t3 = time.perf_counter()
    except (OSError, ValueError, KeyError, GraphFileError) as e:
        print(f"torch_split.py: {e}", file=sys.stderr)
        return 1
    n_nodes = len(doc["nodes"])
    del doc
    base["nodes"] = n_nodes
    emit({**base, "phase": "prepare", "json_seconds": round(t1 - t0, 6),
          "graph_seconds": round(t2 - t1, 6), "graphmodule_seconds": round(t3 - t2, 6)})

    if args.mode == "contiguous":
        ids = contiguous_ids(n_nodes, args.partitions)
        partition_of = {node.name: ids[i] for i, node in enumerate(gm.graph.nodes)}
    else:
        calls = [n for n in gm.graph.nodes if n.op.startswith("call_")]
        partition_of = {node.name: i % args.partitions for i, node in enumerate(calls)}

    def callback(node):
        return partition_of[node.name]

    gc.collect()
    prepare_peak = status_bytes("VmHWM")
    can_reset = reset_peak_rss()
    rss_before = status_bytes("VmRSS")
    times = []
    cpu_times = []
    split_peak = 0
    structure = None
    for run in range(args.repeat):
        gc.collect()
        reset_peak_rss()
        start = time.perf_counter()
        cpu_start = time.process_time()
        try:
            split_gm = split_module(gm, gm, callback)
        except RuntimeError as e:
            seconds = time.perf_counter() - start
            emit({**base, "phase": "split", "run": run, "seconds": round(seconds, 6),
                  "status": "error", "error": str(e)})
            return 0
        seconds = time.perf_counter() - start
        cpu_seconds = time.process_time() - cpu_start
        peak = status_bytes("VmHWM")
        split_peak = max(split_peak, peak)
        times.append(seconds)
        cpu_times.append(cpu_seconds)
        emit({**base, "phase": "split", "run": run, "seconds": round(seconds, 6),
              "cpu_seconds": round(cpu_seconds, 6), "status": "ok", "peak_rss_bytes": peak})
        if structure is None:
            structure = partition_structure(split_gm)
        del split_gm

    emit({**base, "phase": "split", "summary": True, "runs": len(times),
          "median_seconds": round(statistics.median(times), 6), "min_seconds": round(min(times), 6),
          "median_cpu_seconds": round(statistics.median(cpu_times), 6),
          "min_cpu_seconds": round(min(cpu_times), 6),
          "prepare_peak_rss_bytes": prepare_peak, "rss_before_split_bytes": rss_before,
          # Without a reset, VmHWM still holds the (larger) peak of preparing.
          "split_peak_rss_bytes": split_peak, "split_peak_is_exact": can_reset})
    emit({**base, "phase": "partitions", "partitions_called": structure})
    return 0


if __name__ == "__main__":
    sys.exit(main())
