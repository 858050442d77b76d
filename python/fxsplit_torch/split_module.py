"""fxsplit_torch.split_module: torch.fx.passes.split_module.split_module's
signature and result, the split done by libfxsplit in this process.

The data path: the graph becomes graph-file text in memory (export.py's
encoder, attributes looked up once per qualified name), the callback runs
once per call node in graph order, fxs_split_with_ids splits, and the
result's json text comes back through json.loads.  The rebuilt graphs take
their call_function targets, annotations and node.meta from the original
graph's own nodes (a meta entry carries each node's position through the
engine), never from names in text, so nothing is looked up by name.
"""
import json
import operator

import torch
import torch.fx

from . import native
from .decode import Policy, decode_graph
from .export import engine_graph

__all__ = ["split_module"]

# The free-form meta entry that carries a node's position in the original
# graph through the engine (which copies meta to the nodes standing for it).
INDEX_KEY = "fxsplit_torch.index"


class _OriginalPolicy(Policy):
    """Targets and annotations of the graph being split: the objects
    themselves, by the text the export wrote for them."""

    def __init__(self, functions, types):
        super().__init__()
        self._functions.update(functions)
        self._functions.setdefault("_operator.getitem", operator.getitem)
        self._known_types = types

    def annotation(self, text, where):
        if text in self._known_types:
            return self._known_types[text]
        return super().annotation(text, where)


def _entries(nodes):
    get = dict.get
    for e in nodes:
        yield (e["op"], e["name"], e["target"], get(e, "args", []), get(e, "kwargs", {}),
               get(e, "type"), get(e, "meta"))


def _build(nodes, policy, label, originals):
    graph = decode_graph(_entries(nodes), policy, label)
    for node in graph.nodes:
        index = node.meta.get(INDEX_KEY)
        if index is not None:
            node.meta = originals[index].meta.copy()
    return graph


def split_module(m, root_m, split_callback, qualname_map=None, keep_original_order=False,
                 keep_original_node_name=False, keep_original_input_name=True,
                 partition_affix=None, tuple_return=False):
    """Splits the GraphModule @m as torch.fx.passes.split_module does (current
    PyTorch's rules, docs/split-semantics.md): @split_callback(node) gives
    the partition id (an int) of every call node, called exactly once per
    call node in graph order.  @qualname_map, when given, receives the new
    -> original qualified names.  @root_m is not used (as in PyTorch).

    Raises what the callback raises, TypeError for an id that is not an
    int, native.EngineError with the engine's message for a failed split
    (a cycle names its ring), export.ExportError for a graph the format
    cannot hold, native.LibraryNotFoundError without a libfxsplit."""
    lib = native.library()
    exported = engine_graph(m, INDEX_KEY)
    ids = [0] * len(exported.nodes)
    for i, node in enumerate(exported.nodes):
        if node.op not in ("placeholder", "get_attr", "output"):
            pid = split_callback(node)
            try:
                ids[i] = operator.index(pid)
            except TypeError:
                raise TypeError(f"node '{node.name}': split_callback returned {pid!r}, "
                                f"not an int partition id") from None
    with native.Graph(lib, exported.text) as graph:
        text = native.split_with_ids(graph, ids, keep_original_order=keep_original_order,
                                     keep_original_node_name=keep_original_node_name,
                                     keep_original_input_name=keep_original_input_name,
                                     partition_affix=partition_affix,
                                     tuple_return=tuple_return)
    doc = json.loads(text)
    policy = _OriginalPolicy(exported.functions, exported.types)
    new_qualnames = doc.get("qualname_map", {})
    if qualname_map is not None:
        qualname_map.update(new_qualnames)
    originals = exported.nodes
    submodules = {}
    for sub in doc["submodules"]:
        name = sub["name"]
        root = {}
        for e in sub["nodes"]:
            if e["op"] in ("get_attr", "call_module") and e["target"] not in root:
                target = e["target"]
                root[target] = exported.attribute(new_qualnames.get(f"{name}.{target}", target))
        submodules[name] = torch.fx.GraphModule(root, _build(sub["nodes"], policy, name, originals))
    root = {}
    for e in doc["nodes"]:
        if e["op"] in ("get_attr", "call_module"):
            target = e["target"]
            root[target] = submodules[target] if target in submodules \
                else exported.attribute(target)
    return torch.fx.GraphModule(root, _build(doc["nodes"], policy, "", originals))
