"""Export a torch.fx GraphModule as an fxsplit graph file (format version 1).

Everything symbolic_trace produces is represented; anything else is an
ExportError naming the node, never a silent drop.
"""
import enum
import json
import math

import torch
import torch.fx
from torch.fx.node import Node, _get_qualified_name, _type_repr

FORMAT = "fxsplit-graph"
VERSION = 1


class ExportError(ValueError):
    """A graph holds something the fxsplit graph format cannot represent."""


def _float(v):
    if math.isnan(v):
        return {"float": "nan"}
    if math.isinf(v):
        return {"float": "inf" if v > 0 else "-inf"}
    return v


def _qualified_type(t):
    if t.__module__ == "builtins":
        return t.__qualname__
    return f"{t.__module__}.{t.__qualname__}"


# Constants torch.fx prints with repr() and that fxsplit keeps opaque.
_OPAQUE_TYPES = (torch.dtype, torch.device, torch.memory_format, torch.layout)


def _value(v, where):
    """One argument value in the format's JSON encoding."""
    if isinstance(v, Node):
        return {"node": v.name}
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int) and not isinstance(v, enum.Enum):
        if not -(2**63) <= v < 2**63:
            raise ExportError(f"{where}: integer {v} does not fit in 64 bits")
        return v
    if isinstance(v, float):
        return _float(v)
    if isinstance(v, tuple):
        if hasattr(v, "_fields"):
            raise ExportError(f"{where}: named tuple {type(v).__name__} is not supported")
        return {"tuple": [_value(x, f"{where}[{i}]") for i, x in enumerate(v)]}
    if isinstance(v, list):
        return [_value(x, f"{where}[{i}]") for i, x in enumerate(v)]
    if isinstance(v, dict):
        return {"dict": [[_value(k, f"{where}.key"), _value(x, f"{where}[{k!r}]")]
                         for k, x in v.items()]}
    if isinstance(v, slice):
        return {"slice": [_value(v.start, where), _value(v.stop, where), _value(v.step, where)]}
    if v is Ellipsis:
        return {"ellipsis": True}
    if isinstance(v, _OPAQUE_TYPES):
        return {"opaque": _qualified_type(type(v)), "repr": repr(v)}
    raise ExportError(f"{where}: cannot represent a value of type {_qualified_type(type(v))}: {v!r}")


def _target(node):
    if node.op == "call_function":
        return _get_qualified_name(node.target)
    if not isinstance(node.target, str):
        raise ExportError(f"node '{node.name}': {node.op} target is not a string: {node.target!r}")
    return node.target


def _tensor_meta(tm):
    return {"shape": [int(s) for s in tm.shape], "dtype": str(tm.dtype)}


def _meta(node):
    meta = {}
    tm = node.meta.get("tensor_meta")
    if tm is not None:
        if hasattr(tm, "shape") and hasattr(tm, "dtype"):
            meta["tensor"] = _tensor_meta(tm)
        elif isinstance(tm, (tuple, list)) and all(hasattr(t, "shape") for t in tm):
            meta["tensors"] = [_tensor_meta(t) for t in tm]
    # Free-form entries worth keeping: tags and costs for partitioners, and
    # is_wrapped (torch.fx.wrap'd functions), which torch.fx's codegen reads.
    for key in ("tag", "partition", "cost", "is_wrapped"):
        if key in node.meta and isinstance(node.meta[key], (str, int, float, bool)):
            meta[key] = node.meta[key]
    # A call of a torch.fx.wrap'ed function: torch.fx prints a wrap() line
    # for it at the top of the code (the python output reproduces it).
    if node.meta.get("is_wrapped"):
        meta["is_wrapped"] = True
    return meta


def _attribute(value):
    if isinstance(value, torch.nn.Module):
        return {"kind": "module", "class": _qualified_type(type(value))}
    if isinstance(value, torch.Tensor):
        kind = "parameter" if isinstance(value, torch.nn.Parameter) else "constant"
        return {"kind": kind, "shape": list(value.shape), "dtype": str(value.dtype)}
    return {"kind": "object"}


def _attributes(gm, targets):
    """The module's attribute table: every module, parameter and buffer, plus
    every get_attr / call_module target (constants and plain objects too)."""
    table = {}
    for name, mod in gm.named_modules():
        if name:
            table[name] = _attribute(mod)
    for name, p in gm.named_parameters():
        table[name] = _attribute(p)
    for name, b in gm.named_buffers():
        table[name] = {"kind": "buffer", "shape": list(b.shape), "dtype": str(b.dtype)}
    for node, target in targets:
        if target in table:
            continue
        obj = gm
        for atom in target.split("."):
            if not hasattr(obj, atom):
                raise ExportError(f"node '{node.name}': target {target} not found in the module")
            obj = getattr(obj, atom)
        table[target] = _attribute(obj)
    return table


def graph_to_dict(gm, example_inputs=None):
    """The graph file of @gm as a dict.  With @example_inputs, runs ShapeProp
    first so every node gets its tensor shapes and dtypes."""
    if example_inputs is not None:
        from torch.fx.passes.shape_prop import ShapeProp
        ShapeProp(gm).propagate(*example_inputs)
    nodes = []
    targets = []
    for node in gm.graph.nodes:
        where = f"node '{node.name}'"
        entry = {"name": node.name, "op": node.op, "target": _target(node)}
        if node.args:
            entry["args"] = [_value(a, f"{where} args[{i}]") for i, a in enumerate(node.args)]
        if node.kwargs:
            entry["kwargs"] = {k: _value(v, f"{where} kwargs[{k!r}]") for k, v in node.kwargs.items()}
        if node.type is not None:
            entry["type"] = _type_repr(node.type)
        meta = _meta(node)
        if meta:
            entry["meta"] = meta
        if node.op in ("get_attr", "call_module"):
            targets.append((node, node.target))
        nodes.append(entry)
    return {"format": FORMAT, "version": VERSION,
            "attributes": _attributes(gm, targets), "nodes": nodes}


def export(gm, example_inputs=None, path=None):
    """Writes @gm as an fxsplit graph file at @path (or returns the text when
    @path is None)."""
    text = json.dumps(graph_to_dict(gm, example_inputs), allow_nan=False)
    if path is None:
        return text
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
        f.write("\n")
    return path


