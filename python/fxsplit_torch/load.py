"""Build torch.fx GraphModules from fxsplit graph files and split results.

A graph file is untrusted data: decoding follows fxsplit_torch.decode's
Policy (no evaluation, no import of modules the file names, call_function
targets from an allow-list; docs/python.md)."""
import json

import torch
import torch.fx

from .decode import LoadError, Policy, UnsafeGraphError, decode_graph, lookup_attribute

__all__ = ["LoadError", "UnsafeGraphError", "build_graph", "load_split", "resolve_function",
           "split_from_doc"]


def resolve_function(qualified_name, allow_modules=(), trust_targets=False):
    """The callable behind a call_function target as torch.fx names it
    (`_operator.add`, `torch.relu`, `torch._C._nn.linear`, `getattr`), if
    the policy allows it (UnsafeGraphError otherwise)."""
    return Policy(allow_modules, trust_targets).function(qualified_name, "target")


def _entries(nodes):
    for entry in nodes:
        if not isinstance(entry, dict) or not {"name", "op", "target"} <= entry.keys():
            raise LoadError(f"bad node entry {str(entry)[:80]!r}")
        yield (entry["op"], entry["name"], entry["target"], entry.get("args", []),
               entry.get("kwargs", {}), entry.get("type"), entry.get("meta"))


def build_graph(nodes, allow_modules=(), trust_targets=False, label="", policy=None):
    """A torch.fx.Graph from the `nodes` list of a graph file; node names are
    kept (they are already valid, unique torch.fx names)."""
    policy = policy or Policy(allow_modules, trust_targets)
    return decode_graph(_entries(nodes), policy, label)


def _targets(nodes, policy, label):
    targets = []
    for e in nodes:
        if e.get("op") in ("get_attr", "call_module") and e["target"] not in targets:
            policy.attribute_path(e["target"], f"{label or 'the top-level graph'}, node {e['name']!r}")
            targets.append(e["target"])
    return targets


def load_split(result_path, original_module, allow_modules=(), trust_targets=False):
    """The split GraphModule described by fxsplit's json output at
    @result_path, with every parameter, buffer and submodule bound from
    @original_module through the qualname map.

    call_function targets may come from torch, operator, math and plain
    builtins only; @allow_modules (names of modules, with their submodules)
    adds modules, which are imported if need be; @trust_targets=True
    resolves any target, importing its module: only for files you trust.
    Type annotations the decoder cannot read are dropped with a warning.
    Each submodule's `fxsplit_label` is its partition's label, or None."""
    with open(result_path, encoding="utf-8") as f:
        doc = json.load(f)
    return split_from_doc(doc, result_path, original_module, allow_modules, trust_targets)


def split_from_doc(doc, result_path, original_module, allow_modules=(), trust_targets=False,
                   only=None):
    """load_split of the parsed json @doc (@result_path names it in
    messages).  With @only (a set of submodule names), only those
    submodules are built and bound; the others are empty torch.nn.Module
    stand-ins (fxsplit_torch.distributed: a rank builds its own stages)."""
    policy = Policy(allow_modules, trust_targets)
    if not isinstance(doc, dict) or doc.get("format") != "fxsplit-graph" \
            or not isinstance(doc.get("submodules"), list):
        raise LoadError(f"{result_path}: not an fxsplit split result")
    qualname_map = doc.get("qualname_map", {})
    labels = {p.get("submodule"): p["label"] for p in doc.get("partitions", [])
              if isinstance(p, dict) and isinstance(p.get("label"), str)}
    submodules = {}
    for sub in doc["submodules"]:
        name = sub["name"]
        if only is not None and name not in only:
            submodules[name] = torch.nn.Module()
            continue
        root = {}
        for target in _targets(sub["nodes"], policy, name):
            original = qualname_map.get(f"{name}.{target}", target)
            policy.attribute_path(original, f"{result_path}: qualname_map[{name}.{target}]")
            root[target] = lookup_attribute(original_module, original, f"{name}.{target}")
        submodules[name] = torch.fx.GraphModule(root, build_graph(sub["nodes"], label=name,
                                                                  policy=policy))
        submodules[name].fxsplit_label = labels.get(name)
    root = {}
    for target in _targets(doc["nodes"], policy, ""):
        root[target] = submodules[target] if target in submodules \
            else lookup_attribute(original_module, target, target)
    return torch.fx.GraphModule(root, build_graph(doc["nodes"], policy=policy))
