"""Prints torch.fx graphs in the line format tests/unit/split/test-split.c compares.

One line per node:  <op> <name> <target> <args>[ <kwargs>]
- target: the qualified name for call_function (torch.fx.node._get_qualified_name),
  the string otherwise;
- args/kwargs: Python repr, with a node written as its bare name;
- kwargs only when not empty.
"""
import torch
import torch.fx
from torch.fx.node import _get_qualified_name


def fmt(v):
    if isinstance(v, torch.fx.Node):
        return v.name
    if isinstance(v, tuple):
        inner = ", ".join(fmt(x) for x in v)
        return "(" + inner + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, list):
        return "[" + ", ".join(fmt(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{fmt(k)}: {fmt(x)}" for k, x in v.items()) + "}"
    if isinstance(v, slice):
        return f"slice({fmt(v.start)}, {fmt(v.stop)}, {fmt(v.step)})"
    if v is Ellipsis:
        return "Ellipsis"
    return repr(v)


def target_str(n):
    if n.op == "call_function":
        return _get_qualified_name(n.target)
    return str(n.target)


def node_line(n):
    line = f"{n.op} {n.name} {target_str(n)} {fmt(n.args)}"
    if n.kwargs:
        line += " " + fmt(n.kwargs)
    return line


def dump_graph(graph):
    return [node_line(n) for n in graph.nodes]


def print_split(title, original, split, qualname_map=None):
    """The original graph, the top-level graph, each submodule in call order
    and the qualname map, as sections the C tests copy."""
    print(f"=== {title}")
    print("--- original")
    for line in dump_graph(original.graph):
        print(line)
    print("--- top")
    for line in dump_graph(split.graph):
        print(line)
    for n in split.graph.nodes:
        if n.op == "call_module":
            print(f"--- {n.target}")
            for line in dump_graph(getattr(split, n.target).graph):
                print(line)
    if qualname_map:
        print("--- qualname_map")
        for k, v in qualname_map.items():
            print(f"{k} -> {v}")
    print()
